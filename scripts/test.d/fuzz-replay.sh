#!/usr/bin/env bash
# A short fuzz run of the replay decoder: arbitrary bytes must give a *FormatError with an offset
# (never a panic or a huge allocation), and whatever decodes must encode and decode to the same.
# The seed corpus in replay/testdata/fuzz/FuzzDecode runs in every `go test`.
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime "${FUZZTIME:-20s}" ./replay
