#!/usr/bin/env bash
# Runs every Fuzz* target in the module for the given time each (default 20s).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-20s}
found=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    found=$((found + 1))
    echo "== fuzz $pkg $target ($fuzztime)"
    # A short minimisation keeps a failure visible within the time budget
    # (the default 60 s shrink can outlast -fuzztime and hide it).
    go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s
  done
done
echo "fuzzed $found target(s)"
[ "$found" -gt 0 ]
