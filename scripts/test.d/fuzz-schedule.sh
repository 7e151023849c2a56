#!/usr/bin/env bash
# A short fuzz run of the schedule's invariants (conservation of ticks, every deadline grants a
# tick, Alpha in [0,1), the catch-up bound, every dropped tick owed to MaxFrameTime or
# MaxTicksPerFrame, across time scale changes and pauses). The seed corpus, with the cases found so far, runs in
# every `go test`. Minimizing a new input is capped: left at its default (60 s an input) it
# stalls a short run on the first few. The run is counted in inputs, not in time: with a
# -fuzztime in seconds, Go 1.26's fuzzing coordinator can report the end of the time as a
# failure, "context deadline exceeded", with no failing input (golang/go#75804, fixed in Go
# 1.27). About 20 s on a 2-core machine (FUZZTIME=400000x runs twice as many inputs).
set -euo pipefail
go test -run '^$' -fuzz '^FuzzScheduleInvariants$' -fuzztime "${FUZZTIME:-200000x}" -fuzzminimizetime 200x .
