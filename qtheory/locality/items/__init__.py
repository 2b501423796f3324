"""Paper L's entries in the companion's registries: its record, book part, items and notes.

Zhao, Mukherjee and Wu, *Exploiting data locality to improve performance of heterogeneous
server clusters*: JSQ(:math:`d`) on bipartite dispatcher/server compatibility graphs with
heterogeneous server types. :data:`PAPER` declares the paper's bibliographic record, its
book part (``book/locality/``), its manifest items and the reconstructions and errata noted
while reading it; :mod:`qtheory.manifest` and :mod:`qtheory.claims` gather it.
"""

from ...claims import Noted
from ...claimmap import Statement
from ...manifest import Item, Paper

__all__ = ["PAPER"]

#: paper L: its record, book part, manifest items (manifest order) and noted readings
PAPER = Paper(
    key="L",
    title="Exploiting data locality to improve performance of heterogeneous server clusters",
    part="locality",
    authors="Zhisheng Zhao, Debankur Mukherjee and Ruoyu Wu",
    year=2024,
    venue="Stochastic Systems 14(3):229-272",
    link="https://doi.org/10.1287/stsy.2022.0040",
    version="equation numbers as in arXiv:2211.16416 (2022)",
    items=(
        Item("L-P-jsqd", "P", "local JSQ(d) on a bipartite dispatcher/server graph with $K$ clusters and $M$ server types", "L-F1"),
        Item("L-P-gwsq", "P", "GWSQ(d): JSQ(d) with global weighted sampling (Algorithm 1)", "L-V-limits"),
        Item("L-P-irg", "P", "irg(p) random compatibility graphs (Definition 3)", "L-V-graphs"),
        Item("L-V-lemma1", "V", r"Lemma 1: the finite system is ergodic iff $\rho^N < 1$", "L-V-stability"),
        Item("L-V-lemma2", "V", "Lemma 2: sufficient stability criterion (3.1)", "L-V-stability"),
        Item("L-V-prop1", "V", "Proposition 1: a stabilising compatibility matrix exists whenever (2.1) holds", "L-V-stability"),
        Item("L-V-lemma10", "V", r"Lemma 10: asymptotic load $\rho$ (5.2); the complete bipartite example is unstable", "L-V-stability"),
        Item("L-V-thm1", "V", "Theorem 1: propagation of chaos for tagged queues", "L-V-limits"),
        Item("L-V-thm2", "V", "Theorem 2: occupancy process converges to the ODE (3.7) from i.i.d. starts", "L-V-limits"),
        Item("L-V-thm3", "V", "Theorem 3: same limit from non-i.i.d. starts on clustered proportionally sparse graphs", "L-V-limits"),
        Item("L-V-thm4", "V", "Theorem 4: the ODE (3.7) has a unique, globally attracting fixed point", "L-V-fixedpoint"),
        Item("L-V-thm6", "V", r"Theorem 6: stationary occupancy of the $N$-system converges to the fixed point", "L-V-limits"),
        Item("L-V-thm7", "V", "Theorem 7: double-exponential tail decay of the fixed point", "L-V-fixedpoint"),
        Item("L-V-thm8", "V", "Theorem 8: irg(p) satisfies Condition 1 and clustered proportional sparsity", "L-V-graphs"),
        Item("L-X-homog", "X", r"homogeneous full flexibility: $q_\ell = \lambda^{(d^\ell - 1)/(d - 1)}$", "L-V-fixedpoint"),
        Item("L-F1", "F", "complete bipartite vs designed graph: mean queue length per server type over time (Sec. 6.1)", "L-F1"),
        Item("L-F2", "F", r"$q_{m,1}^N$ and $q_{m,2}^N$ for $N = 100, 500, 1000$ against the ODE (Sec. 6.2)", "L-F2"),
        Item("L-F3", "F", "ODE from three initial conditions reaching the same limit (Sec. 6.3)", "L-F3"),
        Item("L-R-finite", "R", r"beyond the paper: finite-$N$ accuracy of the limits (refined mean field, simulation, exact chains)",
             "L-R-finite"),
        Item("L-R-jiq", "R", "beyond the paper: JIQ with locality (an idle compatible server, else a random one) against "
             "local JSQ(2), GWSQ(2) and random routing on the Sec. 6 system", "L-R-jiq"),
        Item("L-R-graph", "R", "beyond the paper: the mean field of one given graph (per server) and its refinement "
             "against (3.7) and simulation of the same irg graphs", "L-R-graph"),
        Item("L-R-memory", "R", "beyond the paper: JSQ(d) with memory (Mitzenmacher, Prabhakar and Shah 2002), a "
             "remembered server per dispatcher, against local JSQ(2): exact chain of a tiny graph and the Sec. 6 system",
             "L-R-memory"),
    ),
    noted=(
        Noted("L-V-lemma10", "reconstruction",
              r"(5.2), the asymptotic load: the supremum over $\alpha \in [0,1]^M$ of $\lambda \zeta \sum_k w_k "
              r"\bigl(\sum_m \alpha_m r_{k,m}\bigr)^d / \sum_m \alpha_m v_m u_m$, attained at a set of server types",
              (("L-V-lemma10", "claim:unstable"), ("L-V-lemma10", "claim:growth rate"), ("L-V-lemma10", "rho_design")),
              "consistent: predicts the instability of the complete graph; its growth is checked against (3.7)",
              source="Lemma 10, eq. (5.2)",
              alternatives=r"the left side of (5.2) at $\alpha = (1, \dots, 1)$ only (0.75 for $p^0$: no instability)"),
        Noted("L-V-thm4", "reconstruction",
              "(5.1), the fixed-point equations: the right side of (3.7) set to zero",
              (("L-V-thm4", "root_residual"), ("L-V-thm4", "max_final_distance")),
              "consistent: the root of (5.1) is the limit of every integration of (3.7)", source="eq. (5.1)",
              alternatives="the recursive form (5.3) from $q^*_{m,1}$ (used, as a tail sum, for the tails): the same root"),
        Noted("L-V-thm8", "reconstruction",
              r"Condition 1: $\deg_w(i, m)$ = number of type-$m$ neighbours of dispatcher $i$, $\deg_v(k, j)$ = "
              "number of cluster-$k$ neighbours of server $j$ (our reading of the two degrees)",
              (("L-V-thm8", "at_largest_N"),),
              "consistent: irg(p) meets the condition and proportional sparsity, the window graph does not",
              source="Condition 1 (Sec. 2)",
              alternatives="total degrees over all types / clusters: they cannot express the per-pair densities of (2.2)"),
        Noted("L-F1", "reconstruction",
              r"Fig. 1 plots the mean queue length of each type, $\sum_{\ell \ge 1} q_{m,\ell}(t)$, on "
              r"$t \in [0, 2.5]$ (the horizon is not stated)",
              (("L-F1", "claim:95% CIs"), ("L-F1", "claim:almost monotonically"), ("L-F1", "type1_growth_second_half_S1")),
              "consistent with the figure's description", source="Sec. 6.1, Fig. 1",
              alternatives="$q_{m,1}(t)$ (fraction busy) instead of the mean queue length; a longer horizon than the "
                               "marked times 0.5, ..., 2.5"),
        Noted("L-F1", "erratum",
              r"Sec. 6 notation: $\mu = (1, 5, 10)$ stands for the rates $u$ of Secs. 2-5, and Sec. 6.1 writes "
              "$p_{m,k}$ for $p_{k,m}$",
              (("L-F1", "claim:capacity sufficiency"),),
              r"notation only: with $u = \mu$ the example has the capacity the text states", source="Secs. 6, 6.1"),
    ),
    statements=(
        Statement("L-V-lemma1", r"the finite system is ergodic iff $\rho^N < 1$: queues stay bounded below the "
                  r"threshold and grow above it", "Lemma 1 (Sec. 3.1)", judged_by=("Lemma 1: the total queue",)),
        Statement("L-V-lemma2", "criterion (3.1) suffices for stability: under it every server type is loaded "
                  "below 1 even under random routing", "Lemma 2, eq. (3.1)",
                  judged_by=("Lemma 2: under (3.1)",)),
        Statement("L-V-lemma2:p1", r"the designed $p^1$ satisfies (3.1)", "Sec. 6.1", main=False,
                  judged_by=("lies in the feasible region",)),
        Statement("L-V-prop1", "a compatibility matrix satisfying (3.1) exists whenever (2.1) holds",
                  "Proposition 1 (Sec. 3.1)", judged_by=("Proposition 1",)),
        Statement("L-V-lemma10", r"the asymptotic load $\rho$ of (5.2) decides stability for large $N$; the complete "
                  "bipartite example of Sec. 6.1 is unstable", "Lemma 10, eq. (5.2); Sec. 6.1",
                  judged_by=("is unstable (type-1 queues grow)",)),
        Statement("L-V-thm1", "two tagged queues become independent as $N$ grows (propagation of chaos)",
                  "Theorem 1 (Sec. 3.2)", judged_by=("Theorem 1:",)),
        Statement("L-V-thm2", "from i.i.d. starts the occupancy process converges to the ODE (3.7)",
                  "Theorem 2 (Sec. 3.2)", judged_by=("Theorem 2:",)),
        Statement("L-V-thm3", "on clustered proportionally sparse graphs the same limit holds from non-i.i.d. starts",
                  "Theorem 3 (Sec. 3.3)", judged_by=("Theorem 3:",)),
        Statement("L-V-thm4", "the ODE (3.7) has a unique fixed point that attracts every start",
                  "Theorem 4 (Sec. 3.4)", judged_by=("Theorem 4:",)),
        Statement("L-V-thm6", "the stationary occupancy of the $N$-system converges to the fixed point",
                  "Theorem 6 (Sec. 3.4)", judged_by=("Theorem 6:",)),
        Statement("L-V-thm7", r"the fixed point's tails decay doubly exponentially for $d \ge 2$",
                  "Theorem 7 (Sec. 3.4)", judged_by=("Theorem 7:",)),
        Statement("L-V-thm8", r"$\mathrm{irg}(p)$ graphs satisfy Condition 1 and are clustered proportionally sparse",
                  "Theorem 8 (Sec. 3.5)", judged_by=("Theorem 8:",)),
        Statement("L-X-homog", r"with homogeneous servers and full flexibility $q^*_\ell = \lambda^{(d^\ell - 1)/(d - 1)}$",
                  "Sec. 3.4", judged_by=("homogeneous full flexibility",)),
        Statement("L-F1", "under the complete bipartite graph (S1) the mean type-1 queue increases almost monotonically",
                  "Sec. 6.1, Fig. 1", judged_by=("increases almost monotonically",)),
        Statement("L-F1:s2-bounded", r"under the designed $p^1$ (S2) every type's mean queue length stays bounded",
                  "Sec. 6.1, Fig. 1", judged_by=("stays bounded",)),
        Statement("L-F1:narrow-ci", "the 95% intervals are narrower than the plot markers", "Sec. 6.1, Fig. 1",
                  main=False, judged_by=("narrower than the plot markers",)),
        Statement("L-F1:capacity", r"the Sec. 6 system has sufficient capacity (2.1)", "Sec. 6", main=False,
                  judged_by=("capacity sufficiency",)),
        Statement("L-F2", r"$q^N_{m,1}(t)$ and $q^N_{m,2}(t)$ approach the ODE (3.7) as $N$ grows from 100 to 1000",
                  "Sec. 6.2, Fig. 2", judged_by=("approach the ODE",)),
        Statement("L-F2:fast-decay", r"$q^N_{1,1}$ and especially $q^N_{1,2}$ decrease very fast when their initial "
                  "values are large", "Sec. 6.2, Fig. 2", main=False, judged_by=("decrease very fast",)),
        Statement("L-F3", r"from the initial conditions Q, Q1 and Q2, $q_{m,1}(t)$ reaches the same limit",
                  "Sec. 6.3, Fig. 3", judged_by=("reach the same limit",)),
    ),
)
