#!/usr/bin/env bash
# Runs every test of the project: formatting, vet, staticcheck, the race-detected unit tests
# (windows under Xvfb, the terminal demo in tmux) and the extra steps in scripts/test.d/.
#
# On a fresh Debian or Ubuntu machine, run as root, it first installs the system packages the
# tests need (listed in scripts/packages/*.txt). Go modules come through the module proxy.
set -euo pipefail
cd "$(dirname "$0")/.."

# step announces a step, and how long the one before it took.
step_name="" step_start=$SECONDS suite_start=$SECONDS
step() {
  if [ -n "$step_name" ]; then printf '== %s: %d s\n' "$step_name" "$((SECONDS - step_start))"; fi
  step_name="$*" step_start=$SECONDS
  printf '\n== %s\n' "$*"
}

# 1. System packages.
mapfile -t pkgs < <(cat scripts/packages/*.txt 2>/dev/null | sed 's/#.*//' | tr -s ' \t' '\n' | sed '/^$/d' | sort -u)
if [ "${#pkgs[@]}" -gt 0 ]; then
  missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      step "installing ${missing[*]}"
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
      echo "missing system packages (run as root on Debian to install them): ${missing[*]}" >&2
    fi
  fi
fi

# The tests that need a display or a terminal fail rather than skip when this is set.
export GAMELOOP_REQUIRE_ALL=1

# 2. Static checks.
step "gofmt"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
step "go vet"
go vet ./...
step "staticcheck"
go run honnef.co/go/tools/cmd/staticcheck@v0.7.0 ./...

# 3. The unit tests, with the race detector, under a virtual X server when there is one.
# internal/doccheck runs every command of the documentation as pasted, the benchmarks that made
# its tables in a short form (scripts/measure.sh runs them at full length). -parallel 4: the
# end-to-end tests marked parallel (games between processes, browsers) wait on real time far
# more than they compute, and every test must pass on a loaded machine.
step "go test -race"
if command -v xvfb-run >/dev/null; then
  xvfb-run -a -s "-screen 0 1280x1024x24" go test -race -count=1 -parallel 4 -timeout 20m ./...
else
  go test -race -count=1 -parallel 4 -timeout 20m ./...
fi

# 4. Extra steps (fuzzing, end-to-end runs), one script each.
for f in scripts/test.d/*.sh; do
  [ -e "$f" ] || continue
  step "$f"
  bash "$f"
done
step "all tests passed"
printf '== in %d s\n' "$((SECONDS - suite_start))"
