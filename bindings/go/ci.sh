#!/usr/bin/env bash
# The Go binding's CI: fetch pinned modules (go.mod/go.sum), check formatting, vet, run every
# test (all conformance vectors included), and build the conformance runner to bin/conformance.
# Works from a clean clone and from any working directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

go mod download
go mod verify
unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
    echo "gofmt: these files need formatting:" >&2
    echo "$unformatted" >&2
    exit 1
fi
go vet ./...
go test -count=1 ./...
go build -o bin/conformance ./cmd/conformance
echo "go binding: ok (runner at bindings/go/bin/conformance)"
