#!/bin/bash
# The paper book from a fresh clone, as a new user builds it: clone the project, time
# `make env` (the virtual environment and pip install) and then `make book` (paper preset,
# JOBS default, the notebooks and the HTML) separately, and write one log.
#   bash benchmarks/book_fresh.sh LOG [SOURCE]      (SOURCE: a path or URL to clone, default .)
# `benchmarks/run.py --only book --book-log LOG` reads the log: the per-notebook times, the
# wall time of `make book` and the set-up time. Meaningful on an idle machine only.
# The kernel and value cache starts empty, as a new user's does (every numba kernel compiled,
# every exact value solved); WARM=1 uses the caller's cache ($QTHEORY_CACHE_DIR or
# ~/.cache/qtheory), as a rebuild after an edit of the notebooks, not of the package, would.
set -u
LOG=${1:-/tmp/book_fresh.log}
SRC=${2:-.}
d=$(mktemp -d /tmp/qtheory-fresh.XXXX)
git clone -q "$SRC" "$d" || exit 1
cd "$d" || exit 1
if [ -z "${WARM:-}" ]; then
  export QTHEORY_CACHE_DIR="$d/.qtheory-cache"
  cache="kernel and value cache: empty"
else
  cache="kernel and value cache: warm (${QTHEORY_CACHE_DIR:-~/.cache/qtheory})"
fi
start=$(date +%s%N)
make env > "$LOG.env" 2>&1 || { echo "make env failed: see $LOG.env"; exit 1; }
ms=$(( ($(date +%s%N) - start) / 1000000 ))
setup=$(printf "%d.%03d" $((ms / 1000)) $((ms % 1000)))
{ time /usr/bin/time -f "processor user %U s, system %S s, wall %e s" make book ; } > "$LOG" 2>&1
status=$?
# tabs would make run.py read the log as book_each.sh's TSV
sed -i 's/\t/ /g' "$LOG"
echo "environment set-up (make env): $setup s" >> "$LOG"
echo "$cache" >> "$LOG"
echo "clone: $d  commit: $(git rev-parse --short HEAD)" >> "$LOG"
exit $status
