#!/usr/bin/env bash
# Installs the pinned lint and vulnerability tools into .cache/tools and
# builds an offline Go vulnerability database in .cache/vulndb, using only
# the Go module proxy (vuln.go.dev is not needed). A second run reuses what
# is there. .ci/run calls this; so can you:
#
#   bash scripts/install-tools.sh
#   .cache/tools/bin/golangci-lint run ./...
#   .cache/tools/bin/govulncheck -db file://$PWD/.cache/vulndb ./...
#   .cache/tools/bin/deadcode -test ./...
#
# To move a pin, change the version below and rerun; the tool is rebuilt
# because its stamp no longer matches.
set -euo pipefail
cd "$(dirname "$0")/.."

GOLANGCI_LINT_VERSION=v2.15.0
GOVULNCHECK_VERSION=v1.9.0
# deadcode lives in golang.org/x/tools, which go.mod already requires.
DEADCODE_VERSION=v0.52.0
# golang.org/x/vulndb has no releases; its pseudo-versions are snapshots of
# the advisory data. Move this forward to pick up newer advisories.
VULNDB_VERSION=v0.0.0-20261105234957-e22db6528018

root="$PWD/.cache"
bin="$root/tools/bin"
mkdir -p "$bin"

# install <binary> <package>@<version>: go install into $bin unless the
# stamp says that version is already there.
install() {
  local name=$1 pkg=$2
  local stamp="$bin/.$name.version"
  if [[ -x $bin/$name && -f $stamp && $(cat "$stamp") == "$pkg" ]]; then
    return
  fi
  echo "install-tools: go install $pkg" >&2
  GOBIN="$bin" go install "$pkg"
  echo "$pkg" >"$stamp"
}

install golangci-lint "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$GOLANGCI_LINT_VERSION"
install govulncheck "golang.org/x/vuln/cmd/govulncheck@$GOVULNCHECK_VERSION"
install deadcode "golang.org/x/tools/cmd/deadcode@$DEADCODE_VERSION"
install indexdb "golang.org/x/vulndb/cmd/indexdb@$VULNDB_VERSION"

# The database: the module's data/osv folder holds one OSV file per
# advisory; indexdb writes the v1 layout (index/db.json, index/modules.json,
# ID/<id>.json) that govulncheck -db file://… reads.
db="$root/vulndb"
if [[ ! -f $db/.version || $(cat "$db/.version") != "$VULNDB_VERSION" ]]; then
  echo "install-tools: building the vulnerability database from golang.org/x/vulndb@$VULNDB_VERSION" >&2
  dir=$(go mod download -json "golang.org/x/vulndb@$VULNDB_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  if [[ -z $dir || ! -d $dir/data/osv ]]; then
    echo "install-tools: golang.org/x/vulndb@$VULNDB_VERSION has no data/osv" >&2
    exit 1
  fi
  rm -rf "$db.tmp"
  "$bin/indexdb" -vulns "$dir/data/osv" -out "$db.tmp"
  echo "$VULNDB_VERSION" >"$db.tmp/.version"
  rm -rf "$db"
  mv "$db.tmp" "$db"
fi
