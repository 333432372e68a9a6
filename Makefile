# Thund: developer loop for SQL data pipelines.
# Everything builds with cgo (DuckDB, pg_query); the Arrow interface of
# DuckDB needs the duckdb_arrow build tag.

GO       ?= go
TAGS     := duckdb_arrow
GOFLAGS  := -tags=$(TAGS)
export CGO_ENABLED := 1

# Fuzz time per target for `make fuzz` (go test -fuzztime syntax).
FUZZTIME ?= 3m
# Benchmark time per benchmark for `make bench`.
BENCHTIME ?= 1x

# Fuzz workers per target (go test -parallel).
FUZZPARALLEL ?= 2

FUZZ_TARGETS := \
	./analysis/pragma:FuzzHeader \
	./analysis/pragma:FuzzValue \
	./analysis/sqlfront:FuzzSplit \
	./analysis/sqlfront:FuzzParse \
	./analysis/project:FuzzSpec \
	./analysis/project:FuzzConfig \
	./analysis:FuzzAnalyseFile \
	./textpos:FuzzRoundTrip

.PHONY: all build test demo bench fuzz lint clean

all: build

build:
	$(GO) build $(GOFLAGS) -o bin/thund-watch ./cmd/thund-watch
	$(GO) build $(GOFLAGS) -o bin/thund-lsp ./cmd/thund-lsp

# The full suite: vet, formatting, and every test with the race detector.
test: lint
	$(GO) test $(GOFLAGS) -race -count=1 ./...

# The main job on the embedded default: run the retail pipeline once on
# embedded DuckDB over its samples, with expectations and previews.
demo: build
	bin/thund-watch --once --limit 5 testdata/retail

# Benchmarks: analysis of generated pipelines (cold and incremental).
bench:
	$(GO) test $(GOFLAGS) -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) -count=1 ./bench/ | tee bench/out.txt

# Each fuzz target for FUZZTIME (seed corpora live in testdata/fuzz).
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test $(GOFLAGS) -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) -parallel=$(FUZZPARALLEL) $$pkg; \
	done

lint:
	@out=$$(gofmt -l .); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(GOFLAGS) ./...

clean:
	rm -rf bin
