#!/usr/bin/env bash
# A short fuzz run of the netplay wire protocol. FuzzDecode: arbitrary bytes must give an *Error
# wrapping ErrMalformed or ErrVersion (never a panic or an allocation), and whatever decodes must
# encode back byte for byte. FuzzInputs: compressed inputs must decompress to themselves within
# the size bound, and pack into a packet that unpacks to them. The seed corpora
# (netplay/internal/wire/testdata/fuzz) run in every `go test`.
# The runs are counted in inputs, not in time: with a -fuzztime in seconds, Go 1.26's fuzzing
# coordinator can report the end of the time as a failure, "context deadline exceeded", with no
# failing input (golang/go#75804, fixed in Go 1.27).
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime "${FUZZTIME:-120000x}" -fuzzminimizetime 200x ./netplay/internal/wire
go test -run '^$' -fuzz '^FuzzInputs$' -fuzztime "${FUZZTIME_INPUTS:-30000x}" -fuzzminimizetime 200x ./netplay/internal/wire
