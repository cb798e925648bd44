#!/usr/bin/env bash
# The whole test suite: go vet, then every package's tests. The Neo4j tests
# need a server: unless NEO4J_URI is already set, this starts the embedded
# Neo4j of tools/neo4j-launcher (needs Java 17+ and Maven) for the duration of
# the run, and stops it afterwards. Without a JVM the Neo4j tests skip and say
# why; .ci/run makes sure one is there.
set -euo pipefail
cd "$(dirname "$0")/.."

go vet ./...

if [ -z "${NEO4J_URI:-}" ]; then
  if command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; then
    port="${KGJUDGE_NEO4J_PORT:-17687}"
    NEO4J_URI="$(scripts/neo4j.sh start --port "$port")"
    export NEO4J_URI
    trap 'scripts/neo4j.sh stop --port "$port" >/dev/null 2>&1 || true' EXIT
    echo "test.sh: Neo4j at $NEO4J_URI"
  else
    echo "test.sh: no java/mvn on PATH: the Neo4j tests will skip" >&2
  fi
fi

go test -count=1 "$@" ./...
