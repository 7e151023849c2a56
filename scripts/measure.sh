#!/usr/bin/env bash
# Re-runs, at full length and from the repository's root, every command of README.md and docs/
# that printed the figures they quote (the benchmarks, cmd/loopbench, cmd/serverbench, the
# browser test), one after the other, and prints what each printed and how long it took. The
# plots in docs/images/ are redrawn in place; the tables are for you to compare and paste.
# scripts/test.sh runs the same commands, shortened (internal/doccheck).
#
# It takes about 15 minutes on a 2-core machine. Measure on an otherwise idle machine: anything
# else running moves the figures. With arguments, it runs only the commands that contain one of
# them, such as `bash scripts/measure.sh loopbench`.
set -euo pipefail
cd "$(dirname "$0")/.."

list=$(mktemp)
trap 'rm -f "$list"' EXIT
GAMELOOP_DOCS_LIST="$list" go test -count=1 -run '^TestMeasuringCommands$' ./internal/doccheck >/dev/null

start=$SECONDS
n=0
while IFS= read -r cmd; do
  if [ "$#" -gt 0 ]; then
    match=0
    for a in "$@"; do [[ "$cmd" == *"$a"* ]] && match=1; done
    [ "$match" = 1 ] || continue
  fi
  printf '\n== %s\n' "$cmd"
  t=$SECONDS
  bash -c "$cmd" </dev/null
  printf '== %d s\n' "$((SECONDS - t))"
  n=$((n + 1))
done <"$list"
printf '\n%d commands in %d s\n' "$n" "$((SECONDS - start))"
