#!/usr/bin/env bash
# The browser's side: backend/web and the browser demo build for js/wasm, and the tests of the
# simulation, the demo's game and the browser driver pass as WebAssembly under Node.js, with the
# same checksums as on this machine (internal/bounce's TestChecksumIsPortable).
set -euo pipefail
cd "$(dirname "$0")/../.."

export GOOS=js GOARCH=wasm
go vet ./backend/web/... ./cmd/bounceweb/wasm/...
go build -o /dev/null ./cmd/bounceweb/wasm
if ! command -v node >/dev/null; then
  if [ "${GAMELOOP_REQUIRE_ALL:-}" = 1 ]; then
    echo "node is not installed (scripts/packages/web.txt lists nodejs), and GAMELOOP_REQUIRE_ALL=1" >&2
    exit 1
  fi
  echo "node is not installed: skipping the WebAssembly tests"
  exit 0
fi
PATH="$(go env GOROOT)/lib/wasm:$PATH" go test -count=1 ./internal/bounce ./internal/bouncegame ./backend/web
echo "the simulation, the game and the browser driver pass as WebAssembly"
