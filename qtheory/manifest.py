"""The reproduction manifest: every figure, table, policy and result the companion covers.

Each item has the ID used in ``../shared/spec/MANIFEST.md``; the same ID names the
result folder (``results/<ID>/``), the book label and the tests that back the item.
``notebook`` is the notebook (in ``notebooks/``, without ``.ipynb``) whose run
produces the item's results; several items can share one notebook (for instance
the verification notebook of a paper).

The papers are

- **L**: data locality with heterogeneous servers, JSQ(d) on bipartite compatibility graphs;
- **R**: redundancy (cancel-on-completion / cancel-on-start) with compatibility constraints,
  heavy-traffic limits;
- **U**: utility-maximizing assignment of tasks to infinite-server pools (JLMU, SLTA).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from .errors import ParameterError

PAPERS = {
    "L": "Exploiting data locality to improve performance of heterogeneous server clusters",
    "R": "Heavy-traffic universality of redundancy systems with data locality constraints",
    "U": "Utility maximizing load balancing policies",
}

#: bibliographic record of each paper (the version our equation numbers follow is named)
RECORDS = {
    "L": dict(authors="Zhisheng Zhao, Debankur Mukherjee and Ruoyu Wu", year=2024,
              venue="Stochastic Systems 14(3):229-272", link="https://doi.org/10.1287/stsy.2022.0040",
              version="equation numbers as in arXiv:2211.16416 (2022)"),
    "R": dict(authors="Ellen Cardinaels, Sem C. Borst and Johan S. H. van Leeuwaarden", year=2024,
              venue="Operations Research 72(4):1539-1555, as \"Heavy-Traffic Universality of Redundancy "
                    "Systems with Assignment Constraints\"",
              link="https://doi.org/10.1287/opre.2022.2385",
              version="equation numbers as in arXiv:2005.14566 (2020), whose title is used here"),
    "U": dict(authors="Diego Goldsztajn, Sem C. Borst and Johan S. H. van Leeuwaarden", year=2023,
              venue="Stochastic Systems 13(2):211-246", link="https://doi.org/10.1287/stsy.2022.0103",
              version="equation numbers as in the journal version"),
}

#: book part (folder under ``book/``) of each paper
PARTS = {"L": "locality", "R": "redundancy", "U": "utility"}

KINDS = {
    "P": "policy or model",
    "F": "figure",
    "T": "table",
    "V": "theorem or lemma, verified numerically",
    "X": "other claim of the text, checked",
    "R": "result beyond the papers (our own computation, not in the spec)",
}


@dataclass(frozen=True)
class Item:
    """One manifest item.

    Attributes
    ----------
    id : str
        Manifest ID, e.g. ``"L-F1"``.
    kind : str
        One letter of :data:`KINDS`.
    title : str
        What the item is, in a line.
    notebook : str
        Name of the notebook that produces its results.
    """

    id: str
    kind: str
    title: str
    notebook: str

    @property
    def paper(self) -> str:
        return self.id.split("-", 1)[0]

    @property
    def part(self) -> str:
        return PARTS[self.paper]


def _items(rows: list[tuple[str, str, str, str]]) -> dict[str, Item]:
    return {row[0]: Item(*row) for row in rows}


# (id, kind, title, notebook)
_L = [
    ("L-P-jsqd", "P", "local JSQ(d) on a bipartite dispatcher/server graph with K clusters and M server types", "L-F1"),
    ("L-P-gwsq", "P", "GWSQ(d): JSQ(d) with global weighted sampling (Algorithm 1)", "L-V-limits"),
    ("L-P-irg", "P", "irg(p) random compatibility graphs (Definition 3)", "L-V-graphs"),
    ("L-V-lemma1", "V", r"Lemma 1: the finite system is ergodic iff $\rho^N < 1$", "L-V-stability"),
    ("L-V-lemma2", "V", "Lemma 2: sufficient stability criterion (3.1)", "L-V-stability"),
    ("L-V-prop1", "V", "Proposition 1: a stabilising compatibility matrix exists whenever (2.1) holds", "L-V-stability"),
    ("L-V-lemma10", "V", r"Lemma 10: asymptotic load $\rho$ (5.2); the complete bipartite example is unstable", "L-V-stability"),
    ("L-V-thm1", "V", "Theorem 1: propagation of chaos for tagged queues", "L-V-limits"),
    ("L-V-thm2", "V", "Theorem 2: occupancy process converges to the ODE (3.7) from i.i.d. starts", "L-V-limits"),
    ("L-V-thm3", "V", "Theorem 3: same limit from non-i.i.d. starts on clustered proportionally sparse graphs", "L-V-limits"),
    ("L-V-thm4", "V", "Theorem 4: the ODE (3.7) has a unique, globally attracting fixed point", "L-V-fixedpoint"),
    ("L-V-thm6", "V", r"Theorem 6: stationary occupancy of the $N$-system converges to the fixed point", "L-V-limits"),
    ("L-V-thm7", "V", "Theorem 7: double-exponential tail decay of the fixed point", "L-V-fixedpoint"),
    ("L-V-thm8", "V", "Theorem 8: irg(p) satisfies Condition 1 and clustered proportional sparsity", "L-V-graphs"),
    ("L-X-homog", "X", r"homogeneous full flexibility: $q_\ell = \lambda^{(d^\ell - 1)/(d - 1)}$", "L-V-fixedpoint"),
    ("L-F1", "F", "complete bipartite vs designed graph: mean queue length per server type over time (Sec. 6.1)", "L-F1"),
    ("L-F2", "F", r"$q_{m,1}^N$ and $q_{m,2}^N$ for $N = 100, 500, 1000$ against the ODE (Sec. 6.2)", "L-F2"),
    ("L-F3", "F", "ODE from three initial conditions reaching the same limit (Sec. 6.3)", "L-F3"),
    ("L-R-finite", "R", r"beyond the paper: finite-$N$ accuracy of the limits (refined mean field, simulation, exact chains)",
     "L-R-finite"),
    ("L-R-jiq", "R", "beyond the paper: JIQ with locality (an idle compatible server, else a random one) against "
     "local JSQ(2), GWSQ(2) and random routing on the Sec. 6 system", "L-R-jiq"),
]

_R = [
    ("R-P-coc", "P", "redundancy cancel-on-completion, FCFS at every server, central-queue representation", "R-T1"),
    ("R-P-cos", "P", "redundancy cancel-on-start with assign-to-longest-idle-server", "R-T1"),
    ("R-P-types", "P", r"job-type families: subsets, power-of-$d$, circular-$d$, $\epsilon$ example, fully flexible, M-model", "R-V"),
    ("R-V-stab", "V", r"stability conditions (1) $\Leftrightarrow$ (2), power-of-$d$ reduction (3), capacity ratio, $\mathcal{T}^*$, $\lambda^*$", "R-V"),
    ("R-V-local", "V", r"local stability conditions (7) $\Leftrightarrow$ (8) $\Leftrightarrow$ (9)/(11)", "R-V"),
    ("R-V-pf", "V", "product forms (4) and (6) agree with simulation on small systems", "R-V"),
    ("R-V-prop31", "V", "Proposition 3.1: probability generating function of the total", "R-V"),
    ("R-V-thm31", "V", "Theorem 3.1: heavy-traffic limit in the maximally stable case", "R-V"),
    ("R-V-thm32", "V", r"Theorem 3.2: heavy-traffic limit with a critical subset $\mathcal{T}^* \neq \mathcal{S}$", "R-V"),
    ("R-V-cor31", "V", r"Corollary 3.1: scaled replicas per server converge to $\mathrm{Exp}(1)\, q_n$", "R-V"),
    ("R-V-cor32", "V", "Corollary 3.2: scaled sojourn and waiting times", "R-V"),
    ("R-V-appD", "V", "Appendix D (Lemma D.1): the non-critical subsystem is stable and decouples", "R-V"),
    ("R-X-13", "X", "M-model joint pmf (13) and its normalisation constant C", "R-V"),
    ("R-X-tail", "X", r"at load 0.6, $P(Q > 15)$ is about $4.7 \times 10^{-4}$", "R-V"),
    ("R-X-eps", "X", r"$\epsilon$ example: one $\mathrm{Exp}(1)$ for $\epsilon > 0$, a sum of $N$ for $\epsilon = 0$", "R-X-eps"),
    ("R-F2c", "F", "capacity region of the M-model (Fig. 2(c))", "R-F2c"),
    ("R-F3ab", "F", r"joint pmf of $(Q_{12}, Q_{23})$ at $\lambda = 0.6\mu$ and $0.99\mu$ with the slope-5/7 line", "R-F3ab"),
    ("R-F3cd", "F", "CDF of the scaled total against Exp(1) for loads 0.6, 0.8, 0.95, 0.99", "R-F3cd"),
    ("R-T1", "T", r"Appendix E Table 1: c.o.s. simulation in 12 settings at $\lambda = 0.9$", "R-T1"),
    ("R-F4", "F", r"Appendix E Figure 4: empirical CDFs of $Q$ per setting against $10\,\mathrm{Exp}(1)$", "R-T1"),
]

_U = [
    ("U-P-jlmu", "P", "join the largest marginal utility (Sec. 3.1)", "U-T1"),
    ("U-P-slta", "P", "self-learning threshold assignment and its learning scheme (Sec. 3.2)", "U-T1"),
    ("U-P-base", "P", "baselines: random assignment, class-blind JSQ, the conservative policy of Sec. 8.3", "U-V"),
    ("U-V-thm1", "V", r"Theorem 1: $E[u(q_n)] \le u(q_n^*)$ for any policy", "U-V"),
    ("U-V-prop1", "V", r"Proposition 1: $q_n^*$ solves the optimisation problem (2)", "U-V"),
    ("U-V-thm3", "V", "Theorem 3: the fluid model (12) has unique solutions", "U-V"),
    ("U-V-thm4", "V", r"Theorem 4: $q_*$ is the unique, globally attracting equilibrium of (12)", "U-V"),
    ("U-V-thm5", "V", "Theorem 5: JLMU occupancy converges to the fluid trajectory", "U-V"),
    ("U-V-thm6", "V", r"Theorem 6: SLTA learns $r_*$, occupancy near $q_*$ after $\tau_{\mathrm{eq}}$", "U-V"),
    ("U-V-thm2", "V", "Theorem 2: asymptotic optimality of JLMU and SLTA", "U-T1"),
    ("U-V-sub", "V", "Sec. 8.3: JLMU is strictly suboptimal in the prelimit (exact computation)", "U-V-sub"),
    ("U-X-poisson", "X", r"$n s_n$ is $\mathrm{Poisson}(n\rho)$ in stationarity for any policy", "U-V"),
    ("U-F3", "F", r"optimal task assignment against $\rho$ for two utility families (Sec. 2.3.1)", "U-F3"),
    ("U-T1", "T", r"Table 1: $E[u(q_n)]$ of JLMU and SLTA against $n$ at $\rho = 9.75$ and 10", "U-T1"),
    ("U-R-jlmud", "R", r"beyond the paper: JLMU($d$), JLMU among $d$ sampled pools, against JLMU on the Table 1 system",
     "U-R-jlmud"),
]

#: every manifest item, by ID, in manifest order
ITEMS: dict[str, Item] = {**_items(_L), **_items(_R), **_items(_U)}


def notebooks() -> dict[str, list[Item]]:
    """Map each notebook name to the manifest items it produces (manifest order)."""
    out: dict[str, list[Item]] = {}
    for item in ITEMS.values():
        out.setdefault(item.notebook, []).append(item)
    return out


def get(item_id: str) -> Item:
    """Return the manifest item `item_id`, with a suggestion when the ID is unknown."""
    try:
        return ITEMS[item_id]
    except KeyError:
        close = difflib.get_close_matches(item_id, list(ITEMS) + list(notebooks()), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ParameterError(f"unknown manifest ID {item_id!r}{hint}") from None


#: what a kind letter is called in the papers' own terms (for the index)
_PAPER_TERMS = {"F": "Figure", "T": "Table", "V": "Result", "X": "Statement", "P": "Model", "R": "Beyond the paper"}


def index_markdown(book) -> str:
    """The intro page's index: per paper, its record and a table from each manifest item
    to the page that computes it (a link when the page exists in `book`)."""
    from pathlib import Path

    book = Path(book)
    out = []
    for paper, title in PAPERS.items():
        rec = RECORDS[paper]
        out += [f"### {paper}: *{title}*", "",
                f"{rec['authors']} ({rec['year']}). {rec['venue']}. <{rec['link']}>; {rec['version']}.", "",
                "| manifest ID | kind | what | page |", "|---|---|---|---|"]
        for item in ITEMS.values():
            if item.paper != paper:
                continue
            nb = book / item.part / f"{item.notebook}.ipynb"
            page = f"[{item.notebook}]({item.part}/{item.notebook}.ipynb)" if nb.exists() else \
                f"{item.notebook} (not computed in this build)"
            what = item.title.replace("|", "\\|")
            out.append(f"| {item.id} | {_PAPER_TERMS.get(item.kind, item.kind)} | {what} | {page} |")
        out.append("")
    return "\n".join(out)


def write_index(book) -> None:
    """Write ``paper_index.md`` (included by the intro page) into `book` if it changed."""
    from pathlib import Path

    path = Path(book) / "paper_index.md"
    text = index_markdown(book)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
