#!/usr/bin/env bash
# Installs the agent CLIs the real-agent suite (e2e/realagents) drives,
# at the versions pinned in e2e/realagents/agents/package-lock.json, into
# .cache/agents/ (ignored by git). A second run with the same lock file
# does nothing. Needs node and npm; the packages come from the npm
# registry through npm's own configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
src=e2e/realagents/agents
dest=.cache/agents
want=$(sha256sum "$src/package-lock.json" | cut -d' ' -f1)
if [ -f "$dest/.installed" ] && [ "$(cat "$dest/.installed")" = "$want" ] &&
   [ -x "$dest/node_modules/.bin/claude" ] && [ -x "$dest/node_modules/.bin/codex" ]; then
  echo "install-agents: already installed ($dest)"
  exit 0
fi
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "install-agents: $tool is not installed" >&2; exit 1; }
done
mkdir -p "$dest"
rm -rf "$dest/node_modules" "$dest/.installed"
cp "$src/package.json" "$src/package-lock.json" "$dest/"
# npm warns that Claude Code's engines field asks for node 22: the package
# ships a native binary, and its postinstall only copies it into place.
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
"$dest/node_modules/.bin/claude" --version
"$dest/node_modules/.bin/codex" --version
echo "$want" > "$dest/.installed"
