#!/usr/bin/env bash
# A short fuzz run of the schedule's invariants (conservation of ticks, Alpha in [0,1), the
# catch-up bound). The seed corpus, with the cases found so far, runs in every `go test`.
set -euo pipefail
go test -run '^$' -fuzz '^FuzzScheduleInvariants$' -fuzztime "${FUZZTIME:-20s}" .
