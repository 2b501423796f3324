"""Paper R's entries in the companion's registries: its record, book part, items and notes.

Cardinaels, Borst and van Leeuwaarden, *Heavy-traffic universality of redundancy systems
with data locality constraints*: cancel-on-completion and cancel-on-start redundancy with
compatibility constraints in heavy traffic. :data:`PAPER` declares the paper's
bibliographic record, its book part (``book/redundancy/``), its manifest items and the
errata noted while reading it; :mod:`qtheory.manifest` and :mod:`qtheory.claims` gather it.
"""

from ...claims import Noted
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
    version="equation numbers as in arXiv:2005.14566 (2020), whose title is used here",
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
        Item("R-F3ab", "F", r"joint pmf of $(Q_{12}, Q_{23})$ at $\lambda = 0.6\mu$ and $0.99\mu$ with the slope-5/7 line", "R-F3ab"),
        Item("R-F3cd", "F", r"CDF of the scaled total against $\mathrm{Exp}(1)$ for loads 0.6, 0.8, 0.95, 0.99", "R-F3cd"),
        Item("R-T1", "T", r"Appendix E Table 1: c.o.s. simulation in 12 settings at $\lambda = 0.9$", "R-T1"),
        Item("R-F4", "F", r"Appendix E Figure 4: empirical CDFs of $Q$ per setting against $10\,\mathrm{Exp}(1)$", "R-T1"),
    ),
    noted=(
        Noted("R-V-local", "erratum",
              "Appendix E.1 calls the local stability conditions (1) and (2); they are (7) and (8)",
              (("R-V-local", "claim:local stability"), ("R-V-local", "all_equivalent")),
              "confirmed: (7) and (8) are equivalent to maximal stability in every system checked; the twelve "
              "settings meet them (test_table1_settings_are_maximally_stable_at_load_09)"),
    ),
)
