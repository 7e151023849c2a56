#!/usr/bin/env bash
# A short fuzz run of matchserver's line parser. FuzzParseLine: every line must parse to a command
# whose encoding parses back the same, or give an error the server can send as it is: one line
# of printable ASCII, bounded, in the server's own words, repeating at most 16 bytes of the
# client's text and nothing of Go's. The seeds run in every `go test`.
# Counted in inputs, not in time (see fuzz-replay.sh: Go 1.26's -fuzztime in seconds can end in a
# spurious failure); -fuzzminimizetime 200x keeps a minimisation from stalling a short run.
# About 15 s on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -run '^$' -fuzz '^FuzzParseLine$' -fuzztime "${FUZZTIME:-100000x}" -fuzzminimizetime 200x ./cmd/matchserver
