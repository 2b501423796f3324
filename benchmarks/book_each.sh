#!/bin/bash
# Each notebook at the paper preset in its own `python -m qtheory reproduce --only NB --force`
# run, one after the other, recording wall, user and system seconds (the notebook process,
# its kernel and its worker processes) as TSV lines: notebook, wall, user, system.
#   bash benchmarks/book_each.sh OUT.tsv RESULTS_DIR     (from the project root)
# `benchmarks/run.py --only book --book-log OUT.tsv` reads the file. Wall time is only
# meaningful on an idle machine; processor time much less so (see the performance page).
set -u
OUT=${1:-/tmp/paper_each.tsv}
RES=${2:-/tmp/paper_each_results}
PY=${PYTHON:-.venv/bin/python}
: > "$OUT"
for nb in $(ls notebooks/*.ipynb | xargs -n1 basename | sed 's/\.ipynb$//'); do
  /usr/bin/time -f "$nb	%e	%U	%S" -a -o "$OUT" nice -n 10 "$PY" -m qtheory reproduce --preset paper \
    --only "$nb" --results-dir "$RES" --force > "$RES.$nb.log" 2>&1
done
echo DONE >> "$OUT"
