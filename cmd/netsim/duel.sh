#!/usr/bin/env bash
# Two headless duel players, each a seeded bot, with netsim between them: the way to put netsim
# between two instances of a game, run unattended. Prints each player's checksum of the last
# tick (the same when the game stayed in sync) and what netsim did each way.
#
#   bash cmd/netsim/duel.sh [preset] [ticks]     # from the repository's root; poor, 300 by default
set -euo pipefail
preset=${1:-poor}
ticks=${2:-300}
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
go build -o "$dir" ./cmd/duel ./cmd/netsim

# wait_for PATTERN FILE prints the first word after PATTERN in FILE once it is there.
wait_for() {
	for _ in $(seq 300); do
		if grep -q "$1" "$2"; then
			grep -o "$1 [^ ]*" "$2" | head -1 | awk '{print $NF}'
			return
		fi
		sleep 0.1
	done
	echo "duel.sh: no '$1' in $2 after 30 s:" >&2
	cat "$2" >&2
	exit 1
}

# Player 1 listens; netsim listens in front of it; player 2 connects to netsim.
"$dir/duel" -listen 127.0.0.1:0 -headless -ticks "$ticks" -bot 1 >"$dir/p1.out" 2>"$dir/p1.err" &
p1=$!
game=$(wait_for 'waiting for the other player on' "$dir/p1.err")
"$dir/netsim" -listen 127.0.0.1:0 -to "$game" -preset "$preset" >"$dir/netsim.out" 2>&1 &
netsim=$!
proxy=$(wait_for 'forwarding' "$dir/netsim.out")
"$dir/duel" -connect "$proxy" -headless -ticks "$ticks" -bot 2 >"$dir/p2.out" 2>"$dir/p2.err" &
p2=$!

status=0
wait "$p1" || status=$?
wait "$p2" || status=$?
kill -TERM "$netsim"
wait "$netsim" || true
echo "player 1: $(cat "$dir/p1.out")"
echo "player 2: $(cat "$dir/p2.out")"
cat "$dir/netsim.out"
if [ "$status" -ne 0 ]; then
	cat "$dir/p1.err" "$dir/p2.err" >&2
fi
exit "$status"
