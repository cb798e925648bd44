# kgjudge — see README.md. Every target works on a fresh clone.
GO       ?= go
BIN      ?= bin/kgjudge
FUZZTIME ?= 20s
BENCHTIME ?= 1x

.PHONY: build test unit race bench bench-scale demo fuzz vet lint clean

build:
	$(GO) build -o $(BIN) ./cmd/kgjudge

# The whole test suite: vet, then every package's tests. Neo4j tests need a
# running server: scripts/test.sh starts one (embedded, via the JVM) for the
# duration of the run when none is configured.
test:
	scripts/test.sh

# Unit tests only, no server started (the Neo4j tests skip).
unit: vet
	KGJUDGE_NEO4J_TESTS=skip $(GO) test ./...

# The race detector over every package (Neo4j tests skip: the server is
# exercised by make test). The cli package alone takes ~7 minutes under the
# race detector on two cores, close to go test's default 10-minute limit.
race:
	KGJUDGE_NEO4J_TESTS=skip $(GO) test -race -count=1 -timeout 25m ./...

vet:
	$(GO) vet ./...

# gofmt, vet and staticcheck (installed into GOBIN on first use).
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck
lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@[ -x $(STATICCHECK) ] || GOFLAGS= $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2
	$(STATICCHECK) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

# The scale benchmark (not CI; minutes per size): a generated benchmark shaped
# like the fixtures (internal/benchgen), 4x = 200 tasks x 4 samples x 3 runs,
# scored offline and ranked. Each size runs in its own process so that its
# peak RSS is its own; BENCHCOUNT=3 for medians.
SCALE ?= 1x 2x 4x
BENCHCOUNT ?= 1
bench-scale:
	$(GO) test -c -o bin/benchgen.test ./internal/benchgen
	@for s in $(SCALE); do echo "== $$s (load: $$(cat /proc/loadavg))"; \
	  KGJUDGE_BENCH_SCALE=$$s bin/benchgen.test -test.run '^$$' -test.bench Scale -test.benchtime 1x -test.count $(BENCHCOUNT) || exit 1; done

# Scores the bundled examples with the embedded defaults: no API key, no server.
demo: build
	$(BIN) score --gt examples/gt --pred examples/pred --run demo --store .kgjudge --out kgjudge-out

# Runs every fuzz target for FUZZTIME each (go test allows one target per run).
fuzz:
	scripts/fuzz.sh $(FUZZTIME)

clean:
	rm -rf bin .kgjudge kgjudge-out
