"""U-X-poisson's verdicts over seeds: U-V at the paper preset for seeds 5150 (the default) and
11-20, each page judged as the book judges it (:func:`qtheory.claimpages.judge_pages`).

    python benchmarks/verdicts/u_v_seeds.py [--seeds 5150 11 12 ...] [--out benchmarks/verdicts/u_v_seeds.json]

For each seed it runs ``python -m qtheory reproduce --preset paper --only U-V -p seed S`` into a
temporary results folder, reads the U-X-poisson records of the result, and writes their labels
(the mean count per policy, and the law of the count judged by one sign-flip test), the largest
|t| of the means, the smallest p-value against its Holm threshold, and the joint tests of the
means' family, with the date and commit, to the JSON file. It exits 1 when any label is
"differs" (the statement holds for every policy: the count of an M/M/infinity system).
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from qtheory.claimpages import judge_pages  # noqa: E402
from qtheory.claims import collect  # noqa: E402

DEFAULT_SEEDS = (5150, *range(11, 21))


def one_seed(seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "qtheory", "reproduce", "--preset", "paper", "--only", "U-V", "-p", "seed",
               str(seed), "--results-dir", tmp, "--force"]
        subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        claims = collect(tmp)
    verdicts, judgements = judge_pages(claims)
    page = next(iter(judgements.values()))
    poisson = [c for c in claims if c.item == "U-X-poisson"]
    means = [c for c in poisson if not c.tested]
    law = [c for c in poisson if c.tested]
    stats = [verdicts[id(c)] for c in means]
    smallest = min(stats, key=lambda v: v.comparison.p)
    return {
        "labels": [verdicts[id(c)].label for c in means],
        "law_label": [verdicts[id(c)].label for c in law],
        "law_p": [round(c.p_value, 4) for c in law],
        "largest_abs_t": round(max(abs(v.comparison.t) for v in stats), 3),
        "smallest_p": round(smallest.comparison.p, 5),
        "its_holm_threshold": round(smallest.threshold, 5),
        "family_size": smallest.family_size,
        "joint": {j.kind: {"statistic": round(j.statistic, 3), "p": round(j.p, 3), "rejected": j.rejected}
                  for j in page.joint if j.family.startswith("U-X-poisson")},
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(DEFAULT_SEEDS))
    parser.add_argument("--out", default=str(Path(__file__).with_suffix(".json")))
    args = parser.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    seeds = {}
    for seed in args.seeds:
        seeds[str(seed)] = one_seed(seed)
        print(seed, seeds[str(seed)]["labels"], seeds[str(seed)]["law_label"], flush=True)
    report = {
        "what": "U-V at the paper preset for each seed: the labels of U-X-poisson's records under the page's family "
                "judgement (qtheory.verdicts): the mean count under each of the seven policies, and the law of the "
                "count (one sign-flip test of every count's probability under all policies); the largest |t| of the "
                "means, the smallest p-value against its Holm threshold, and the joint tests of the means' family",
        "command": "python benchmarks/verdicts/u_v_seeds.py",
        "date": datetime.date.today().isoformat(),
        "commit": commit,
        "seeds": seeds,
    }
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    differs = [s for s, r in seeds.items() if "differs" in r["labels"] + r["law_label"]]
    if differs:
        print(f"'differs' on U-X-poisson at seeds {', '.join(differs)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
