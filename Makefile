# Thund: developer loop for SQL data pipelines.
# Everything builds with cgo (DuckDB, pg_query); the Arrow interface of
# DuckDB needs the duckdb_arrow build tag.

GO       ?= go
TAGS     := duckdb_arrow
GOFLAGS  := -tags=$(TAGS)
export CGO_ENABLED := 1

# Fuzz time per target for `make fuzz` (go test -fuzztime syntax).
FUZZTIME ?= 3m
# Iterations per benchmark for `make bench` (medians need several).
BENCHTIME ?= 10x

# Time limit per Go test binary in `make test` (go test -timeout syntax).
TEST_TIMEOUT ?= 25m

# Fuzz workers per target (go test -parallel).
FUZZPARALLEL ?= 2

FUZZ_TARGETS := \
	./analysis/pragma:FuzzHeader \
	./analysis/pragma:FuzzValue \
	./analysis/sqlfront:FuzzSplit \
	./analysis/sqlfront:FuzzParse \
	./engine:FuzzSmuggle \
	./analysis/sparksql/lex:FuzzLex \
	./analysis/sparksql/parser:FuzzParse \
	./analysis/sparksql/parser:FuzzRoundTrip \
	./analysis/project:FuzzSpec \
	./analysis/project:FuzzConfig \
	./analysis:FuzzAnalyseFile \
	./textpos:FuzzRoundTrip \
	./lsp:FuzzStream \
	./lsp:FuzzSession

.PHONY: all build test test-go demo bench fuzz lint clean vscode-deps vsix test-vscode-unit test-vscode screenshots

all: build

build:
	$(GO) build $(GOFLAGS) -o bin/thund-watch ./cmd/thund-watch
	$(GO) build $(GOFLAGS) -o bin/thund-lsp ./cmd/thund-lsp

# The full suite: vet, formatting, every Go test with the race detector,
# then the VS Code extension's unit tests and its end-to-end test in
# code-server.
test: test-go test-vscode

# Go tests that need Spark start a server through scripts/spark.sh (the
# oldest supported, 4.1.4); one started by this run is stopped at its end.
# Its pyspark and jars are installed first (into ~/.cache/thund/spark), so
# that a fresh machine's download is not counted in a test's time limit.
# The limit per test binary is TEST_TIMEOUT: the race detector on two
# shared cores makes the engine's and thund-watch's suites take minutes.
# Then the Spark suites run again on the newest, 4.3.0 (test-spark-newest).
test-go: lint
	@scripts/spark.sh install 4.1.4 >/dev/null || exit 1; \
	running=0; scripts/spark.sh status 4.1.4 >/dev/null 2>&1 && running=1; \
	$(GO) test $(GOFLAGS) -race -count=1 -timeout $(TEST_TIMEOUT) ./...; rc=$$?; \
	if [ $$running = 0 ]; then scripts/spark.sh stop 4.1.4 >/dev/null 2>&1 || true; fi; \
	[ $$rc = 0 ] || exit $$rc; \
	$(MAKE) --no-print-directory test-spark-newest

# The Spark-version-dependent suites (sdplower's Spark tests, parity) on
# Spark 4.3.0, one JVM at a time: a 4.3.0 server is started here unless one
# runs (and then stopped); while a server of another version this script
# started runs, the run is skipped, saying so.
SPARK_NEWEST := 4.3.0
test-spark-newest:
	@if ! scripts/spark.sh status $(SPARK_NEWEST) >/dev/null 2>&1 && scripts/spark.sh status >/dev/null 2>&1; then \
		echo "test-spark-newest: skipped, another Spark version's server runs (one JVM at a time): $$(scripts/spark.sh status | grep running)"; exit 0; fi; \
	started=0; \
	if ! scripts/spark.sh status $(SPARK_NEWEST) >/dev/null 2>&1; then scripts/spark.sh start $(SPARK_NEWEST) || exit 1; started=1; fi; \
	THUND_SPARK_VERSION=$(SPARK_NEWEST) $(GO) test $(GOFLAGS) -count=1 -run 'Spark|Parity' ./sdplower/ ./parity/; rc=$$?; \
	if [ $$started = 1 ]; then scripts/spark.sh stop $(SPARK_NEWEST); fi; exit $$rc

# The main job on the embedded default: run the retail pipeline once on
# embedded DuckDB over its samples, with expectations and previews.
demo: build
	bin/thund-watch --once --limit 5 testdata/retail

# Benchmarks (benchstat reads the output): analysis cold and incremental,
# the engine (preview overhead, streaming, CDC), the LSP through the
# protocol, watch mode; then bench/compare measures Thund side by side with
# dbt (installed by scripts/bench-dbt.sh) and spark-pipelines on the same
# Spark Connect server, and writes docs/benchmarks.md with the tables and
# the machine. BENCH_SIZE=quick gives small sizes for iterating; BENCH_RUNS
# is the runs per side. Not part of `make test`.
BENCH_SIZE ?= full
BENCH_RUNS ?= 5
bench: build
	$(GO) test $(GOFLAGS) -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) -count=1 ./bench/ ./watch/ | tee bench/out.txt
	$(GO) test $(GOFLAGS) -run='^$$' -bench='^BenchmarkRunAgainstDuckDB$$' -benchtime=3x -count=1 ./engine/ | tee -a bench/out.txt
	$(GO) build $(GOFLAGS) -o bin/thund-bench ./bench/compare
	bin/thund-bench -size $(BENCH_SIZE) -runs $(BENCH_RUNS) -go-out bench/out.txt -doc docs/benchmarks.md

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

# The VS Code extension (editors/vscode). Heavy downloads for its
# end-to-end test (Node 24, code-server) are cached under THUND_CACHE.
VSCODE      := editors/vscode
THUND_CACHE ?= $(HOME)/.cache/thund

# npm ci only when the lock file is newer than the last install.
vscode-deps:
	cd $(VSCODE) && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error; }

# An installable .vsix with thund-lsp inside: editors/vscode/thund.vsix.
vsix: build vscode-deps
	rm -rf $(VSCODE)/bin && mkdir -p $(VSCODE)/bin && cp bin/thund-lsp $(VSCODE)/bin/
	cd $(VSCODE) && npm run --silent package

test-vscode-unit: vscode-deps
	cd $(VSCODE) && npm test

# Unit tests, then the .vsix installed into code-server and driven in
# Debian's Chromium; screenshots go to editors/vscode/e2e/out/img/.
test-vscode: test-vscode-unit vsix
	THUND_CACHE=$(THUND_CACHE) bash $(VSCODE)/e2e/setup.sh
	THUND_CACHE=$(THUND_CACHE) node $(VSCODE)/e2e/run.mjs

# The same end-to-end run, writing its screenshots over docs/img/ (the
# README's); commit them when the UI changed.
screenshots: vsix
	THUND_CACHE=$(THUND_CACHE) bash $(VSCODE)/e2e/setup.sh
	THUND_CACHE=$(THUND_CACHE) THUND_SCREENSHOTS=docs/img node $(VSCODE)/e2e/run.mjs

clean:
	rm -rf bin $(VSCODE)/bin $(VSCODE)/dist $(VSCODE)/thund.vsix

# --- Spark Connect (issue 6) ---------------------------------------------
# A real Spark Connect 4.1 server from the pinned pyspark on PyPI, in a venv
# under ~/.cache/thund/spark (scripts/spark.sh), on 127.0.0.1:15002.
.PHONY: spark-install spark-start spark-stop spark-status test-spark test-spark-newest proto proto-check

spark-install:
	scripts/spark.sh install

spark-start:
	scripts/spark.sh start

spark-stop:
	scripts/spark.sh stop

spark-status:
	scripts/spark.sh status

# The Spark suite against a real server: started here when none runs, and
# then stopped again (a server you started yourself is left running).
# Plain `go test` starts one too (sparktest.Main) and leaves it running;
# THUND_SKIP_SPARK=1 skips the tests that need it.
test-spark:
	@started=0; \
	if ! scripts/spark.sh status >/dev/null 2>&1; then scripts/spark.sh start || exit 1; started=1; fi; \
	$(GO) test $(GOFLAGS) -count=1 ./sparkconnect/... ./sdplower/... ./parity/...; rc=$$?; \
	if [ $$started = 1 ]; then scripts/spark.sh stop; fi; exit $$rc

# Regenerate sparkconnect/pb from proto/ with pinned protoc (grpcio-tools
# wheel), protoc-gen-go and protoc-gen-go-grpc, all installed under
# ~/.cache/thund/protoc.
proto:
	GO=$(GO) scripts/proto.sh

# proto, then compare every field of proto/ with the descriptors pyspark
# ships (field numbers, names, types, oneofs).
proto-check:
	GO=$(GO) scripts/proto.sh check

# --- thund-lsp end to end (issue 4) --------------------------------------
# Two real LSP clients against bin/thund-lsp: headless Neovim (Debian's
# package, installed when missing) and the client library VS Code uses,
# from npm (editors/lsp-client-test); and the scale tests (a 10 MB file, a
# 10,000-file pipeline), run without the race detector, which slows the
# parser so much that they would measure it.
.PHONY: lsp-bin test-nvim test-lsp-client test-lsp-scale
test: test-nvim test-lsp-client test-lsp-scale

lsp-bin:
	$(GO) build $(GOFLAGS) -o bin/thund-lsp ./cmd/thund-lsp

test-nvim: lsp-bin
	editors/nvim/test.sh

test-lsp-client: lsp-bin
	cd editors/lsp-client-test && npm ci --prefer-offline --no-audit --no-fund --loglevel=error && npm test

test-lsp-scale:
	$(GO) test $(GOFLAGS) -count=1 -run '^TestLarge' ./lsp/

# --- Reliability soak (issue 9) ------------------------------------------
# The long versions of the fault suites; `make test` runs the short ones.
# THUND_SOAK=1 scales them up. docs/reliability.md records what each tries
# and what survived. `soak:` has no recipe, so other suites add their own
# prerequisites with a `soak: soak-xxx` line of their own.
.PHONY: soak soak-watch soak-crash soak-spark
soak: soak-watch soak-crash soak-spark

# Watch mode: 10,000 saves in a burst, 10 folder delete/recreate cycles,
# a 100 MB sample, 20 rewrites of it under read.
soak-watch:
	THUND_SOAK=1 $(GO) test $(GOFLAGS) -count=1 -timeout 30m -v -run '^TestWatchFaults$$' ./watch/

# --state crash consistency: 100 SIGKILLed thund-watch --once runs, then the
# engine's own commit-step kills (TestPersistCrash) three times over.
soak-crash:
	THUND_SOAK=1 $(GO) test $(GOFLAGS) -count=1 -timeout 30m -v -run '^TestStateCrashCLI$$' ./cmd/thund-watch/
	$(GO) test $(GOFLAGS) -count=3 -timeout 30m -v -run '^TestPersistCrash$$' ./engine/

# Spark faults: a second, private Spark Connect server killed mid-query
# (the shared one on 15002 is never touched), plus the fake-server suites.
soak-spark:
	THUND_SOAK=1 $(GO) test $(GOFLAGS) -count=1 -timeout 30m -v -run '^(TestSparkKilledMidQuery|TestFake.*)$$' ./sparkconnect/
	THUND_SOAK=1 $(GO) test $(GOFLAGS) -count=1 -timeout 30m -v -run '^TestPushFakeGarbage$$' ./sdplower/

# LSP: an edit storm (10,000 random didChange over 50 files in ~10 s, with
# hovers and completions; latency table printed) and a cancellation storm
# (400 previews and runs cancelled at random moments, goleak checked).
.PHONY: soak-lsp
soak: soak-lsp
soak-lsp:
	THUND_SOAK=1 $(GO) test $(GOFLAGS) -count=1 -timeout 30m -v -run '^(TestEditStorm|TestCancelStorm)$$' ./lsp/

# --- Conformance with Spark's SQL test corpus (issue 15) ------------------
# Downloads spark-sql's test jar from Maven Central once (SHA-1 checked,
# extracted under $(THUND_CACHE)/spark-sql-tests/), judges every query of
# its golden files with Thund's Spark SQL parser, runs every
# self-contained query natively (translated, on DuckDB) against Spark's
# recorded rows (issue 16), and writes docs/conformance.md, the known
# parse disagreements TestSample holds the parser to and the known
# defects TestResultsSample holds the native run to. `make test` runs a
# sample: every 10th query's parse, every 10th golden file's results.
.PHONY: conformance
conformance:
	THUND_CACHE=$(THUND_CACHE) $(GO) run $(GOFLAGS) ./analysis/sparksql/conformance/cmd/thund-conformance
