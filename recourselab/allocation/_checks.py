"""The allocation package's own argument checks, built on :mod:`recourselab._validation`.

Only what is particular to allocation problems lives here: the two policies, requested amounts and
budgets in whole units, utilities that may be ``+inf``, prediction counterfactuals that may exceed 1,
the utility protocol, the levels of an experiment and the applicant positions of a round. Every
primitive (types, NaN, inf, shapes, ranges, positions) is :mod:`recourselab._validation`'s.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import (
    check_array,
    check_choice,
    check_number,
    check_positions,
    check_probabilities,
    check_unit_interval,
)

POLICIES = ("knapsack", "greedy")


def scalar_or_array(out: np.ndarray):
    """A 0-d result as a Python float, an array as it is."""
    return float(out) if out.ndim == 0 else out


def check_policy(policy) -> str:
    return check_choice(policy, "policy", POLICIES)


def check_values(values, name: str = "values") -> np.ndarray:
    """One finite utility per applicant: a non-empty 1-d array."""
    return check_array(values, name, ndim=1, length_of="applicants")


def check_pool(proba, name: str = "proba") -> np.ndarray:
    """One probability per applicant: a non-empty 1-d array in [0, 1]."""
    return check_probabilities(proba, name, ndim=1, length_of="applicants")


def check_weights(weights, n: int, name: str = "weights") -> np.ndarray:
    """Requested amounts: whole units >= 0, one per applicant (``6.0`` is an amount; ``2.5`` is refused)."""
    if weights is None:
        raise TypeError(f"{name}=None; the knapsack policy needs each applicant's requested amount (whole units "
                        ">= 0, e.g. credit in hundreds).")
    w = check_array(weights, name, ndim=1, length=n, minimum=0, integer=True, length_of="applicants")
    return w.astype(np.int64)


def policy_weights(policy: str, weights, n: int, name: str = "weights") -> np.ndarray:
    """Integer weights for the knapsack; ones for the greedy policy (which must not get other weights)."""
    if policy == "knapsack":
        return check_weights(weights, n, name)
    if weights is None:
        return np.ones(n, dtype=np.int64)
    w = check_weights(weights, n, name)
    if (w != 1).any():
        i = int(np.flatnonzero(w != 1)[0])
        raise ValueError(f"{name}[{i}]={w[i]} but the greedy policy gives every applicant one slot; pass {name}=None "
                         "(or all ones), or use policy='knapsack' for requests of different sizes.")
    return w


def check_capacity(capacity, name: str = "capacity") -> int:
    """A budget: one whole number >= 0 (an int, or a whole float such as ``6.0``)."""
    return int(check_array(capacity, name, ndim=0, integer=True, minimum=0))


def check_capacities(capacities, name: str = "capacities") -> np.ndarray:
    """Budgets: a non-empty 1-d array (or one number) of whole numbers >= 0."""
    caps = check_array(capacities, name, ndim=None, integer=True, minimum=0)
    if caps.ndim == 0:
        caps = caps.reshape(1)
    if caps.ndim != 1:
        raise ValueError(f"{name} has shape {caps.shape}; give a 1-d array of budgets.")
    return caps.astype(np.int64)


def check_eps(eps) -> float:
    """The tie-breaking margin: a finite number > 0."""
    return check_number(eps, "eps", minimum=0.0, strict_minimum=True)


def check_utilities(values, name: str) -> np.ndarray:
    """Utilities: finite numbers or ``+inf`` (a counterfactual that can never be met); NaN and ``-inf`` are errors."""
    arr = check_array(values, name, ndim=None, allow_inf=True)
    if (arr == -np.inf).any():
        where = np.argwhere(arr == -np.inf)[0] if arr.ndim else ()
        label = f"{name}[{', '.join(map(str, where))}]" if arr.ndim else name
        raise ValueError(f"{label}=-inf: a utility of -inf has no probability; give finite utilities (or +inf for a "
                         "counterfactual that can never be met).")
    return arr


def check_targets(values, name: str, *, ndim: int | None = None) -> np.ndarray:
    """Prediction counterfactuals m': numbers >= 0; above 1 and ``inf`` are allowed (no probability is enough)."""
    return check_array(values, name, ndim=ndim, allow_inf=True, minimum=0.0)


def check_utility(utility):
    """A utility object: ``value(m, weights)`` and ``probability(v, weights)``."""
    if not (hasattr(utility, "value") and hasattr(utility, "probability")):
        raise TypeError(f"utility must be a LendingUtility, an AdmissionUtility or an object with value(m, weights) "
                        f"and probability(v, weights); got {type(utility).__name__}.")
    return utility


def check_levels(values, name: str) -> tuple:
    """A sequence of distinct levels in [0, 1] (one number is one level)."""
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"{name}={values!r}; give levels in [0, 1] (a number or a sequence).")
    values = (values,) if isinstance(values, numbers.Real) else tuple(values)
    levels = tuple(check_unit_interval(x, name) for x in values)
    duplicated = sorted({f"{x:g}" for x in levels if sum(f"{y:g}" == f"{x:g}" for y in levels) > 1})
    if duplicated:
        raise ValueError(f"{name} repeats the level(s) {duplicated}; each level names a method in the table, so give "
                         "each once.")
    return levels


def check_problems(problems, n: int) -> list:
    """Rounds of applicants: a non-empty sequence of row positions, each applicant at most once per round.

    An applicant listed twice in one round would compete against themselves and be counted twice, so
    repeated positions are an error (``check_positions(..., unique=True)``).
    """
    if problems is None or isinstance(problems, (str, bytes)):
        raise TypeError(f"problems={problems!r}; give a sequence of arrays of applicant row positions.")
    problems = list(problems)
    if not problems:
        raise ValueError("problems is empty; give at least one array of applicant positions.")
    return [check_positions(members, f"problems[{k}]", n, allow_empty=False, unique=True)
            for k, members in enumerate(problems)]


def check_broadcast(name_a: str, a: np.ndarray, name_b: str, b: np.ndarray) -> None:
    """Two arrays used element by element must broadcast (one value per applicant, or one for all)."""
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(f"{name_a} has shape {a.shape} and {name_b} has shape {b.shape}; give one value per "
                         f"applicant in each (or a single number).") from None

