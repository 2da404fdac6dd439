"""Quadrature rules for the integrated-gradients path integral over [0, 1]."""

from __future__ import annotations

import functools

import numpy as np

from ._inputs import check_steps

__all__ = ["IG_RULES", "ig_quadrature"]

#: The quadrature rules for the integrated-gradients path integral (see :func:`ig_quadrature`).
IG_RULES = ("riemann", "gauss-legendre", "trapezoid")


def check_rule(rule, name: str = "rule") -> str:
    """One of :data:`IG_RULES` (any case)."""
    if not isinstance(rule, str) or rule.lower() not in IG_RULES:
        raise ValueError(f"{name}={rule!r} is not a quadrature rule; use one of {IG_RULES} ('riemann' is the "
                         "paper's midpoint sum, 'gauss-legendre' needs the fewest points on smooth paths).")
    return rule.lower()


@functools.lru_cache(maxsize=None)
def quadrature(steps: int, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """Positions and weights of a rule (validated arguments; read-only arrays, cached)."""
    if rule == "riemann":
        alphas = (np.arange(steps) + 0.5) / steps
        weights = np.full(steps, 1.0 / steps)
    elif rule == "gauss-legendre":
        nodes, w = np.polynomial.legendre.leggauss(steps)
        alphas, weights = (nodes + 1.0) / 2.0, w / 2.0
    else:  # trapezoid
        if steps < 2:
            raise ValueError(f"steps={steps} is too few for the trapezoid rule, which needs both ends of the path: "
                             "give steps >= 2.")
        alphas = np.linspace(0.0, 1.0, steps)
        weights = np.full(steps, 1.0 / (steps - 1))
        weights[[0, -1]] /= 2.0
    alphas.setflags(write=False)
    weights.setflags(write=False)
    return alphas, weights


def ig_quadrature(steps: int = 32, rule: str = "riemann") -> tuple[np.ndarray, np.ndarray]:
    """Path positions and weights of a quadrature rule for the integrated-gradients integral over [0, 1].

    Integrated gradients approximate :math:`\\int_0^1 \\partial_j f(b + \\alpha (x - b))\\, d\\alpha` by
    :math:`\\sum_k w_k\\, \\partial_j f(b + \\alpha_k (x - b))`. The rules:

    * ``"riemann"``: the midpoint rule, :math:`\\alpha_k = (k - \\tfrac12)/T`, :math:`w_k = 1/T` (the paper's
      sum, under our reading: the paper gives the integral and T, not the rule). Error :math:`O(T^{-2})` on a
      smooth path, :math:`O(T^{-1})` where the gradient jumps.
    * ``"gauss-legendre"``: the T Gauss-Legendre nodes mapped to [0, 1]; exact for polynomials of degree
      :math:`2T - 1`, so on a smooth (analytic) path the error falls geometrically in T. A ReLU network's
      gradient is piecewise constant along the path, where no rule beats :math:`O(T^{-1})` in the worst
      case; ``benchmarks/cec.py`` measures what each rule gives on trained networks.
    * ``"trapezoid"``: T equally spaced points including both ends (T >= 2), end weights halved.

    Parameters
    ----------
    steps : int, default 32
        Number of path points T.
    rule : {"riemann", "gauss-legendre", "trapezoid"}, default "riemann"

    Returns
    -------
    alphas, weights : ndarray of shape (T,)
        Positions in [0, 1] and weights that sum to 1 (read-only arrays).

    Examples
    --------
    >>> alphas, weights = ig_quadrature(2, "gauss-legendre")
    >>> [round(float(a), 4) for a in alphas], [float(w) for w in weights]
    ([0.2113, 0.7887], [0.5, 0.5])
    """
    return quadrature(check_steps(steps), check_rule(rule))
