#!/usr/bin/env bash
# duel's window (-gui) is in the build with -tags ebiten only, which go vet ./... and staticcheck
# in scripts/test.sh do not see: check it here. (cmd/duel/window_test.go builds it and plays it.)
set -euo pipefail
cd "$(dirname "$0")/../.."

go vet -tags ebiten ./cmd/duel
go run honnef.co/go/tools/cmd/staticcheck@v0.7.0 -tags ebiten ./cmd/duel
echo "duel's window build passes go vet and staticcheck"
