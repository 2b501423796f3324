#!/usr/bin/env bash
# The full test suite (`make test`) N times in a row (default 20) while a CPU hog keeps
# every core busy: a test whose outcome depends on timing or load fails here.
#   bash benchmarks/stress_tests.sh [N]      or      make stress [N=20]
# Stops at the first failure (its log is printed) and reports the total time. Each run's
# output is kept in _build/stress/run-<k>.log.
set -uo pipefail
cd "$(dirname "$0")/.."
n="${1:-20}"
case "$n" in (''|*[!0-9]*|0) echo "stress: N must be a positive integer (got '$n')" >&2; exit 2;; esac
logs=_build/stress
mkdir -p "$logs"
hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null; done
  hogs=()
}
trap stop_hogs EXIT
trap 'stop_hogs; exit 130' INT
trap 'stop_hogs; exit 143' TERM
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
for _ in $(seq "$cores"); do
  ( while :; do :; done ) &
  hogs+=("$!")
done
echo "stress: make test x $n with $cores busy-loop process(es) occupying the cores; logs in $logs/"
start=$SECONDS
for k in $(seq "$n"); do
  t0=$SECONDS
  if make test >"$logs/run-$k.log" 2>&1; then
    echo "stress: run $k/$n passed in $((SECONDS - t0)) s ($(tail -n 1 "$logs/run-$k.log" | tr -d '='))"
  else
    echo "stress: run $k/$n FAILED after $((SECONDS - t0)) s; total $((SECONDS - start)) s. Its log ends:"
    tail -n 60 "$logs/run-$k.log"
    exit 1
  fi
done
echo "stress: all $n runs passed under load; total $((SECONDS - start)) s"
