#!/usr/bin/env bash
# Peers leaving a netplay game, without the race detector (which the unit tests run them under,
# ten times slower, in a shorter form): 100 seeded games of 3 to 8 peers in which 1 to 3 peers
# are killed or links between them cut, 0 to 2 s apart, over links of random latency, jitter
# and loss; no two peers that still hear each other may end in different games. Then 100 games
# with every fault (stalls, one-way loss, flapping links too). LEAVE_GAMES and FAULT_GAMES set
# how many (docs/netplay.md runs 1,000).
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -count=1 -run '^(TestPeersLeave|TestTwoOfFourLeave|TestCutLinkOfThree|TestPeersFaults)$' ./netplay -leave-games "${LEAVE_GAMES:-100}" -fault-games "${FAULT_GAMES:-100}"
