#!/usr/bin/env bash
# A short fuzz run of the replay package. FuzzDecode: arbitrary bytes must give a *FormatError
# with an offset (never a panic or an allocation sized by a length field), and whatever decodes
# must encode and decode to the same, and a streamed replay (Play) must see what a decoded one
# does, inputs after the last tick included. FuzzRecord: whatever a Recorder is fed must decode back
# exactly, and FuzzRecordPlayers the same of player inputs. The seed corpora (replay/testdata/fuzz)
# run in every `go test`.
# The runs are counted in inputs, not in time: with a -fuzztime in seconds, Go 1.26's fuzzing
# coordinator can report the end of the time as a failure, "context deadline exceeded", with no
# failing input (golang/go#75804, fixed in Go 1.27); -fuzzminimizetime 200x keeps a minimisation
# from stalling a short run. About 20 s, 10 s and 2 s on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime "${FUZZTIME:-600000x}" -fuzzminimizetime 200x ./replay
go test -run '^$' -fuzz '^FuzzRecord$' -fuzztime "${FUZZTIME_RECORD:-50000x}" -fuzzminimizetime 200x ./replay
go test -run '^$' -fuzz '^FuzzRecordPlayers$' -fuzztime "${FUZZTIME_PLAYERS:-20000x}" -fuzzminimizetime 200x ./replay
