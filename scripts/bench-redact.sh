#!/usr/bin/env bash
# bench-redact.sh: throughput of memctl's redactor against ripgrep running Codex's four
# patterns, on ~60 MB of generated transcript text (real session lines, code, planted
# fake secrets).
#
#   scripts/bench-redact.sh [size-in-bytes]     (default 60000000)
#
# Needs go, rg and hyperfine (apt-get install -y ripgrep hyperfine). Everything is built
# and written under a temporary directory that is removed on exit.
set -euo pipefail

size=${1:-60000000}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for tool in go rg hyperfine; do
	command -v "$tool" >/dev/null || { echo "bench-redact: $tool not found" >&2; exit 1; }
done

cd "$root"
go build -o "$work/gencorpus" ./internal/redact/internal/gencorpus
go build -o "$work/redactcat" ./internal/redact/internal/redactcat
"$work/gencorpus" -size "$size" -o "$work/corpus.txt" -secrets "$work/secrets.txt"

# Codex's four patterns (codex-memories.md 6.6), one per line for rg -f. rg's default
# Unicode mode matches Codex's semantics; the (?-u) copy is ASCII-only and faster.
cat >"$work/codex.rg" <<'PAT'
(?i:\bBearer)[ \t]+[A-Za-z0-9._~+/-]{16,}=*
sk-[A-Za-z0-9]{20,}
\bAKIA[0-9A-Z]{16}\b
(?i)\b(api[_-]?key|token|secret|password)\b(\s*[:=]\s*)(["']?)[^\s"']{8,}
PAT
sed 's/^/(?-u)/' "$work/codex.rg" >"$work/codex-ascii.rg"

# Sanity: every planted secret must be gone from memctl's output.
"$work/redactcat" <"$work/corpus.txt" >"$work/out.txt"
left=$(grep -cFf "$work/secrets.txt" "$work/out.txt" || true)
echo "corpus: $(wc -c <"$work/corpus.txt") bytes, $(wc -l <"$work/secrets.txt") planted secrets, $left lines with a surviving secret"

hyperfine --warmup 1 --runs "${RUNS:-5}" --output=pipe --export-json "$work/result.json" \
	-n 'memctl redact (full rule set)' "$work/redactcat < $work/corpus.txt" \
	-n 'rg, Codex four (Unicode)' "rg --passthru -r '[REDACTED_SECRET]' -f $work/codex.rg $work/corpus.txt" \
	-n 'rg, Codex four (ASCII)' "rg --passthru -r '[REDACTED_SECRET]' -f $work/codex-ascii.rg $work/corpus.txt"
# Medians and ratios (hyperfine's summary uses means).
python3 - "$work/result.json" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
base = res[0]["median"]
print("| command | median [ms] | median / memctl |")
print("|---|---:|---:|")
for r in res:
    print(f"| {r['command']} | {r['median']*1000:.0f} | {r['median']/base:.2f} |")
PY
