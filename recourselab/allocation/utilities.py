"""The decision maker's utilities :math:`u = S_\\theta(M)` of the paper's two use cases, and their inverses.

* **lending** (Eq. 1): :math:`u = M (w G_1 + G_2) - (1 - M) C w`;
* **admissions** (Eq. 2): :math:`u = M G - C`.

Both increase with the probability :math:`M`, so each has an inverse :math:`S_\\theta^{-1}` that
turns a utility counterfactual into a prediction counterfactual :cite:p:`segal2024luck`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_aligned, check_array, check_number, check_probabilities
from ._checks import check_broadcast, check_utilities, scalar_or_array

__all__ = [
    "lending_utility",
    "lending_probability",
    "admission_utility",
    "admission_probability",
    "LendingUtility",
    "AdmissionUtility",
]


def _lending_params(G1, G2, C):
    """G1 and C are fractions of the credit (in [0, 1]); G2 is any finite number."""
    return (check_number(G1, "G1", minimum=0.0, maximum=1.0), check_number(G2, "G2"),
            check_number(C, "C", minimum=0.0, maximum=1.0))


def _lending_slope(credit, G1, G2, C) -> np.ndarray:
    """dS/dm = credit * (G1 + C) + G2; it must be > 0 for every applicant (S increasing, so invertible)."""
    credit = check_array(credit, "credit", ndim=None, minimum=0.0)
    slope = credit * (G1 + C) + G2
    if (slope <= 0).any():
        i = int(np.flatnonzero(np.ravel(slope <= 0))[0])
        raise ValueError(
            f"credit*(G1 + C) + G2 = {np.ravel(slope)[i]:g} <= 0 for credit[{i}]={np.ravel(credit)[i]:g} "
            f"(G1={G1:g}, G2={G2:g}, C={C:g}): the utility does not increase with the repayment probability, "
            "so it cannot be inverted; use G2 > 0 or a larger G1 + C."
        )
    return credit, slope


def lending_utility(m, credit, G1, G2, C):
    """The lender's expected utility of granting a loan (the paper's Eq. 1).

    .. math:: u = M\\,(w G_1 + G_2) - (1 - M)\\, C w = M\\,(w (G_1 + C) + G_2) - C w

    with :math:`M` the probability of repayment, :math:`w` the credit, :math:`G_1`
    the profit as a fraction of the credit, :math:`G_2` the social value of a
    loan and :math:`C` the fraction lost on a default.

    Parameters
    ----------
    m : float or array
        Probability of repayment, in [0, 1].
    credit : float or array (broadcast with ``m``)
        Requested credit (>= 0).
    G1, C : float in [0, 1]
    G2 : float
        The slope :math:`w (G_1 + C) + G_2` must be positive for every credit,
        otherwise ``ValueError`` (the utility would not be invertible).

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> lending_utility([0.8, 0.7, 0.6, 0.5], [4, 3, 2, 1], G1=0.05, G2=1, C=0.2).round(3).tolist()
    [0.8, 0.625, 0.5, 0.425]
    """
    check_aligned(m, "m", credit=credit)
    G1, G2, C = _lending_params(G1, G2, C)
    credit, slope = _lending_slope(credit, G1, G2, C)
    m = check_probabilities(m, "m", ndim=None)
    check_broadcast("m", m, "credit", credit)
    return scalar_or_array(m * slope - C * credit)


def lending_probability(v, credit, G1, G2, C):
    """Inverse of :func:`lending_utility`: the repayment probability that gives utility ``v``.

    .. math:: m = S^{-1}(v) = \\frac{v + C w}{w (G_1 + C) + G_2}

    Values above 1 mean that no probability is enough; ``inf`` stays ``inf``.

    Examples
    --------
    >>> round(lending_probability(1.05, 4, G1=0.05, G2=1, C=0.2), 6)   # the paper's applicant 1
    0.925
    """
    check_aligned(v, "v", credit=credit)
    G1, G2, C = _lending_params(G1, G2, C)
    credit, slope = _lending_slope(credit, G1, G2, C)
    v = check_utilities(v, "v")
    check_broadcast("v", v, "credit", credit)
    return scalar_or_array((v + C * credit) / slope)


def _admission_params(G, C):
    G, C = check_number(G, "G"), check_number(C, "C", minimum=0.0)
    if G <= 0:
        raise ValueError(f"G={G:g} must be > 0: with G <= 0 the utility M*G - C does not increase with M, "
                         "so it cannot be inverted.")
    return G, C


def admission_utility(m, G, C):
    """The institution's expected utility of admitting a student (the paper's Eq. 2).

    .. math:: u = M (G - C) + (1 - M)(-C) = M G - C

    with :math:`M` the probability of graduating (in [0, 1]), :math:`G > 0` the
    gain of a graduate and :math:`C \\ge 0` the cost of a student.

    Examples
    --------
    >>> admission_utility([0.8, 0.7, 0.6, 0.5], G=1, C=0.6).round(3).tolist()
    [0.2, 0.1, 0.0, -0.1]
    """
    G, C = _admission_params(G, C)
    return scalar_or_array(check_probabilities(m, "m", ndim=None) * G - C)


def admission_probability(v, G, C):
    """Inverse of :func:`admission_utility`: :math:`m = (v + C) / G`.

    Examples
    --------
    >>> round(admission_probability(0.1, G=1, C=0.6), 6)
    0.7
    """
    G, C = _admission_params(G, C)
    return scalar_or_array((check_utilities(v, "v") + C) / G)


@dataclass(frozen=True)
class LendingUtility:
    """The lending utility of Eq. 1 with fixed parameters (see :func:`lending_utility`).

    Parameters
    ----------
    G1 : float in [0, 1]
        Profit as a fraction of the credit.
    G2 : float
        Social value of granting a loan.
    C : float in [0, 1]
        Fraction of the credit lost when the loan is not repaid.

    Examples
    --------
    >>> u = LendingUtility(G1=0.05, G2=1, C=0.2)
    >>> u.value([0.8, 0.7], [4, 3]).round(3).tolist()
    [0.8, 0.625]
    >>> round(u.probability(1.05, 4), 6)
    0.925
    """

    G1: float
    G2: float
    C: float

    def __post_init__(self):
        G1, G2, C = _lending_params(self.G1, self.G2, self.C)
        if G2 <= 0 and G1 + C == 0:
            raise ValueError(f"G1 + C = 0 and G2={G2:g} <= 0: the utility never increases with the repayment "
                             "probability; use G2 > 0 or G1 + C > 0.")
        for name, value in (("G1", G1), ("G2", G2), ("C", C)):
            object.__setattr__(self, name, value)

    def value(self, m, weights):
        """Utility of each applicant with probability ``m`` and credit ``weights``."""
        if weights is None:
            raise TypeError("weights=None; the lending utility needs each applicant's credit.")
        return lending_utility(m, weights, self.G1, self.G2, self.C)

    def probability(self, v, weights):
        """The probability giving utility ``v`` to an applicant asking for ``weights``."""
        if weights is None:
            raise TypeError("weights=None; the lending utility needs each applicant's credit.")
        return lending_probability(v, weights, self.G1, self.G2, self.C)


@dataclass(frozen=True)
class AdmissionUtility:
    """The admissions utility of Eq. 2 with fixed parameters (see :func:`admission_utility`).

    Parameters
    ----------
    G : float > 0
        Gain of a student who graduates.
    C : float >= 0
        Cost of every admitted student.

    ``weights`` is accepted by the methods for a common interface and ignored.

    Examples
    --------
    >>> u = AdmissionUtility(G=2, C=1)   # the paper's experiment: positive utility iff M > 0.5
    >>> u.value([0.4, 0.5, 0.75]).round(3).tolist()
    [-0.2, 0.0, 0.5]
    """

    G: float
    C: float

    def __post_init__(self):
        G, C = _admission_params(self.G, self.C)
        object.__setattr__(self, "G", G)
        object.__setattr__(self, "C", C)

    def value(self, m, weights=None):
        """Utility of each applicant with graduation probability ``m``."""
        return admission_utility(m, self.G, self.C)

    def probability(self, v, weights=None):
        """The graduation probability giving utility ``v``."""
        return admission_probability(v, self.G, self.C)
