"""Paper U's entries in the companion's registries: its record, book part, items and notes.

Goldsztajn, Borst and van Leeuwaarden, *Utility maximizing load balancing policies*: the
assignment of tasks to pools of infinite-server queues (JLMU, SLTA). :data:`PAPER` declares
the paper's bibliographic record, its book part (``book/utility/``), its manifest items and
the reconstructions noted while reading it; :mod:`qtheory.manifest` and
:mod:`qtheory.claims` gather it.
"""

from ...claims import Noted
from ...claimmap import Statement
from ...manifest import Item, Paper

__all__ = ["PAPER"]

#: paper U: its record, book part, manifest items (manifest order) and noted readings
PAPER = Paper(
    key="U",
    title="Utility maximizing load balancing policies",
    part="utility",
    authors="Diego Goldsztajn, Sem C. Borst and Johan S. H. van Leeuwaarden",
    year=2023,
    venue="Stochastic Systems 13(2):211-246",
    link="https://doi.org/10.1287/stsy.2022.0103",
    version="equation numbers as in the journal version",
    items=(
        Item("U-P-jlmu", "P", "join the largest marginal utility (Sec. 3.1)", "U-T1"),
        Item("U-P-slta", "P", "self-learning threshold assignment and its learning scheme (Sec. 3.2)", "U-T1"),
        Item("U-P-base", "P", "baselines: random assignment, class-blind JSQ, the conservative policy of Sec. 8.3", "U-V"),
        Item("U-V-thm1", "V", r"Theorem 1: $E[u(q_n)] \le u(q_n^*)$ for any policy", "U-V"),
        Item("U-V-prop1", "V", r"Proposition 1: $q_n^*$ solves the optimisation problem (2)", "U-V"),
        Item("U-V-thm3", "V", "Theorem 3: the fluid model (12) has unique solutions", "U-V"),
        Item("U-V-thm4", "V", r"Theorem 4: $q_*$ is the unique, globally attracting equilibrium of (12)", "U-V"),
        Item("U-V-thm5", "V", "Theorem 5: JLMU occupancy converges to the fluid trajectory", "U-V"),
        Item("U-V-thm6", "V", r"Theorem 6: SLTA learns $r_*$, occupancy near $q_*$ after $\tau_{\mathrm{eq}}$", "U-V"),
        Item("U-V-thm2", "V", "Theorem 2: asymptotic optimality of JLMU and SLTA", "U-T1"),
        Item("U-V-sub", "V", "Sec. 8.3: JLMU is strictly suboptimal in the prelimit (exact computation)", "U-V-sub"),
        Item("U-X-poisson", "X", r"$n s_n$ is $\mathrm{Poisson}(n\rho)$ in stationarity for any policy", "U-V"),
        Item("U-F3", "F", r"optimal task assignment against $\rho$ for two utility families (Sec. 2.3.1)", "U-F3"),
        Item("U-T1", "T", r"Table 1: $E[u(q_n)]$ of JLMU and SLTA against $n$ at $\rho = 9.75$ and 10", "U-T1"),
        Item("U-R-jlmud", "R", r"beyond the paper: JLMU($d$), JLMU among $d$ sampled pools, against JLMU on the Table 1 system",
             "U-R-jlmud"),
    ),
    noted=(
        Noted("U-T1", "reconstruction",
              "Table 1's setting as we read Sec. 3.4.1: runs from an empty system, time averages after a warm-up, "
              r"SLTA with $\beta_n = n^{-1/3}$. The text we work from holds the table's caption but none of its "
              "numbers, so no row of ours is compared with a printed value; the statements Sec. 3.4.1 makes about "
              "the table are judged instead",
              (("U-T1", "claim:shrinks as n grows"), ("U-T1", "claim:fractional case"), ("U-T1", "deviation_shrinks")),
              "the statements of Sec. 3.4.1 about Table 1 are reproduced",
              source="Sec. 3.4.1, Table 1",
              alternatives="a stationary start (the paper does not say how its runs begin); another $\\beta_n$ meeting "
                               "Theorem 2's conditions"),
    ),
    statements=(
        Statement("U-V-thm1", r"$E[u(q_n)] \le u(q_n^*)$ for any policy", "Theorem 1 (Sec. 3.4)",
                  judged_by=("Theorem 1:",)),
        Statement("U-V-prop1", "the greedy assignment $q_n^*$ of (4)-(5) solves the optimisation problem (2)",
                  "Proposition 1", judged_by=("Proposition 1:",)),
        Statement("U-V-thm3", "the fluid model (12) has unique solutions", "Theorem 3", judged_by=("Theorem 3:",)),
        Statement("U-V-thm4", r"$q_*$ is the unique, globally attracting equilibrium of (12)", "Theorem 4",
                  judged_by=("Theorem 4:",)),
        Statement("U-V-thm5", "the occupancy under JLMU converges to the fluid trajectory as $n$ grows", "Theorem 5",
                  judged_by=("Theorem 5:",)),
        Statement("U-V-thm6", r"SLTA learns $r_*$ and its occupancy stays near $q_*$ after $\tau_{\mathrm{eq}}$",
                  "Theorem 6", judged_by=("Theorem 6:",)),
        Statement("U-V-thm2", r"JLMU and SLTA are asymptotically optimal: $E[u(q_n)] \to u(q_*)$", "Theorem 2",
                  judged_by=("shrinks as n grows",)),
        Statement("U-V-sub", "JLMU is strictly suboptimal in the prelimit for some parameters", "Sec. 8.3",
                  judged_by=("strictly suboptimal",)),
        Statement("U-X-poisson", r"$n s_n$ is $\mathrm{Poisson}(n\rho)$ in stationarity for any policy", "Sec. 2.1"),
        Statement("U-F3", r"for utilities $x g(r(i)/x)$ the optimal assignment puts roughly $r(i)/c(r, \rho)$ tasks in "
                  r"each pool, in fixed ratios as $\rho$ grows", "Sec. 2.3.1, Fig. 3 (left)",
                  judged_by=("pools hold roughly",)),
        Statement("U-T1", r"Table 1: JLMU and SLTA come closer to $u(q_n^*)$ in the fractional case "
                  r"($\rho = 9.75$) than in the integral one ($\rho = 10$)", "Sec. 3.4.1, Table 1",
                  judged_by=("fractional case",)),
        Statement("U-T1:q-star", r"the optimal assignment of the Table 1 system: class-1 pools hold 8 tasks, class-2 "
                  "pools 11 or 12", "Sec. 3.4.1", main=False, judged_by=("pools hold", "pools with 12 tasks")),
    ),
)
