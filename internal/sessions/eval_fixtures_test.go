package sessions

import (
	"sort"
	"strings"
	"testing"
)

// The real transcripts under testdata/real/eval/ feed the extractor's
// evaluation set (internal/extract/heuristic/testdata/eval). They sit outside the
// two roots the other fixture tests and the cmd scripts scan, so adding them
// changes no existing expectation; this test makes sure memctl's own readers
// discover and parse every one of them as the agent wrote it.
func TestEvalFixturesRead(t *testing.T) {
	want := map[string]Meta{
		"codex/2026/05/11/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl": {
			ID: "019e1695-0522-7c83-8b39-0dd379793f80", Source: "vscode", Cwd: "/Users/Sample_User/naya"},
		"claude/-Users-user-repo/196820da-1026-4b6f-a513-a6aae42da1a6.jsonl": {
			ID: "196820da-1026-4b6f-a513-a6aae42da1a6", Source: "cli", Cwd: "/Users/user/repo", GitBranch: "conversations"},
		"claude/-Users-user-repo/3fe1b6bc-dbd0-4320-b980-4f147befa187.jsonl": {
			ID: "3fe1b6bc-dbd0-4320-b980-4f147befa187", Source: "cli", Cwd: "/Users/user/repo", GitBranch: "codex"},
		"claude/-Users-user-repo/9eda1058-9706-484a-b992-d03f9cfa2546.jsonl": {
			ID: "9eda1058-9706-484a-b992-d03f9cfa2546", Source: "cli", Cwd: "/Users/user/repo", GitBranch: "conversations"},
		"claude/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl": {
			ID: "5c0375b4-57a5-4f26-b12d-d022ee4e51b7", Source: "cli", Cwd: "/path/to/Demo", GitBranch: "main"},
		"claude/sample-project/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl": {
			ID: "fe5e1c67-53e7-4862-81ae-d0e013e3270b", Source: "cli", Cwd: "/path/to/Demo"},
		"claude/-Users-Nikita-Levyankov-repos-EPMCDME-codemie-ai-codemie-code/5c187f31-7d9e-49c6-86b2-206d3023f675.jsonl": {
			ID: "5c187f31-7d9e-49c6-86b2-206d3023f675", Source: "cli", Cwd: "/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code", GitBranch: "main"},
		"claude/-Users-Nikita-Levyankov-repos-EPMCDME-codemie-ai-codemie-code/a1f75e0f-ecc5-4f62-be3d-336b8f0b3928.jsonl": {
			ID: "a1f75e0f-ecc5-4f62-be3d-336b8f0b3928", Source: "cli", Cwd: "/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code", GitBranch: "codex"},
		"claude/-Users-Nikita-Levyankov-repos-EPMCDME-codemie-ai-codemie-code/b68cb16e-c614-42d1-86fc-f0875d42724d.jsonl": {
			ID: "b68cb16e-c614-42d1-86fc-f0875d42724d", Source: "cli", Cwd: "/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code", GitBranch: "fix-multiplatform"},
		"codex/2025/09/16/rollout-2025-09-16T14-12-31-613a9a68-8816-40b2-a2d4-041ade599da6.jsonl": {
			ID: "613a9a68-8816-40b2-a2d4-041ade599da6", Source: "vscode", Cwd: "/Users/home/Downloads/CpolarAutoUpdater", GitBranch: "master"},
		"codex/2025/09/26/rollout-2025-09-26T17-01-04-019985ca-7ef7-7580-a921-c20ac619f40b.jsonl": {
			ID: "019985ca-7ef7-7580-a921-c20ac619f40b", Source: "vscode", Cwd: `c:\Users\shahh\OneDrive\Desktop\agentic-neurodata-conversion-2`, GitBranch: "main"},
		"codex/2025/09/26/rollout-2025-09-26T19-38-50-0199865a-ee71-7ae3-b232-87583b038e9f.jsonl": {
			ID: "0199865a-ee71-7ae3-b232-87583b038e9f", Source: "vscode", Cwd: `c:\Users\shahh\OneDrive\Desktop\agentic-neurodata-conversion-2`},
		"codex/2025/09/26/rollout-2025-09-26T20-11-25-01998678-c228-73e1-86d1-ff72b4845b64.jsonl": {
			ID: "01998678-c228-73e1-86d1-ff72b4845b64", Source: "vscode", Cwd: `c:\Users\shahh\OneDrive\Desktop\agentic-neurodata-conversion-2`},
		"codex/2025/09/29/rollout-2025-09-29T13-07-08-01999467-65bf-7281-8ab6-73bb53989041.jsonl": {
			ID: "01999467-65bf-7281-8ab6-73bb53989041", Source: "vscode", Cwd: `C:\Users\shahh\OneDrive\Desktop\agentic-neurodata-conversion-2`, GitBranch: "specify-heet"},
		"codex/2025/09/29/rollout-2025-09-29T13-09-19-01999469-65fd-7fa2-ab93-d24bb4c714cb.jsonl": {
			ID: "01999469-65fd-7fa2-ab93-d24bb4c714cb", Source: "vscode", Cwd: `c:\Users\shahh\OneDrive\Desktop\agentic-neurodata-conversion-2`, GitBranch: "specify-heet"},
		"codex/2025/09/29/rollout-2025-09-29T17-33-37-0199955b-5deb-72e2-9988-4b1b799e1206.jsonl": {
			ID: "0199955b-5deb-72e2-9988-4b1b799e1206", Source: "vscode", Cwd: `c:\Users\shahh\OneDrive\Desktop\agentic-neurodata-conversion-2`, GitBranch: "001-knowledge-graph-systems"},
		"codex/2025/12/06/rollout-2025-12-06T15-11-37-019af581-86ce-7d23-b9c6-0f99353d36af.jsonl": {
			ID: "019af581-86ce-7d23-b9c6-0f99353d36af", Source: "cli", Cwd: "/Users/gqadonis/Projects/prometheus/prometheus-parking-lot", GitBranch: "main"},
		"claude/-home-marco-projects-spotter/491e126e-1e71-469c-ade2-fcc8af567c74.jsonl": {
			ID: "491e126e-1e71-469c-ade2-fcc8af567c74", Source: "cli", Cwd: "/home/marco/projects/spotter", GitBranch: "master"},
		"claude/-home-marco-projects-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl": {
			ID: "55604662-cf2a-4331-851a-ec234028f8ca", Source: "cli", Cwd: "/home/marco/projects/spotter", GitBranch: "master"},
		"claude/-home-marco-projects-spotter/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl": {
			ID: "d6e0bada-1959-4eec-a9d2-0bfade768d8f", Source: "cli", Cwd: "/home/marco/projects/spotter", GitBranch: "master"},
		// The second round of fixtures: Go (entireio/cli) and TypeScript (FSM1/cipher-box)
		// sessions published by Entire, and two long marot/spotter sessions with
		// their sub-agent files (which discovery attaches, not lists).
		"claude/-Users-gtrrz-victor-wks-cli/d64b50bb-125b-4b54-867a-e59841e553d8.jsonl": {
			ID: "d64b50bb-125b-4b54-867a-e59841e553d8", Source: "cli", Cwd: "/Users/gtrrz-victor/wks/cli", GitBranch: "gtrrz-victor/do-not-show-suggestions-if-cmd-fails"},
		"claude/-Users-soph-Work-entire-devenv-cli/1c38adc0-5071-4382-9e53-de8c30e2265f.jsonl": {
			ID: "1c38adc0-5071-4382-9e53-de8c30e2265f", Source: "cli", Cwd: "/Users/soph/Work/entire/devenv/cli", GitBranch: "main"},
		"claude/-Users-soph-Work-entire-devenv-cli/e5fcdc73-b9fc-4991-b532-6bf8440fd12d.jsonl": {
			ID: "e5fcdc73-b9fc-4991-b532-6bf8440fd12d", Source: "cli", Cwd: "/Users/soph/Work/entire/devenv/cli", GitBranch: "soph/allow-dogfood-local-dev"},
		"claude/-Users-alex-workspace-cli--worktrees-3/e0cf01c8-a5c1-4d96-8137-81b8c2be9359.jsonl": {
			ID: "e0cf01c8-a5c1-4d96-8137-81b8c2be9359", Source: "cli", Cwd: "/Users/alex/workspace/cli/.worktrees/3", GitBranch: "alex/ent-221-phase-aware-git-hooks"},
		"claude/-Users-michael-Code-cipher-box/14255944-5b59-48f2-a75c-0025d518c7ea.jsonl": {
			ID: "14255944-5b59-48f2-a75c-0025d518c7ea", Source: "cli", Cwd: "/Users/michael/Code/cipher-box", GitBranch: "fix/staging-shares-migration"},
		"claude/-Users-michael-Code-cipher-box/1cd4e81e-c965-4804-bcb3-528cd9728724.jsonl": {
			ID: "1cd4e81e-c965-4804-bcb3-528cd9728724", Source: "cli", Cwd: "/Users/michael/Code/cipher-box", GitBranch: "feat/phase-14-user-to-user-sharing"},
		"claude/-home-USER-projects-spotter-worktrees-spotter-fum/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl": {
			ID: "8463c716-a2ea-4c14-9efa-87158ebd9f20", Source: "cli", Cwd: "/home/USER/projects/spotter-worktrees/spotter-fum", GitBranch: "spotter-fum"},
		"claude/-home-USER-projects-spotter-worktrees-spotter-4te/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl": {
			ID: "ae4a77f8-aedd-4bc1-888f-c94edc91af04", Source: "cli", Cwd: "/home/USER/projects/spotter-worktrees/spotter-4te", GitBranch: "spotter-4te"},
	}
	checkFixtureRoot(t, "testdata/real/eval", want)
}

// TestHeldoutFixturesRead does the same for the evaluation set's test part
// under testdata/real/heldout/, a root of its own so that neither the other
// fixture tests nor the development part's roots see its sessions.
func TestHeldoutFixturesRead(t *testing.T) {
	want := map[string]Meta{
		"codex/2025/10/14/rollout-2025-10-14T22-34-26-0199e4a5-5b78-78f2-b041-6b876f71fdab.jsonl": {
			ID: "0199e4a5-5b78-78f2-b041-6b876f71fdab", Source: "cli", Cwd: "/Users/alex/Sites/ai-trading-bot", GitBranch: "migrate-strategies"},
		"codex/2025/10/17/rollout-2025-10-17T22-40-02-0199f41d-9079-7662-ba8d-eff8c75f8a7a.jsonl": {
			ID: "0199f41d-9079-7662-ba8d-eff8c75f8a7a", Source: "cli", Cwd: "/Users/alex/Sites/ai-trading-bot", GitBranch: "migrate-strategies"},
		"codex/2025/10/27/rollout-2025-10-27T08-30-03-019a24c9-ea2a-7dd0-bce4-6965486ab43d.jsonl": {
			ID: "019a24c9-ea2a-7dd0-bce4-6965486ab43d", Source: "cli", Cwd: "/data2/huangzhe/code/llm-perf-opt", GitBranch: "main"},
		"codex/2025/11/12/rollout-2025-11-12T17-48-11-019a7ae6-1945-7c63-98f2-210adb922af9.jsonl": {
			ID: "019a7ae6-1945-7c63-98f2-210adb922af9", Source: "cli", Cwd: "/mnt/d/ai/MoonMind", GitBranch: "codex/troubleshoot-sign-in-callback-issue-in-celery-dpn1ee"},
		"codex/2025/11/13/rollout-2025-11-13T18-21-11-019a802a-aab1-7c31-9831-d2510c7a74a2.jsonl": {
			ID: "019a802a-aab1-7c31-9831-d2510c7a74a2", Source: "cli", Cwd: "/mnt/d/ai/MoonMind", GitBranch: "main"},
		"claude/-Users-cedricteyton-Code-agents-md-evaluator/31b1be44-3380-444d-8a6f-78bc9463a310.jsonl": {
			ID: "31b1be44-3380-444d-8a6f-78bc9463a310", Source: "cli", Cwd: "/Users/cedricteyton/Code/agents-md-evaluator", GitBranch: "main"},
		"claude/-Users-cedricteyton-Code-agents-md-evaluator/5e1ab9a6-bf0e-4850-bd88-c2e45dea3d20.jsonl": {
			ID: "5e1ab9a6-bf0e-4850-bd88-c2e45dea3d20", Source: "cli", Cwd: "/Users/cedricteyton/Code/agents-md-evaluator", GitBranch: "main"},
		"claude/-Users-cedricteyton-Code-agents-md-evaluator/beb0056c-ce4d-42d8-9762-1b8b78ade068.jsonl": {
			ID: "beb0056c-ce4d-42d8-9762-1b8b78ade068", Source: "cli", Cwd: "/Users/cedricteyton/Code/agents-md-evaluator", GitBranch: "main"},
		"claude/-Users-cedricteyton-Code-agents-md-evaluator/e08c4b79-41bc-4fcf-ba24-d5b1b14a9fd1.jsonl": {
			ID: "e08c4b79-41bc-4fcf-ba24-d5b1b14a9fd1", Source: "cli", Cwd: "/Users/cedricteyton/Code/agents-md-evaluator", GitBranch: "main"},
		// Claude Code on Windows: the project folder is the cwd D:\oh-my-posh
		// with every character that is not a letter or digit made a dash.
		"claude/D--oh-my-posh/32e7c00e-d1f8-463c-8090-dacd6ba51385.jsonl": {
			ID: "32e7c00e-d1f8-463c-8090-dacd6ba51385", Source: "cli", Cwd: `D:\oh-my-posh`, GitBranch: "next"},
		"claude/D--oh-my-posh/3b64e48c-b2c8-45bb-a948-4ad6366272ac.jsonl": {
			ID: "3b64e48c-b2c8-45bb-a948-4ad6366272ac", Source: "cli", Cwd: `D:\oh-my-posh`, GitBranch: "next"},
		"claude/D--oh-my-posh/69d8706c-d098-4239-8a99-f89c153822c3.jsonl": {
			ID: "69d8706c-d098-4239-8a99-f89c153822c3", Source: "cli", Cwd: `D:\oh-my-posh`, GitBranch: "next"},
		"claude/D--oh-my-posh/b342582f-94b9-4dbd-a7eb-21b2fe4b63c5.jsonl": {
			ID: "b342582f-94b9-4dbd-a7eb-21b2fe4b63c5", Source: "cli", Cwd: `D:\oh-my-posh`, GitBranch: "next"},
		"claude/-home-rob-Documents-Safecast-safecast-map-MCP/20f9319f-a0e1-43f7-92da-b744b96c95d9.jsonl": {
			ID: "20f9319f-a0e1-43f7-92da-b744b96c95d9", Source: "cli", Cwd: "/home/rob/Documents/Safecast/safecast-map-MCP", GitBranch: "main"},
		"claude/-home-rob-Documents-Safecast-safecast-map-MCP/323f4137-d5cd-497a-ba7f-d2a1ce9660de.jsonl": {
			ID: "323f4137-d5cd-497a-ba7f-d2a1ce9660de", Source: "cli", Cwd: "/home/rob/Documents/Safecast/safecast-map-MCP", GitBranch: "main"},
		"claude/-home-rob-Documents-Safecast-safecast-map-MCP/38b54a46-5663-47ec-8f87-af920b1f4ba3.jsonl": {
			ID: "38b54a46-5663-47ec-8f87-af920b1f4ba3", Source: "cli", Cwd: "/home/rob/Documents/Safecast/safecast-map-MCP", GitBranch: "main"},
		"claude/-home-rob-Documents-Safecast-safecast-map-MCP/a63effd9-4778-47b8-8b1a-2e5a910fa1af.jsonl": {
			ID: "a63effd9-4778-47b8-8b1a-2e5a910fa1af", Source: "cli", Cwd: "/home/rob/Documents/Safecast/safecast-map-MCP", GitBranch: "main"},
		"claude/-home-rob-Documents-Safecast-safecast-map-MCP/b6847497-f5f3-4b52-a8dd-39eafaa75c69.jsonl": {
			ID: "b6847497-f5f3-4b52-a8dd-39eafaa75c69", Source: "cli", Cwd: "/home/rob/Documents/Safecast/safecast-map-MCP", GitBranch: "main"},
		"claude/-home-rob-Documents-Safecast-safecast-map-MCP/d3af4e36-d6e3-4220-9a81-ebca89484b4f.jsonl": {
			ID: "d3af4e36-d6e3-4220-9a81-ebca89484b4f", Source: "cli", Cwd: "/home/rob/Documents/Safecast/safecast-map-MCP", GitBranch: "main"},
		"claude/-home-rob-Documents-Safecast-safecast-map-MCP/f80e1c19-a344-4583-9cf6-5c9e7daf6737.jsonl": {
			ID: "f80e1c19-a344-4583-9cf6-5c9e7daf6737", Source: "cli", Cwd: "/home/rob/Documents/Safecast/safecast-map-MCP", GitBranch: "main"},
		"claude/-Users-kairi-imessage-mail/66f8ec73-c22d-4671-81ba-22c60b81f161.jsonl": {
			ID: "66f8ec73-c22d-4671-81ba-22c60b81f161", Source: "cli", Cwd: "/Users/kairi/imessage-mail", GitBranch: "main"},
		// Codex CLI sessions of EdouardZemb/test-framework, dsissoko/atelier,
		// Jackela/AI-Recruitment-Clerk and EdofEngland/code_butler.
		"codex/2026/02/02/rollout-2026-02-02T13-48-50-019c1e66-0d23-7b22-a30a-0b485278eb73.jsonl": {
			ID: "019c1e66-0d23-7b22-a30a-0b485278eb73", Source: "cli", Cwd: "/home/edouard/test-framework", GitBranch: "main"},
		"codex/2026/02/02/rollout-2026-02-02T10-44-15-019c1dbd-113a-7ae0-aa36-e2a64f2ff0b3.jsonl": {
			ID: "019c1dbd-113a-7ae0-aa36-e2a64f2ff0b3", Source: "cli", Cwd: "/home/edouard/test-framework"},
		"codex/2026/01/30/rollout-2026-01-30T17-44-20-019c0fca-94b6-7473-9f02-1defdfc7f053.jsonl": {
			ID: "019c0fca-94b6-7473-9f02-1defdfc7f053", Source: "cli", Cwd: "/home/edouard/test-framework"},
		"codex/2026/02/04/rollout-2026-02-04T21-48-31-019c2a69-eed3-71a3-aec8-2057b31acb54.jsonl": {
			ID: "019c2a69-eed3-71a3-aec8-2057b31acb54", Source: "cli", Cwd: "/home/edouard/test-framework", GitBranch: "main"},
		"codex/2026/01/09/rollout-2026-01-09T15-06-19-019ba314-5bf0-7030-8c60-49fb05f1ecd5.jsonl": {
			ID: "019ba314-5bf0-7030-8c60-49fb05f1ecd5", Source: "cli", Cwd: "/home/david/projets/spec2code/atelier", GitBranch: "main"},
		"codex/2026/01/09/rollout-2026-01-09T15-12-42-019ba31a-372d-7ca1-84bc-e796bbea1901.jsonl": {
			ID: "019ba31a-372d-7ca1-84bc-e796bbea1901", Source: "cli", Cwd: "/home/david/projets/spec2code/atelier", GitBranch: "001-speckit-template-docs"},
		"codex/2025/10/23/rollout-2025-10-23T11-40-21-019a0e82-73d6-7592-88a6-48d49534d91b.jsonl": {
			ID: "019a0e82-73d6-7592-88a6-48d49534d91b", Source: "cli", Cwd: `D:\Code\AI-Recruitment-Clerk`, GitBranch: "main"},
		"codex/2025/11/24/rollout-2025-11-24T13-02-00-019ab73e-8c11-7ad2-b604-5987891db560.jsonl": {
			ID: "019ab73e-8c11-7ad2-b604-5987891db560", Source: "cli", Cwd: "/Users/edmundengland/Documents/coding_tools/code_butler", GitBranch: "refactor/ai-clean"},
		// Claude Code sessions of gmeligio/flutter-docker-image (two in git
		// worktrees) and ebridges/wakil.
		"claude/-home-eligio-Code-flutter-docker-image/9edc9e71-7312-47e5-a245-35932016cf40.jsonl": {
			ID: "9edc9e71-7312-47e5-a245-35932016cf40", Source: "cli", Cwd: "/home/eligio/Code/flutter-docker-image", GitBranch: "openspec-research"},
		"claude/-home-eligio-Code-worktrees-flutter-docker-image-warm-orbit-flutter-docker-image/9c4f30d9-7a7f-49b7-93b3-062fbf14c199.jsonl": {
			ID: "9c4f30d9-7a7f-49b7-93b3-062fbf14c199", Source: "cli", Cwd: "/home/eligio/Code/worktrees/flutter-docker-image/warm-orbit/flutter-docker-image", GitBranch: "chore/retire-renovate-research"},
		"claude/-home-eligio-Code-worktrees-flutter-docker-image-civil-moon-flutter-docker-image/f38c62f6-9179-4a83-87e0-d2307abc24e2.jsonl": {
			ID: "f38c62f6-9179-4a83-87e0-d2307abc24e2", Source: "cli", Cwd: "/home/eligio/Code/worktrees/flutter-docker-image/civil-moon/flutter-docker-image", GitBranch: "fix/cleanup-pr-tags-all-images"},
		"claude/-Users-ebridges-Projects-wakil/6f77ae00-a4f5-49eb-b09b-3fa836b62e4c.jsonl": {
			ID: "6f77ae00-a4f5-49eb-b09b-3fa836b62e4c", Source: "cli", Cwd: "/Users/ebridges/Projects/wakil", GitBranch: "feat/wire-skill-resolver-into-ingest"},
		"claude/-Users-ebridges-Projects-wakil/77205d86-d9a9-4c21-b0a9-b61292f3a454.jsonl": {
			ID: "77205d86-d9a9-4c21-b0a9-b61292f3a454", Source: "cli", Cwd: "/Users/ebridges/Projects/wakil", GitBranch: "main"},
		"claude/-Users-ebridges-Projects-wakil/9108d770-b024-4e7a-8789-fefeeed40c49.jsonl": {
			ID: "9108d770-b024-4e7a-8789-fefeeed40c49", Source: "cli", Cwd: "/Users/ebridges/Projects/wakil", GitBranch: "main"},
		"claude/-Users-ebridges-Projects-wakil/adf7939a-e09b-4b9b-a1a7-7ec227ebe313.jsonl": {
			ID: "adf7939a-e09b-4b9b-a1a7-7ec227ebe313", Source: "cli", Cwd: "/Users/ebridges/Projects/wakil", GitBranch: "docs/adr-template"},
		// Codex CLI and VS Code extension sessions of hericlibong/SassyAI,
		// chunrui-qashier/md-http-server, pierrickmartino/blockbuilders.tech.bmad,
		// ivanma9/ship and MythologIQ/Zo-Qore (Windows, no git block).
		"codex/2025/11/24/rollout-2025-11-24T00-07-08-019ab178-1682-7892-912f-cd70b0725a0c.jsonl": {
			ID: "019ab178-1682-7892-912f-cd70b0725a0c", Source: "cli", Cwd: "/Users/chunrui/Source/other/md-server", GitBranch: "main"},
		"codex/2025/11/27/rollout-2025-11-27T11-18-43-019ac61c-1ec1-7151-b60e-9fd981b9a88b.jsonl": {
			ID: "019ac61c-1ec1-7151-b60e-9fd981b9a88b", Source: "vscode", Cwd: `g:\MythologIQ\Hearthlink`},
		"codex/2025/12/14/rollout-2025-12-14T15-30-46-019b1d45-67d1-76d0-87c4-c7515b979dce.jsonl": {
			ID: "019b1d45-67d1-76d0-87c4-c7515b979dce", Source: "cli", Cwd: "/Users/pierrickmartino/Developer/blockbuilders.tech.bmad", GitBranch: "main"},
		"codex/2025/12/16/rollout-2025-12-16T21-15-00-019b28cd-46d3-7b52-9d39-e36f58fed5f7.jsonl": {
			ID: "019b28cd-46d3-7b52-9d39-e36f58fed5f7", Source: "cli", Cwd: "/Users/pierrickmartino/Developer/blockbuilders.tech.bmad", GitBranch: "feature/backtest-trades-table"},
		"codex/2026/01/10/rollout-2026-01-10T21-27-14-019baae1-0e0b-7822-b4df-7f1bece6df0b.jsonl": {
			ID: "019baae1-0e0b-7822-b4df-7f1bece6df0b", Source: "vscode", Cwd: `g:\MythologIQ\Hearthlink`},
		"codex/2026/01/28/rollout-2026-01-28T06-59-02-019c0478-aa2f-78a0-9a99-530ec8bf5040.jsonl": {
			ID: "019c0478-aa2f-78a0-9a99-530ec8bf5040", Source: "vscode", Cwd: `g:\MythologIQ\Hearthlink`},
		"codex/2026/02/26/rollout-2026-02-26T18-43-34-019c9b0c-8463-7c73-905a-6fdab3e854f8.jsonl": {
			ID: "019c9b0c-8463-7c73-905a-6fdab3e854f8", Source: "cli", Cwd: "/home/hericdev/CHALLENGES", GitBranch: "main"},
		"codex/2026/03/11/rollout-2026-03-11T12-36-01-019cddf8-47bf-7761-8f4c-d6b597bbe0de.jsonl": {
			ID: "019cddf8-47bf-7761-8f4c-d6b597bbe0de", Source: "cli", Cwd: "/Users/ivanma/Desktop/gauntlet/ShipShape/ship", GitBranch: "master"},
		// Claude Code sessions of obsessiondb/chkit (the main checkout and four
		// Conductor workspaces, git worktrees of one repository) and tslateman/duet.
		"claude/-Users-marc-conductor-workspaces-chkit-macau-v1/6e03b57d-b556-4679-96ba-92f7c9624fa3.jsonl": {
			ID: "6e03b57d-b556-4679-96ba-92f7c9624fa3", Source: "cli", Cwd: "/Users/marc/conductor/workspaces/chkit/macau-v1", GitBranch: "marc/macau-v1"},
		"claude/-Users-marc-conductor-workspaces-chkit-perth/2717e50c-748d-4079-b805-7cbe5da1a840.jsonl": {
			ID: "2717e50c-748d-4079-b805-7cbe5da1a840", Source: "cli", Cwd: "/Users/marc/conductor/workspaces/chkit/perth", GitBranch: "KeKs0r/perth"},
		"claude/-Users-marc-conductor-workspaces-chkit-prague/366bc4b1-8789-4be2-bcc0-31861da6e9b7.jsonl": {
			ID: "366bc4b1-8789-4be2-bcc0-31861da6e9b7", Source: "cli", Cwd: "/Users/marc/conductor/workspaces/chkit/prague", GitBranch: "marc/num-6597-chkit-hint-at-installing-skills"},
		"claude/-Users-marc-conductor-workspaces-chkit-washington-v1/403e3b5f-40a6-49e4-abfb-5dd5771d6e6f.jsonl": {
			ID: "403e3b5f-40a6-49e4-abfb-5dd5771d6e6f", Source: "cli", Cwd: "/Users/marc/conductor/workspaces/chkit/washington-v1", GitBranch: "marc/washington-v1"},
		"claude/-Users-tslater-dev-cli-duet/7c03c5fa-7295-40f0-9dd9-ffb43edecf1f.jsonl": {
			ID: "7c03c5fa-7295-40f0-9dd9-ffb43edecf1f", Source: "cli", Cwd: "/Users/tslater/dev/cli/duet", GitBranch: "main"},
		"claude/-Users-tslater-dev-cli-duet/7d911558-dda5-49e9-bf9b-f5cc6f1be85a.jsonl": {
			ID: "7d911558-dda5-49e9-bf9b-f5cc6f1be85a", Source: "cli", Cwd: "/Users/tslater/dev/cli/duet", GitBranch: "main"},
		"claude/-Users-marc-Workspace-chkit/ed82adec-6ae6-4175-88a7-9ffe3c96b1b4.jsonl": {
			ID: "ed82adec-6ae6-4175-88a7-9ffe3c96b1b4", Source: "cli", Cwd: "/Users/marc/Workspace/chkit", GitBranch: "main"},
		"claude/-Users-tslater-dev-cli-duet/410c9611-5a08-49a3-9520-28e347223e15.jsonl": {
			ID: "410c9611-5a08-49a3-9520-28e347223e15", Source: "cli", Cwd: "/Users/tslater/dev/cli/duet", GitBranch: "main"},
		// Claude Code sessions of ClusterCockpit/cc-backend (Go) and dougnukem/orpheus
		// (the VS Code extension), published with Entire.
		"claude/-Users-jan-prg-ClusterCockpit-cc-backend/7e6b850e-d9e5-48ec-8e24-07c1b3960faa.jsonl": {
			ID: "7e6b850e-d9e5-48ec-8e24-07c1b3960faa", Source: "cli", Cwd: "/Users/jan/prg/ClusterCockpit/cc-backend", GitBranch: "hotfix"},
		"claude/-Users-jan-prg-ClusterCockpit-cc-backend/020fd1ca-672d-4980-ada9-2ebe18ec52db.jsonl": {
			ID: "020fd1ca-672d-4980-ada9-2ebe18ec52db", Source: "cli", Cwd: "/Users/jan/prg/ClusterCockpit/cc-backend", GitBranch: "hotfix"},
		"claude/-Users-jan-prg-ClusterCockpit-cc-backend/88c65864-3f29-4b06-bbe1-7fab0c4a0142.jsonl": {
			ID: "88c65864-3f29-4b06-bbe1-7fab0c4a0142", Source: "cli", Cwd: "/Users/jan/prg/ClusterCockpit/cc-backend", GitBranch: "hotfix"},
		"claude/-Users-jan-prg-ClusterCockpit-cc-backend/9fa13bc4-ded3-497b-9553-eaac6e6ee61e.jsonl": {
			ID: "9fa13bc4-ded3-497b-9553-eaac6e6ee61e", Source: "cli", Cwd: "/Users/jan/prg/ClusterCockpit/cc-backend", GitBranch: "hotfix"},
		"claude/-Users-ddaniels-Dropbox-orpheus/efe3044b-c7cf-4ccf-a7ce-9996d5194f9f.jsonl": {
			ID: "efe3044b-c7cf-4ccf-a7ce-9996d5194f9f", Source: "vscode", Cwd: "/Users/ddaniels/Dropbox/orpheus", GitBranch: "main"},
		// Claude Code sessions of yutakobayashidev/repiq (Go, Nix, Linux; the user
		// writes in Japanese) and RecoveryLM/recoverylm (Vue and TypeScript, macOS),
		// published with Entire.
		"claude/-home-yuta-ghq-github-com-yutakobayashidev-repiq/f8e3b3f6-d3f2-41f2-ad1a-7f1e33c32bf5.jsonl": {
			ID: "f8e3b3f6-d3f2-41f2-ad1a-7f1e33c32bf5", Source: "cli", Cwd: "/home/yuta/ghq/github.com/yutakobayashidev/repiq", GitBranch: "main"},
		"claude/-home-yuta-ghq-github-com-yutakobayashidev-repiq/7cb04102-76fc-47f6-9930-1e116d482fc0.jsonl": {
			ID: "7cb04102-76fc-47f6-9930-1e116d482fc0", Source: "cli", Cwd: "/home/yuta/ghq/github.com/yutakobayashidev/repiq", GitBranch: "main"},
		"claude/-home-yuta-ghq-github-com-yutakobayashidev-repiq/656c09a2-1ffa-44fe-8206-fc2a321184ee.jsonl": {
			ID: "656c09a2-1ffa-44fe-8206-fc2a321184ee", Source: "cli", Cwd: "/home/yuta/ghq/github.com/yutakobayashidev/repiq", GitBranch: "main"},
		"claude/-Users-fieldbradley-Projects-recoverylm/511b3624-7516-448c-8773-fc8ea101bed2.jsonl": {
			ID: "511b3624-7516-448c-8773-fc8ea101bed2", Source: "cli", Cwd: "/Users/fieldbradley/Projects/recoverylm", GitBranch: "feat/12-remi-memory"},
		"claude/-Users-fieldbradley-Projects-recoverylm/476bc2ad-856f-4b17-b51c-0697dff1456d.jsonl": {
			ID: "476bc2ad-856f-4b17-b51c-0697dff1456d", Source: "cli", Cwd: "/Users/fieldbradley/Projects/recoverylm", GitBranch: "main"},
		// Claude Code sessions of tomochang/aidev (TypeScript, macOS), run headless by
		// aidev itself and published with Entire in the repository's tree.
		"claude/-Users-tomo-clawd/a58cb2da-b71d-4517-8d14-9af8f79cd489.jsonl": {
			ID: "a58cb2da-b71d-4517-8d14-9af8f79cd489", Source: "cli", Cwd: "/Users/tomo/clawd", GitBranch: "aidev/issue-65"},
		"claude/-Users-tomo-clawd/c5f4a9cc-124d-4ca2-a57a-a111f631f14c.jsonl": {
			ID: "c5f4a9cc-124d-4ca2-a57a-a111f631f14c", Source: "cli", Cwd: "/Users/tomo/clawd", GitBranch: "aidev/issue-65"},
		// Claude Code sessions of teslamint/entirecontext (Python, macOS), published
		// with Entire on refs/entire/checkpoints refs.
		"claude/-Users-teslamint-workspace-entirecontext/da81b1d5-eb50-45b5-b9c2-a57df460d77b.jsonl": {
			ID: "da81b1d5-eb50-45b5-b9c2-a57df460d77b", Source: "cli", Cwd: "/Users/teslamint/workspace/entirecontext", GitBranch: "main"},
		"claude/-Users-teslamint-workspace-entirecontext/f70db4c5-8eb1-4c18-b759-7c6c08c0f868.jsonl": {
			ID: "f70db4c5-8eb1-4c18-b759-7c6c08c0f868", Source: "cli", Cwd: "/Users/teslamint/workspace/entirecontext", GitBranch: "release/v0.16.0"},
		// Claude Code sessions of keparlak/NumWordify (.NET, Windows; the user writes
		// in Turkish), published with Entire on refs/entire/checkpoints refs. The
		// first runs in the home folder before the repository is cloned (its
		// branch is "HEAD", which the reader reports as no branch).
		"claude/C--Users-empad/1277548c-ff3e-4e10-8c13-2384241b678c.jsonl": {
			ID: "1277548c-ff3e-4e10-8c13-2384241b678c", Source: "cli", Cwd: `C:\Users\empad`, GitBranch: ""},
		"claude/C--Users-empad-Desktop-Development-entire-numwordify/806ff40c-d20c-4f2d-940c-ba9eede27e70.jsonl": {
			ID: "806ff40c-d20c-4f2d-940c-ba9eede27e70", Source: "cli", Cwd: `C:\Users\empad\Desktop\Development\entire\numwordify`, GitBranch: "fix/v2-correctness-overhaul"},
		// Claude Code 2.0.71 sessions of HillviewCap/Personal_AI_Infrastructure (a
		// fork of Daniel Miessler's PAI; Linux), committed by the author with the
		// repository's .claude folder. Each has two "Warmup" sub-agent files
		// beside it, which discovery attaches to the session and does not list.
		"claude/-home-jenkins-Personal-AI-Infrastructure/5eac5945-4cf4-4f5c-a46a-1f8dacb407aa.jsonl": {
			ID: "5eac5945-4cf4-4f5c-a46a-1f8dacb407aa", Source: "cli", Cwd: "/home/jenkins/Personal_AI_Infrastructure", GitBranch: "main"},
		"claude/-home-jenkins-Personal-AI-Infrastructure/155715ec-f4e9-47ea-859c-2e4cfcceab6f.jsonl": {
			ID: "155715ec-f4e9-47ea-859c-2e4cfcceab6f", Source: "cli", Cwd: "/home/jenkins/Personal_AI_Infrastructure", GitBranch: "main"},
		// A Claude Code 2.1.79 session of f/awesome-chatgpt-prompts (Next.js,
		// macOS), published by Entire on its entire/checkpoints/v1 branch.
		"claude/-Users-fka-Code-awesome-chatgpt-prompts/161a699e-f62c-4087-8a96-ef1103acdb77.jsonl": {
			ID: "161a699e-f62c-4087-8a96-ef1103acdb77", Source: "cli", Cwd: "/Users/fka/Code/awesome-chatgpt-prompts", GitBranch: "main"},
		// Claude Code 2.1 sessions of entireio/git-sync (Go, macOS, two
		// authors), published by Entire on its entire/checkpoints/v1 branch.
		"claude/-Users-soph-Work-entire-devenv-git-sync/665c2e57-8c9f-4dd8-ba40-05c63f801620.jsonl": {
			ID: "665c2e57-8c9f-4dd8-ba40-05c63f801620", Source: "cli", Cwd: "/Users/soph/Work/entire/devenv/git-sync", GitBranch: "soph/issue-63-deferred-credential-helper"},
		"claude/-Users-nodo-work-entire-gitsync/622ab40d-27a3-4017-a1b4-d7c8762c84a4.jsonl": {
			ID: "622ab40d-27a3-4017-a1b4-d7c8762c84a4", Source: "cli", Cwd: "/Users/nodo/work/entire/gitsync", GitBranch: "main"},
		"claude/-Users-soph-Work-entire-devenv-git-sync/daea7b14-0528-442e-9e15-e71249d6c146.jsonl": {
			ID: "daea7b14-0528-442e-9e15-e71249d6c146", Source: "cli", Cwd: "/Users/soph/Work/entire/devenv/git-sync", GitBranch: "main"},
		// Claude Code 2.0 and 2.1 sessions of procrypto/Personal_AI_Infrastructure
		// (a fork of Daniel Miessler's PAI; macOS), committed by the author with
		// his ~/.claude folder. 22e86a77 has three "Warmup" sub-agent files in its
		// subagents folder, which discovery attaches to it and does not list.
		"claude/-Users-neilhart-Documents-BONKbot-github-local-api/929edc6e-faf5-4965-a5e5-0ee5035e5f4f.jsonl": {
			ID: "929edc6e-faf5-4965-a5e5-0ee5035e5f4f", Source: "cli", Cwd: "/Users/neilhart/Documents/BONKbot/github/local-api", GitBranch: "feat/discovery-endpoints"},
		"claude/-Users-neilhart-PAI/81daa5c7-504a-4fa8-9596-5c1190150602.jsonl": {
			ID: "81daa5c7-504a-4fa8-9596-5c1190150602", Source: "cli", Cwd: "/Users/neilhart/PAI", GitBranch: "main"},
		"claude/-Users-neilhart-PAI/22e86a77-b0cd-40e6-9448-f8f518fdd631.jsonl": {
			ID: "22e86a77-b0cd-40e6-9448-f8f518fdd631", Source: "cli", Cwd: "/Users/neilhart/PAI", GitBranch: "main"},
		"claude/-Users-neilhart/c6a72acf-ff20-4590-81fc-d8bc8558cdb4.jsonl": {
			ID: "c6a72acf-ff20-4590-81fc-d8bc8558cdb4", Source: "cli", Cwd: "/Users/neilhart", GitBranch: ""},
		"claude/-Users-neilhart-Documents-BONKbot-github-web-terminal-frontend-feat-dash-pauls-preload-data/cd191b97-62f9-4c00-8b07-612da522d950.jsonl": {
			ID: "cd191b97-62f9-4c00-8b07-612da522d950", Source: "cli", Cwd: "/Users/neilhart/Documents/BONKbot/github/web-terminal-frontend/feat-dash-pauls-preload-data", GitBranch: "feat/trenchbench-unified"},
		// Codex Desktop sessions of jdx/hk, jdx/fnox (one in a Codex worktree,
		// one with no git block) and chikachow/cyspbot, published with Entire.
		"codex/2026/07/01/rollout-2026-07-01T22-19-20-019f1fc3-e84b-7fd0-8e90-628b37c70b57.jsonl": {
			ID: "019f1fc3-e84b-7fd0-8e90-628b37c70b57", Source: "vscode", Cwd: "/Users/jdx/src/hk", GitBranch: "codex/fix-zizmor-nscloud-comments"},
		"codex/2026/07/01/rollout-2026-07-01T21-37-06-019f1f9d-3f06-7550-bd6f-5592a5313d51.jsonl": {
			ID: "019f1f9d-3f06-7550-bd6f-5592a5313d51", Source: "vscode", Cwd: "/Users/jdx/src/hk", GitBranch: "codex/bump-pklr-1-1-1"},
		"codex/2026/07/13/rollout-2026-07-13T21-08-30-019f5d4f-5d25-7c42-87d1-79de9e276e30.jsonl": {
			ID: "019f5d4f-5d25-7c42-87d1-79de9e276e30", Source: "vscode", Cwd: "/Users/jdx/.codex/worktrees/747c/hk"},
		"codex/2026/07/01/rollout-2026-07-01T20-30-21-019f1f60-20b3-7700-80bc-4b42b277daab.jsonl": {
			ID: "019f1f60-20b3-7700-80bc-4b42b277daab", Source: "vscode", Cwd: "/Users/jdx/src/fnox"},
		"codex/2026/06/27/rollout-2026-06-27T04-17-25-019f074b-f03e-7be0-9ffa-a9a133733717.jsonl": {
			ID: "019f074b-f03e-7be0-9ffa-a9a133733717", Source: "vscode", Cwd: "/Users/cysp/src/cyspbot", GitBranch: "z/cyspbot-deploy"},
		"codex/2026/07/01/rollout-2026-07-01T00-46-31-019f1b24-4d88-7863-a509-0197a04a7232.jsonl": {
			ID: "019f1b24-4d88-7863-a509-0197a04a7232", Source: "vscode", Cwd: "/Users/cysp/src/cyspbot", GitBranch: "main"},
		"codex/2026/07/12/rollout-2026-07-12T06-24-55-019f5500-0feb-79c0-a61c-f45ef5610725.jsonl": {
			ID: "019f5500-0feb-79c0-a61c-f45ef5610725", Source: "vscode", Cwd: "/Users/cysp/src/cyspbot", GitBranch: "refactor-oidc-verified-issuer"},
		// Codex Desktop sessions of jdx/mise in Codex worktrees (no git block),
		// published with Entire, and a Codex CLI session of Gordondalos/mail-agent
		// on Windows, committed under .codex/sessions.
		"codex/2026/07/08/rollout-2026-07-08T14-07-52-019f420e-76f5-78b0-aeb2-bb767cc15d8a.jsonl": {
			ID: "019f420e-76f5-78b0-aeb2-bb767cc15d8a", Source: "vscode", Cwd: "/Users/jdx/.codex/worktrees/e218/mise"},
		"codex/2026/07/09/rollout-2026-07-09T04-03-57-019f450b-ee4d-7763-868e-b307bd186fea.jsonl": {
			ID: "019f450b-ee4d-7763-868e-b307bd186fea", Source: "vscode", Cwd: "/Users/jdx/.codex/worktrees/c2a4/mise"},
		"codex/2026/07/02/rollout-2026-07-02T00-53-52-019f2051-63a8-7ca1-bf70-43b7b1b6602c.jsonl": {
			ID: "019f2051-63a8-7ca1-bf70-43b7b1b6602c", Source: "vscode", Cwd: "/Users/jdx/.codex/worktrees/418c/mise"},
		"codex/2026/07/08/rollout-2026-07-08T14-24-41-019f421d-dfca-7e60-b773-72b71b761173.jsonl": {
			ID: "019f421d-dfca-7e60-b773-72b71b761173", Source: "vscode", Cwd: "/Users/jdx/.codex/worktrees/a6fd/mise"},
		"codex/2025/10/25/rollout-2025-10-25T01-25-22-019a17ae-caf0-76a3-8372-3b0a8116c06e.jsonl": {
			ID: "019a17ae-caf0-76a3-8372-3b0a8116c06e", Source: "cli", Cwd: `C:\project\mail-agent`, GitBranch: "001-gmail-oauth-notifier"},
		// Codex CLI 0.36 sessions of sin4auto/typelang-hm-rs (no source field,
		// read as the default "vscode"), committed with the Codex home under
		// .codex-home/.
		"codex/2025/09/17/rollout-2025-09-17T13-45-08-4f9669bf-acce-4fde-b2a6-d9f733194f45.jsonl": {
			ID: "4f9669bf-acce-4fde-b2a6-d9f733194f45", Source: "vscode", Cwd: "/home/hsin4/myproject/typelang-hm-rs", GitBranch: "main"},
		"codex/2025/09/17/rollout-2025-09-17T14-00-14-4282f46f-ff84-45d3-92ea-849487edac0f.jsonl": {
			ID: "4282f46f-ff84-45d3-92ea-849487edac0f", Source: "vscode", Cwd: "/home/hsin4/myproject/typelang-hm-rs", GitBranch: "main"},
		"codex/2025/09/17/rollout-2025-09-17T14-03-57-14e035a7-b687-4278-8aaf-4472cad554c4.jsonl": {
			ID: "14e035a7-b687-4278-8aaf-4472cad554c4", Source: "vscode", Cwd: "/home/hsin4/myproject/typelang-hm-rs", GitBranch: "main"},
		"codex/2025/09/17/rollout-2025-09-17T14-18-00-de94a92a-9e5e-4d04-b11e-b3b5662ca00b.jsonl": {
			ID: "de94a92a-9e5e-4d04-b11e-b3b5662ca00b", Source: "vscode", Cwd: "/home/hsin4/myproject/typelang-hm-rs", GitBranch: "main"},
		// A Codex CLI 0.122 session of j5ik2o/dotfiles, committed with the
		// author's Codex home under .codex-personal/.
		"codex/2026/04/23/rollout-2026-04-23T09-46-23-019db7cd-620a-7262-b58a-d56520d4524c.jsonl": {
			ID: "019db7cd-620a-7262-b58a-d56520d4524c", Source: "cli", Cwd: "/Users/j5ik2o/Sources/j5ik2o.github.com/j5ik2o/dotfiles", GitBranch: "main"},
		// Three Codex CLI 0.39 sessions of jacmanh/taskly, committed with the
		// author's Codex home on the branch 001-task-viewer-edit.
		"codex/2025/11/26/rollout-2025-11-26T15-27-19-019ac08f-c645-7d50-b1d2-d5f8bd0f2cfb.jsonl": {
			ID: "019ac08f-c645-7d50-b1d2-d5f8bd0f2cfb", Source: "vscode", Cwd: "/Users/jacman/Sites/taskly", GitBranch: "main"},
		"codex/2025/11/26/rollout-2025-11-26T15-49-04-019ac0a3-afa7-7f82-8420-50ec86e37710.jsonl": {
			ID: "019ac0a3-afa7-7f82-8420-50ec86e37710", Source: "vscode", Cwd: "/Users/jacman/Sites/taskly", GitBranch: "main"},
		"codex/2025/11/26/rollout-2025-11-26T16-23-40-019ac0c3-5fe3-78e2-9a2d-d24986ebb8aa.jsonl": {
			ID: "019ac0c3-5fe3-78e2-9a2d-d24986ebb8aa", Source: "vscode", Cwd: "/Users/jacman/Sites/taskly", GitBranch: "001-task-viewer-edit"},
		// A Codex CLI 0.115 session (originator codex-tui) committed with the
		// author's Codex home in twyr/twyr-backend-monorepo.
		"codex/2026/03/18/rollout-2026-03-18T14-22-24-019d0025-6611-78a3-89a2-4f857500897b.jsonl": {
			ID: "019d0025-6611-78a3-89a2-4f857500897b", Source: "cli", Cwd: "/home/vish/Work/AyurAdhar/Code/entity-value-aggregate-server", GitBranch: "main"},
		// A Codex CLI 0.87 session of albertoviceconti/advanced-dusseldorfer-calculator
		// (Windows, PowerShell), committed with the author's Codex home under .codex/.
		"codex/2026/01/20/rollout-2026-01-20T09-38-57-019bda8e-99f4-73e2-bb81-93cea792bcc9.jsonl": {
			ID: "019bda8e-99f4-73e2-bb81-93cea792bcc9", Source: "cli", Cwd: `C:\Users\alber\Dokumente\GitHub\advanced-dusseldorfer-calculator`, GitBranch: "main"},
		// Claude Code 1.0.34 to 1.0.43 sessions of MoonYetis/moonyetis-deploy, run as
		// root in /root on a VPS with no git repository (so no branch), committed
		// with the whole /root home.
		"claude/-root/e917221a-3aab-407e-8b6b-24121ec9c718.jsonl": {
			ID: "e917221a-3aab-407e-8b6b-24121ec9c718", Source: "cli", Cwd: "/root"},
		"claude/-root/db6bc80a-e69c-4ff6-9171-d07f572735b1.jsonl": {
			ID: "db6bc80a-e69c-4ff6-9171-d07f572735b1", Source: "cli", Cwd: "/root"},
		"claude/-root/5f93848f-717f-4dd4-89a7-3df7b128afc2.jsonl": {
			ID: "5f93848f-717f-4dd4-89a7-3df7b128afc2", Source: "cli", Cwd: "/root"},
		"claude/-root/3cc7fcfa-7161-454a-a381-ee5ef2651889.jsonl": {
			ID: "3cc7fcfa-7161-454a-a381-ee5ef2651889", Source: "cli", Cwd: "/root"},
		"claude/-root/fdc235b9-1032-4e43-bfd1-8b2bd9aa643a.jsonl": {
			ID: "fdc235b9-1032-4e43-bfd1-8b2bd9aa643a", Source: "cli", Cwd: "/root"},
		"claude/-root/e0bb113e-d0e3-489a-a157-7ae025664ebd.jsonl": {
			ID: "e0bb113e-d0e3-489a-a157-7ae025664ebd", Source: "cli", Cwd: "/root"},
		// Claude Code 2.1.50 sessions of aviralmansingka/dotfiles (macOS), committed
		// with the author's Claude Code home under claude/.claude/ (a stow package).
		"claude/-Users-aviralmansingka-playground-inference-kata/898b211b-0f4a-41e4-bfd8-9dfe0ad00811.jsonl": {
			ID: "898b211b-0f4a-41e4-bfd8-9dfe0ad00811", Source: "cli", Cwd: "/Users/aviralmansingka/playground/inference-kata", GitBranch: "develop"},
		"claude/-Users-aviralmansingka-playground-kata-inference-py/070146de-1076-4ee1-bf91-fc6d61825e56.jsonl": {
			ID: "070146de-1076-4ee1-bf91-fc6d61825e56", Source: "cli", Cwd: "/Users/aviralmansingka/playground/kata-inference-py", GitBranch: "main"},
		"claude/-Users-aviralmansingka-playground-kata-inference-py/b6301b1e-118d-4c94-9de1-fb171cf5c1df.jsonl": {
			ID: "b6301b1e-118d-4c94-9de1-fb171cf5c1df", Source: "cli", Cwd: "/Users/aviralmansingka/playground/kata-inference-py", GitBranch: "main"},
		// Claude Code 1.0.120 and 1.0.123 sessions of kmitch92/dotfiles (macOS),
		// committed with the author's Claude Code home in his stow-managed dotfiles.
		"claude/-Users-kiel-mitchell-dotifles/b8c6985b-f66d-46fe-a814-067997dfd857.jsonl": {
			ID: "b8c6985b-f66d-46fe-a814-067997dfd857", Source: "cli", Cwd: "/Users/kiel.mitchell/dotifles", GitBranch: "main"},
		"claude/-Users-kiel-mitchell/0929b296-be08-4126-8d00-95d553bedcdc.jsonl": {
			ID: "0929b296-be08-4126-8d00-95d553bedcdc", Source: "cli", Cwd: "/Users/kiel.mitchell"},
		// A Claude Code 1.0.120 session of DaniloTito01/zfull, run as root in
		// /root/projeto on a VPS (no git repository), committed with a dump of /root.
		"claude/-root-projeto/14e9eeb1-a80f-44e1-9848-cd62a4450a8d.jsonl": {
			ID: "14e9eeb1-a80f-44e1-9848-cd62a4450a8d", Source: "cli", Cwd: "/root/projeto"},
		// Claude Code 2.1.141 sessions of windtara0619/tpu-inference (Linux on a
		// TPU VM), committed with the author's Claude Code home by an autosync
		// commit of the fork.
		"claude/-home-tarading-tpu-inference/ebfb497e-e1dc-430b-aed4-17b11545d95b.jsonl": {
			ID: "ebfb497e-e1dc-430b-aed4-17b11545d95b", Source: "cli", Cwd: "/home/tarading/tpu-inference", GitBranch: "prefill_fuse"},
		"claude/-home-tarading-tpu-inference/19a2e244-9267-4afb-8908-2e5caa9374ba.jsonl": {
			ID: "19a2e244-9267-4afb-8908-2e5caa9374ba", Source: "cli", Cwd: "/home/tarading/tpu-inference", GitBranch: "prefill_fuse"},
		// A Claude Code 2.1.126 session from the VS Code extension (macOS) of
		// aryan07surana-hub/Oravini, whose git repository is the author's home
		// folder, .claude/ included; its Explore sub-agent file is attached.
		"claude/-Users-aryansurana/8f637c9e-9c46-4282-822e-d894b86950e8.jsonl": {
			ID: "8f637c9e-9c46-4282-822e-d894b86950e8", Source: "vscode", Cwd: "/Users/aryansurana", GitBranch: "main"},
	}
	checkFixtureRoot(t, "testdata/real/heldout", want)
}

// checkFixtureRoot discovers the Codex and Claude Code sessions under root
// (in the agents' own layout) and checks that they are exactly want, each
// read as an interactive, non-sub-agent thread with a preview, times and
// a non-empty extractor input.
func checkFixtureRoot(t *testing.T, root string, want map[string]Meta) {
	t.Helper()
	got := map[string]File{}
	for _, src := range []struct {
		prefix string
		src    Source
	}{
		{"codex/", Source{Kind: KindCodex, Path: root + "/codex/sessions"}},
		{"claude/", Source{Kind: KindClaudeCode, Path: root + "/claude/projects"}},
	} {
		for rel, f := range discoverAll(t, src.src) {
			got[src.prefix+rel] = f
		}
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) != len(want) {
		t.Fatalf("discovered %d sessions, want %d:\n%s", len(keys), len(want), strings.Join(keys, "\n"))
	}
	for rel, w := range want {
		f, ok := got[rel]
		if !ok {
			t.Errorf("%s not discovered", rel)
			continue
		}
		m, probs, err := ReadMeta(f)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if len(probs) != 0 {
			t.Errorf("%s: problems %v", rel, probs)
		}
		if m.ID != w.ID || m.Source != w.Source || m.Cwd != w.Cwd || m.GitBranch != w.GitBranch || !m.Interactive || m.Subagent {
			t.Errorf("%s: got id=%s source=%s cwd=%s branch=%s interactive=%v subagent=%v, want %+v",
				rel, m.ID, m.Source, m.Cwd, m.GitBranch, m.Interactive, m.Subagent, w)
		}
		if m.Preview == "" || m.CreatedAt.IsZero() || m.UpdatedAt.Before(m.CreatedAt) {
			t.Errorf("%s: preview %q, created %v, updated %v", rel, m.Preview, m.CreatedAt, m.UpdatedAt)
		}
		s, err := PrepareInput(f, InputOptions{Version: "v2", TokenLimit: 20000})
		if err != nil {
			t.Errorf("%s: PrepareInput: %v", rel, err)
		} else if len(s) == 0 {
			t.Errorf("%s: empty extractor input", rel)
		}
	}
}
