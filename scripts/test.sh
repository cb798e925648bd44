#!/usr/bin/env bash
# The whole test suite: go vet, then every package's tests. The Neo4j tests
# need a server: unless NEO4J_URI is already set, this starts the embedded
# Neo4j of tools/neo4j-launcher (needs Java 17+ and Maven) for the duration of
# the run, and stops it afterwards. Without a JVM the Neo4j tests skip and say
# why; .ci/run makes sure one is there.
#
# The server is this run's own: a free port (KGJUDGE_NEO4J_PORT=N to choose
# one) and a private state directory, so two runs on one machine (two
# worktrees, CI and a developer) never stop each other's server. Each step
# says what it starts and how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."

t_start=$SECONDS
say() { echo "test.sh: $*" >&2; }
took() { echo "$((SECONDS - $1)) s"; }

t0=$SECONDS
say "go vet ./..."
go vet ./...
say "vet passed in $(took "$t0")"

if [ -z "${NEO4J_URI:-}" ]; then
  if command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; then
    state="$(mktemp -d "${TMPDIR:-/tmp}/kgjudge-neo4j-test.XXXXXX")"
    port="${KGJUDGE_NEO4J_PORT:-auto}"
    cleanup() {
      if [ -n "${NEO4J_URI:-}" ]; then
        KGJUDGE_NEO4J_DIR="$state" scripts/neo4j.sh stop --port "${NEO4J_URI##*:}" >/dev/null 2>&1 || true
      fi
      rm -rf "$state"
    }
    trap cleanup EXIT
    t0=$SECONDS
    say "starting this run's Neo4j (port $port, state in $state; the first run builds the launcher)"
    NEO4J_URI="$(KGJUDGE_NEO4J_DIR="$state" scripts/neo4j.sh start --port "$port")"
    export NEO4J_URI
    say "Neo4j at $NEO4J_URI, up in $(took "$t0")"
  else
    say "no java/mvn on PATH: the Neo4j tests will skip"
  fi
else
  say "using the Neo4j of NEO4J_URI (not started here)"
fi

t0=$SECONDS
say "go test -count=1 ./... (a line per package as it finishes; the cli and Neo4j packages take minutes)"
go test -count=1 "$@" ./...
say "tests passed in $(took "$t0") (whole run $(took "$t_start"))"
