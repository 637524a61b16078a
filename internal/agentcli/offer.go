package agentcli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// OfferFile, in the memctl home, remembers what `memctl run` said about
// each agent CLI it could have offered, so that it says so once: a yes
// is remembered in the config instead (provider.kind).
const OfferFile = "agent-offer.json"

// OfferAnswer is how an offer of an agent CLI ended.
type OfferAnswer string

// The remembered ends of an offer.
const (
	// OfferTold: the run could not ask (no terminal) and said how to take
	// it; a run at a terminal will still ask.
	OfferTold OfferAnswer = "told"
	// OfferDeclined: the user said no at the prompt; no run asks again
	// (memctl doctor still says how to switch).
	OfferDeclined OfferAnswer = "declined"
)

// OfferRecord is one remembered offer.
type OfferRecord struct {
	Answer OfferAnswer `json:"answer"`
	At     time.Time   `json:"at"`
}

// LoadOffers reads the remembered offers; a missing file is none.
func LoadOffers(path string) (map[Agent]OfferRecord, error) {
	out := map[Agent]OfferRecord{}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return map[Agent]OfferRecord{}, err
	}
	return out, nil
}

// SaveOffer remembers how the offer of agent ended, replacing the file
// atomically.
func SaveOffer(path string, agent Agent, answer OfferAnswer, at time.Time) error {
	offers, _ := LoadOffers(path) // an unreadable file is replaced
	offers[agent] = OfferRecord{Answer: answer, At: at.UTC()}
	b, err := json.MarshalIndent(offers, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".agent-offer-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
