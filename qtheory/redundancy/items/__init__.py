"""Paper R's entries in the companion's registries: its record, book part, items and notes.

Cardinaels, Borst and van Leeuwaarden, *Heavy-traffic universality of redundancy systems
with data locality constraints*: cancel-on-completion and cancel-on-start redundancy with
compatibility constraints in heavy traffic. :data:`PAPER` declares the paper's
bibliographic record, its book part (``book/redundancy/``), its manifest items and the
errata noted while reading it; :mod:`qtheory.manifest` and :mod:`qtheory.claims` gather it.
"""

from ...claims import Noted
from ...claimmap import Statement
from ...manifest import Item, Paper

__all__ = ["PAPER"]

#: paper R: its record, book part, manifest items (manifest order) and noted readings
PAPER = Paper(
    key="R",
    title="Heavy-traffic universality of redundancy systems with data locality constraints",
    part="redundancy",
    authors="Ellen Cardinaels, Sem C. Borst and Johan S. H. van Leeuwaarden",
    year=2024,
    venue='Operations Research 72(4):1539-1555, as "Heavy-Traffic Universality of Redundancy Systems with Assignment Constraints"',
    link="https://doi.org/10.1287/opre.2022.2385",
    version="equation, section, theorem, table and figure numbers as in arXiv:2005.14566 (2020), whose title is used here",
    items=(
        Item("R-P-coc", "P", "redundancy cancel-on-completion, FCFS at every server, central-queue representation", "R-T1"),
        Item("R-P-cos", "P", "redundancy cancel-on-start with assign-to-longest-idle-server", "R-T1"),
        Item("R-P-types", "P", r"job-type families: subsets, power-of-$d$, circular-$d$, $\epsilon$ example, fully flexible, M-model", "R-V"),
        Item("R-V-stab", "V", r"stability conditions (1) $\Leftrightarrow$ (2), power-of-$d$ reduction (3), capacity ratio, $\mathcal{T}^*$, $\lambda^*$", "R-V"),
        Item("R-V-local", "V", r"local stability conditions (7) $\Leftrightarrow$ (8) $\Leftrightarrow$ (9)/(11)", "R-V"),
        Item("R-V-pf", "V", "product forms (4) and (6) agree with simulation on small systems", "R-V"),
        Item("R-V-prop31", "V", "Proposition 3.1: probability generating function of the total", "R-V"),
        Item("R-V-thm31", "V", "Theorem 3.1: heavy-traffic limit in the maximally stable case", "R-V"),
        Item("R-V-thm32", "V", r"Theorem 3.2: heavy-traffic limit with a critical subset $\mathcal{T}^* \neq \mathcal{S}$", "R-V"),
        Item("R-V-cor31", "V", r"Corollary 3.1: scaled replicas per server converge to $\mathrm{Exp}(1)\, q_n$", "R-V"),
        Item("R-V-cor32", "V", "Corollary 3.2: scaled sojourn and waiting times", "R-V"),
        Item("R-V-appD", "V", "Appendix D (Lemma D.1): the non-critical subsystem is stable and decouples", "R-V"),
        Item("R-X-13", "X", "M-model joint pmf (13) and its normalisation constant $C$", "R-V"),
        Item("R-X-tail", "X", r"at load 0.6, $P(Q > 15)$ is about $4.7 \times 10^{-4}$", "R-V"),
        Item("R-X-eps", "X", r"$\epsilon$ example: one $\mathrm{Exp}(1)$ for $\epsilon > 0$, a sum of $N$ for $\epsilon = 0$", "R-X-eps"),
        Item("R-F2c", "F", "capacity region of the M-model (Fig. 2(c))", "R-F2c"),
        Item("R-F3ab", "F", r"joint pmf of $(Q_{\{1,2\}}, Q_{\{2,3\}})$ at $\lambda = 0.6\mu$ and $0.99\mu$ with the slope-5/7 line", "R-F3ab"),
        Item("R-F3cd", "F", r"CDF of the scaled total against $\mathrm{Exp}(1)$ for loads 0.6, 0.8, 0.95, 0.99", "R-F3cd"),
        Item("R-T1", "T", r"Appendix E Table 1: c.o.s. simulation in 12 settings at $\lambda = 0.9$", "R-T1"),
        Item("R-F4", "F", r"Appendix E Figure 4: empirical CDFs of $Q$ per setting against $10\,\mathrm{Exp}(1)$", "R-T1"),
    ),
    noted=(
        Noted("R-V-local", "erratum",
              "Appendix E.1 calls the local stability conditions (1) and (2); they are (7) and (8)",
              (("R-V-local", "claim:local stability"), ("R-V-local", "all_equivalent")),
              "confirmed: (7) and (8) are equivalent to maximal stability in every system checked; the twelve "
              "settings meet them at load 0.9 (a test of the package checks it)"),
    ),
    statements=(
        Statement("R-V-stab", r"stability conditions (1) and (2) are equivalent and give the critical load "
                  r"$\lambda^*$; for power-of-$d$ they reduce to (3)", "Sec. 2.1, eqs. (1)-(3)",
                  judged_by=("are equivalent",)),
        Statement("R-V-stab:identical", r"with identical speeds (3) gives $\lambda^* = \mu$ for every $d$",
                  "Sec. 2.1", main=False, judged_by=("identical speeds",)),
        Statement("R-V-local", "the local stability conditions (7), (8), (9) and (11) are equivalent",
                  "Sec. 3.1, eqs. (7)-(11)", judged_by=("local stability conditions",)),
        Statement("R-V-local:m-model", r"the M-model is locally stable iff $p_{\{1,2\}}, p_{\{2,3\}} < 2/3$", "Sec. 3.3",
                  main=False, judged_by=("M-model: local stability",)),
        Statement("R-V-pf", "the stationary laws are the product forms (4) (c.o.c.) and (6) (c.o.s.)",
                  "Sec. 2.3, eqs. (4), (6)", judged_by=("simulation against the product form",)),
        Statement("R-V-prop31", "Proposition 3.1 gives the probability generating function of the total number of jobs",
                  "Proposition 3.1", judged_by=("Proposition 3.1:",)),
        Statement("R-V-thm31", r"maximally stable case: $(1 - \lambda/\mu) Q_S \to \mathrm{Exp}(1)\, p_S$ as "
                  r"$\lambda \to \mu$", "Theorem 3.1", judged_by=("Theorem 3.1:",)),
        Statement("R-V-thm32", r"with a critical subset $\mathcal{T}^* \neq \mathcal{S}$ the critical types' scaled "
                  "counts converge to one exponential", "Theorem 3.2", judged_by=("Theorem 3.2:",)),
        Statement("R-V-cor31", r"$(1 - \lambda/\lambda^*) R_n \to \mathrm{Exp}(1)\, q_n$ (replicas per server)",
                  "Corollary 3.1", judged_by=("Corollary 3.1: the scaled",)),
        Statement("R-V-cor32", r"$(1 - \lambda/\lambda^*) V_S \to \rho_{\mathcal{T}^*} \mathrm{Exp}(1)$ for "
                  r"$S \in \mathcal{T}^*$ (as printed)", "Corollary 3.2", judged_by=("Corollary 3.2 as printed",)),
        Statement("R-V-appD", "the non-critical subsystem is stable at the critical load and decouples from the "
                  "critical one", "App. D, Lemma D.1, Theorem D.1",
                  judged_by=("Lemma D.1:", "Theorem D.1: the non-critical")),
        Statement("R-X-13", "(13) with its constant $C$ is the joint law of the M-model", "Sec. 3.3, eq. (13)",
                  judged_by=("(13) and C agree",)),
        Statement("R-X-tail", r"at load 0.6, $P(Q > 15)$ is about $4.7 \times 10^{-4}$", "Sec. 3.3",
                  judged_by=("P(Q > 15)$ at load 0.6",)),
        Statement("R-X-eps", r"for $\varepsilon > 0$ the scaled total tends to one $\mathrm{Exp}(1)$, for "
                  r"$\varepsilon = 0$ to a sum of $N$", "Sec. 3.3", judged_by=("scaled mean total",)),
        Statement("R-F2c", r"the capacity region of the M-model: $\lambda^* = \mu$ inside the cone, "
                  r"$(\mu_2 + \mu_3)/(3 p_{\{2,3\}})$ outside it", "Fig. 2(c)", judged_by=("Fig. 2(c):",)),
        Statement("R-F2c:local", r"the cone of local stability is $p_{\{1,2\}}, p_{\{2,3\}} < 2/3$", "Sec. 3.3", main=False,
                  judged_by=("local stability of the M-model",)),
        Statement("R-F3ab", r"as $\lambda \to \mu$ the joint law of $(Q_{\{1,2\}}, Q_{\{2,3\}})$ concentrates on the line of "
                  "slope 5/7", "Sec. 3.3, Fig. 3(a), 3(b)", judged_by=("tends to 5/7",)),
        Statement("R-F3cd", "the exponential approximation (14) of the scaled total is nearly exact at high load",
                  "Sec. 3.3, eq. (14), Fig. 3(c), 3(d)", judged_by=("nearly exact",)),
        Statement("R-T1", r"Table 1: $E[Q]$, $\mathrm{Var}(Q)$ and the type shares of c.o.s. in twelve settings at "
                  r"$\lambda = 0.9$ (10 runs of 500 000 events)", "App. E.2, Table 1", judged_by=("Table 1, setting",)),
        Statement("R-T1:shares", r"the type shares $E[Q_S/Q\,1\{Q>0\}]$ agree with the arrival probabilities $p_S$ "
                  "(state space collapse at high load), except in setting 4", "App. E.2, Table 1", main=False,
                  judged_by=("type shares agree with the arrival probabilities",)),
        Statement("R-F4", r"the heavy-traffic approximation $10\,\mathrm{Exp}(1)$ fits better on denser graphs: larger "
                  "$d$ in settings 7, 8 against 5, 6 and 11, 12 against 9, 10", "App. E.2, Fig. 4",
                  judged_by=("fits better on denser graphs",)),
        Statement("R-F4:pod", "power-of-$d$ is slightly closer to the approximation than circular-$d$ (settings 5, 6)",
                  "App. E.2, Fig. 4", main=False, judged_by=("power-of-$d$ closer",)),
        Statement("R-F4:tail50", r"$P(Q' > 50) < 0.007$ for the approximation $Q' = 10\,\mathrm{Exp}(1)$, so the "
                  "tails beyond 50 jobs rest on few events", "App. E.2", main=False, judged_by=("$P(Q' > 50) < 0.007$",)),
        Statement("R-F4:setting4", "setting 4 deviates more from the approximation than settings 1 to 3",
                  "App. E.2, Fig. 4", main=False, judged_by=("setting 4 deviates",)),
        Statement("R-F4:ushape", r"in settings 5 and 9, $-\log P(Q > q)$ has a U-shape (it bends upward), unlike the "
                  r"straight line of the approximation, as the many-server tail of JSQ($d$) does", "App. E.2",
                  main=False, judged_by=("has a U-shape",)),
    ),
)
