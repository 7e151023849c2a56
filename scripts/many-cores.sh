#!/usr/bin/env bash
# The many-core table of docs/server.md ("On 16 cores"): serverbench's pool, ticker and shared
# strategies, and the plain goroutine+ticker baseline (cmd/serverbench/plainticker), on the
# machine it runs on, with GOMAXPROCS its number of processors (and once with 2).
#
#   bash scripts/many-cores.sh build   # here: static binaries (CGO_ENABLED=0) in bin/many-cores
#   bash scripts/many-cores.sh run     # there, from the same checkout with bin/many-cores: about 8 minutes
#
# run prints each command and what it printed; serverbench's -runs 3 interleaves its strategies
# and reports medians; plainticker runs three times a row. A short form for a try:
# SECONDS_EACH=1 RUNS=1 bash scripts/many-cores.sh run.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=bin/many-cores

case "${1:-}" in
build)
  mkdir -p "$bin"
  CGO_ENABLED=0 go build -o "$bin/serverbench" ./cmd/serverbench
  CGO_ENABLED=0 go build -o "$bin/plainticker" ./cmd/serverbench/plainticker
  echo "built $bin/serverbench and $bin/plainticker"
  ;;
run)
  s=${SECONDS_EACH:-4}
  runs=${RUNS:-3}
  echo "== $(nproc) processors, $(uname -srm), load $(cut -d' ' -f1-3 /proc/loadavg)"
  sb() {
    echo "== serverbench $*"
    "$bin/serverbench" -hz 20 -seconds "$s" -runs "$runs" "$@"
  }
  plain() {
    for _ in $(seq "$runs"); do
      "$bin/plainticker" -hz 20 -seconds "${s}s" "$@"
    done
  }
  sb -matches 1000,10000 -work 0,50us,200us -strategies pool,ticker
  plain -matches 10000
  plain -matches 1000 -work 200us
  sb -matches 100000 -work 0 -strategies pool,ticker
  plain -matches 100000
  sb -matches 5000 -work 50us -strategies pool,ticker
  sb -matches 1000,10000 -work 0,200us -aligned -strategies pool,ticker
  plain -matches 1000 -work 200us -aligned
  sb -matches 10000 -work 0 -strategies shared,ticker
  echo "== GOMAXPROCS=2"
  GOMAXPROCS=2 "$bin/serverbench" -hz 20 -seconds "$s" -runs "$runs" -matches 1000 -work 50us -strategies pool,ticker
  ;;
*)
  echo "usage: bash scripts/many-cores.sh build | run" >&2
  exit 2
  ;;
esac
