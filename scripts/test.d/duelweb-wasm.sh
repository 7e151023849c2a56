#!/usr/bin/env bash
# The duel's web page in the browser's build: cmd/duelweb/page (and the netplay side of the duel it
# shares with cmd/duel) vet and build for js/wasm, as cmd/duelweb builds it at start-up. Its tests
# in Chromium are cmd/duelweb's, which go test -race ./... runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOOS=js GOARCH=wasm
go vet ./cmd/duelweb/page ./internal/duelnet
go build -o /dev/null ./cmd/duelweb/page
echo "cmd/duelweb/page builds and vets for js/wasm"
