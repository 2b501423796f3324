"""Heavy-traffic limits: Theorems 3.1, 3.2, Corollaries 3.1, 3.2 and Appendix D.

As :math:`\\lambda\\uparrow\\lambda^*`, with :math:`\\epsilon = 1 - \\lambda/\\lambda^*`,

- Theorem 3.2 (3.1 when :math:`\\mathcal T^* = \\mathcal S`):
  :math:`\\epsilon (Q_S)_S \\to \\mathrm{Exp}(1)\\,(p_S/p_{\\mathcal T^*}\\,1\\{S\\in\\mathcal T^*\\})_S`;
  its Laplace transform is (22)-(23), :math:`(1 + \\sum_{S\\in\\mathcal T^*} t_S p_S/p_{\\mathcal T^*})^{-1}`;
- Corollary 3.1: :math:`\\epsilon (R_n)_n \\to \\mathrm{Exp}(1)\\,(q_n)_n`,
  :math:`q_n = \\sum_{S\\in\\mathcal T^*, n\\in S} p_S/p_{\\mathcal T^*}`;
- Corollary 3.2: :math:`\\epsilon V_S, \\epsilon W_S` converge to an exponential for
  :math:`S\\in\\mathcal T^*` and to 0 otherwise; the prelimit Laplace transforms follow
  from the distributional Little law (32), :math:`G_{Q_S}(z) = \\mathcal L_{V_S}(\\lambda_S(1-z))`.
  **Erratum**: the limit's mean is :math:`1/\\mu_{\\mathcal T^*} = \\rho_{\\mathcal T^*}/p_{\\mathcal T^*}`,
  not :math:`\\rho_{\\mathcal T^*}` as printed. Substituting :math:`t_S = s/\\lambda_S` in (22)
  gives :math:`(1 + s\\,p_S/(p_{\\mathcal T^*}N\\lambda^* p_S))^{-1} = (1+s/\\mu_{\\mathcal T^*})^{-1}`;
  the two agree when :math:`\\mathcal T^* = \\mathcal S` (then both are :math:`1/(N\\mu)`);
- Appendix D: the types outside :math:`\\mathcal T^*` on the servers outside
  :math:`\\bigcup\\mathcal T^*` form a *truncated system*, stable at :math:`\\lambda^*`
  (Lemma D.1), whose unscaled counts are the limit of those of the full system
  (Theorem D.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..validation import check_array, check_integer, check_real
from .model import RedundancySystem
from .productform import pgf
from .stability import CriticalSubset, check_arrival_rate, critical_subset, require_stable

__all__ = [
    "HeavyTrafficLimit",
    "heavy_traffic_limit",
    "limit_laplace",
    "scaled_laplace",
    "sojourn_laplace",
    "limit_sojourn_laplace",
    "TruncatedSystem",
    "truncated_system",
]


@dataclass(frozen=True)
class HeavyTrafficLimit:
    """The limit objects of Theorem 3.2 and Corollaries 3.1, 3.2.

    Attributes
    ----------
    critical : CriticalSubset
    type_weights : ndarray, shape (K,)
        :math:`p_S / p_{\\mathcal T^*}` on :math:`\\mathcal T^*`, 0 elsewhere (Theorem 3.2).
    server_weights : ndarray, shape (N,)
        :math:`q_n` of Corollary 3.1.
    delay_scale : float
        Mean of the limit of the scaled sojourn and waiting times (Corollary 3.2, corrected):
        :math:`1/\\mu_{\\mathcal T^*}`.
    paper_delay_scale : float
        The printed :math:`\\rho_{\\mathcal T^*} = p_{\\mathcal T^*}/\\mu_{\\mathcal T^*}` (equal to
        ``delay_scale`` iff :math:`p_{\\mathcal T^*} = 1`).
    """

    critical: CriticalSubset
    type_weights: np.ndarray
    server_weights: np.ndarray
    delay_scale: float
    paper_delay_scale: float


def heavy_traffic_limit(system: RedundancySystem) -> HeavyTrafficLimit:
    """Theorem 3.2's limit vector, Corollary 3.1's :math:`q_n` and Corollary 3.2's scale.

    Raises ParameterError when the critical subset is not unique (Theorem 3.2 assumes it is).
    """
    crit = critical_subset(system)
    if not crit.unique:
        raise ParameterError("the critical subset is not unique (the load vector hits a corner of the "
                             "capacity region); Theorem 3.2 assumes a unique maximiser of the capacity ratio")
    weights = np.zeros(system.n_types)
    idx = list(crit.types)
    weights[idx] = system.probabilities[idx] / crit.p_critical
    q = system.compatibility.T.astype(float) @ weights
    return HeavyTrafficLimit(crit, weights, q, 1.0 / crit.mu_critical, crit.ratio)


def limit_laplace(system: RedundancySystem, t) -> float:
    """(23): :math:`E[\\exp(-\\sum_S t_S X_S)] = (1 + \\sum_{S\\in\\mathcal T^*} t_S p_S/p_{\\mathcal T^*})^{-1}`."""
    t = check_array("t", t, shape=(system.n_types,), low=0.0)
    lim = heavy_traffic_limit(system)
    return float(1.0 / (1.0 + lim.type_weights @ t))


def scaled_laplace(system: RedundancySystem, lam: float, t, mechanism: str = "coc") -> float:
    """Prelimit (22): :math:`E[\\exp(-(1-\\lambda/\\lambda^*)\\sum_S t_S Q_S)]`, exact by the DP.

    For c.o.s. the counts are the waiting jobs :math:`\\tilde Q_S` (as in (54)-(56));
    the jobs in service (at most N) do not matter after scaling, eq. (55).
    """
    lam = check_arrival_rate(lam)
    require_stable(system, lam)
    t = check_array("t", t, shape=(system.n_types,), low=0.0)
    eps = 1.0 - lam / critical_subset(system).critical_load
    return pgf(system, lam, np.exp(-eps * t), mechanism)


def sojourn_laplace(system: RedundancySystem, lam: float, type_index: int, s: float,
                    mechanism: str = "coc") -> float:
    """Laplace transform of the scaled sojourn (c.o.c.) or waiting (c.o.s.) time of type S at s.

    Distributional Little law (32) and [38, Thm. 2]: jobs of one type leave (c.o.c.) or
    enter service (c.o.s.) in arrival order, so
    :math:`\\mathcal L_{\\epsilon V_S}(s) = G_{Q_S}(1 - \\epsilon s/\\lambda_S)` with
    :math:`\\lambda_S = N\\lambda p_S`, and likewise :math:`W_S` with :math:`\\tilde Q_S`.
    """
    lam = check_arrival_rate(lam)
    require_stable(system, lam)
    k = check_integer("type_index", type_index, low=0, high=system.n_types - 1)
    s = check_real("s", s, low=0.0)
    eps = 1.0 - lam / critical_subset(system).critical_load
    rate = system.n_servers * lam * system.probabilities[k]
    z = np.ones(system.n_types)
    z[k] = 1.0 - eps * s / rate
    if z[k] < 0:
        raise ParameterError(f"`s` = {s} too large for this load: need s <= lambda_S / (1 - lam/lam*)")
    return pgf(system, lam, z, mechanism)


def limit_sojourn_laplace(system: RedundancySystem, type_index: int, s: float) -> float:
    """Corollary 3.2's limit (corrected): :math:`(1+s/\\mu_{\\mathcal T^*})^{-1}` on :math:`\\mathcal T^*`, else 1."""
    lim = heavy_traffic_limit(system)
    k = check_integer("type_index", type_index, low=0, high=system.n_types - 1)
    s = check_real("s", s, low=0.0)
    return 1.0 / (1.0 + lim.delay_scale * s) if k in lim.critical.types else 1.0


@dataclass(frozen=True)
class TruncatedSystem:
    """Appendix D's truncated system.

    Attributes
    ----------
    system : RedundancySystem
        Types :math:`S\\setminus\\bigcup\\mathcal T^*` for :math:`S\\notin\\mathcal T^*`, on the
        servers outside :math:`\\bigcup\\mathcal T^*` (renumbered from 0), probabilities
        renormalised to :math:`p_S/p_{\\mathcal S\\setminus\\mathcal T^*}`.
    load : float
        Per-server load of the truncated system that keeps every type's arrival rate
        :math:`N\\lambda^* p_S`: :math:`N\\lambda^* p_{\\mathcal S\\setminus\\mathcal T^*}/N'`.
    type_map : tuple of int
        For each truncated type, the index of the original type it comes from.
    servers : tuple of int
        Original indices of the truncated system's servers.
    """

    system: RedundancySystem
    load: float
    type_map: tuple[int, ...]
    servers: tuple[int, ...]


def truncated_system(system: RedundancySystem, lam: float | None = None) -> TruncatedSystem:
    """The truncated system of Appendix D at load `lam` (default :math:`\\lambda^*`)."""
    lim = heavy_traffic_limit(system)
    crit = lim.critical
    lam = crit.critical_load if lam is None else check_arrival_rate(lam)
    critical_servers = set(crit.servers)
    rest = [k for k in range(system.n_types) if k not in crit.types]
    if not rest:
        raise ParameterError("every type is critical (T* = S): the truncated system is empty")
    servers = tuple(n for n in range(system.n_servers) if n not in critical_servers)
    renumber = {n: i for i, n in enumerate(servers)}
    types, probs, labels = [], [], []
    for k in rest:
        sub = [renumber[n] for n in system.types[k] if n not in critical_servers]
        types.append(sub)
        probs.append(system.probabilities[k])
        labels.append(system.labels[k])
    p_rest = float(sum(probs))
    truncated = RedundancySystem(system.speeds[list(servers)], types, np.array(probs) / p_rest, tuple(labels))
    load = system.n_servers * lam * p_rest / len(servers)
    return TruncatedSystem(truncated, load, tuple(rest), servers)
