#!/usr/bin/env bash
# A game that imports only the core package must build without cgo: the GLFW backend (cgo) must
# never be pulled in by the core. This builds the core and a cgo-free demo with CGO_ENABLED=0
# and checks that no go-gl package is among the core's dependencies.
set -euo pipefail
cd "$(dirname "$0")/../.."

CGO_ENABLED=0 go build . ./cmd/events
# With and without cgo: build tags could pull in different files.
deps=$(CGO_ENABLED=0 go list -deps . && CGO_ENABLED=1 go list -deps .)
if grep -E '^github.com/go-gl/|/backend/' <<<"$deps"; then
  echo "the core package depends on the packages above: it must build without cgo and without a backend" >&2
  exit 1
fi
echo "the core builds with CGO_ENABLED=0 and depends on no backend"
