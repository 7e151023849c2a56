#!/usr/bin/env bash
# A short fuzz run of the schedule's invariants (conservation of ticks, every deadline grants a
# tick, Alpha in [0,1), the catch-up bound). The seed corpus, with the cases found so far, runs in
# every `go test`. Minimizing a new input is capped: left at its default (60 s an input) it
# stalls a short run on the first few.
set -euo pipefail
go test -run '^$' -fuzz '^FuzzScheduleInvariants$' -fuzztime "${FUZZTIME:-20s}" -fuzzminimizetime 200x .
