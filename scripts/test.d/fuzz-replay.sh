#!/usr/bin/env bash
# A short fuzz run of the replay package. FuzzDecode: arbitrary bytes must give a *FormatError
# with an offset (never a panic or an allocation sized by a length field), and whatever decodes
# must encode and decode to the same. FuzzRecord: whatever a Recorder is fed must decode back
# exactly. The seed corpora (replay/testdata/fuzz) run in every `go test`.
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime "${FUZZTIME:-20s}" ./replay
go test -run '^$' -fuzz '^FuzzRecord$' -fuzztime "${FUZZTIME_RECORD:-10s}" ./replay
