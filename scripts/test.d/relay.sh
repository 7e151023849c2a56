#!/usr/bin/env bash
# Relayed netplay without the race detector (which the unit tests run them under, ten times
# slower, in a shorter form): 100 seeded games of 2 to 8 players through a relay, with players
# killed, leaving, stalled and links cut, one-way cut or flapping (RELAY_FAULT_GAMES sets how
# many; docs/relay.md runs 1,000), and 1,000 spectators of one match.
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -count=1 -run '^(TestRelayFaults|TestRelaySpectators)$' ./netplay/relay -fault-games "${RELAY_FAULT_GAMES:-100}"
