GO ?= go

.PHONY: all build test test-cuda bench lint fuzz demo

all: lint test

build:
	$(GO) build -o bin/l2o ./cmd/l2o

# The test command CI runs (README).
test:
	$(GO) test -count=1 ./...

# CPU-against-CUDA agreement tests: run on a machine with a GPU.
test-cuda:
	$(GO) test -count=1 -tags l2ocuda ./gpu/...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 10x ./kernels ./graph ./models ./greedy ./wcrr ./tomo

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt wants to change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzReadPGM -fuzztime 30s ./data
	$(GO) test -run '^$$' -fuzz FuzzReadSTL10 -fuzztime 30s -fuzzminimizetime 0 ./data

demo: build
	./bin/l2o demo
