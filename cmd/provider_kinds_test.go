package cmd

import (
	"slices"
	"testing"

	"github.com/memctl/memctl/internal/config"
	"github.com/memctl/memctl/internal/model"
)

// TestProviderKindsAgree keeps the values config accepts for provider.kind
// (config stays free of the model package and its SDKs) equal to the kinds
// the model package builds.
func TestProviderKindsAgree(t *testing.T) {
	var kinds []string
	for _, k := range model.Kinds() {
		kinds = append(kinds, string(k))
	}
	if !slices.Equal(config.ProviderKinds, kinds) {
		t.Errorf("config.ProviderKinds = %v, model.Kinds() = %v", config.ProviderKinds, kinds)
	}
}
