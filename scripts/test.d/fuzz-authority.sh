#!/usr/bin/env bash
# A short fuzz run of the relay's authority over a match (netplay/internal/authority): random
# inputs, stalls, drops and keep-alives against a model of its rules (each confirmed tick holds
# every player's first input sent in time, else its last input again, else the zero input once
# it is dropped; confirmed ticks never change). Counted in inputs, not time (see fuzz-wire.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -run '^$' -fuzz '^FuzzMatch$' -fuzztime "${FUZZTIME:-60000x}" -fuzzminimizetime 200x ./netplay/internal/authority
