"""PuLP and CBC plumbing shared by the modules that solve MIPs (groupcf, burden, ranking).

Private to the package (not in the API reference): variables that work with
PuLP 2.x and 3.x, one way to call CBC that tells a proven optimum from a run
stopped by its time limit, the warning such a run gives, and a
:class:`Deadline` so that a function solving several MIPs keeps its
``time_limit`` for the whole call rather than for each solve.
"""

from __future__ import annotations

import math
import numbers
import time
import warnings

import pulp

__all__ = ["Deadline", "binary", "check_time_limit", "clock", "continuous", "solve", "time_limit_message"]


def check_time_limit(time_limit) -> float:
    """``time_limit`` as a positive, finite number of seconds (every MIP runs with a limit)."""
    if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real):
        raise TypeError(f"time_limit={time_limit!r} must be a number of seconds.")
    t = float(time_limit)
    if not (t > 0 and math.isfinite(t)):
        raise ValueError(f"time_limit={time_limit!r} must be a positive number of seconds (finite: every MIP "
                         "runs with a limit).")
    return t


def clock() -> float:
    """Seconds on the monotonic clock every :class:`Deadline` reads (tests replace this function)."""
    return time.perf_counter()


class Deadline:
    """A time budget for a whole call that may solve several MIPs one after another.

    Parameters
    ----------
    seconds : float
        The call's ``time_limit`` (> 0), counted from the moment the deadline
        is created.

    Notes
    -----
    A caller gives each solve :meth:`remaining` seconds (CBC's own limit) and
    stops solving once :attr:`expired`, keeping its best solution so far; the
    whole call then ends within ``seconds`` plus one solve's excess: the
    time to build and start the last model, which CBC's limit does not
    count, and CBC's own overrun (it checks the limit only between the steps
    of its search, so the first LP of a large model can take longer).
    """

    def __init__(self, seconds: float):
        self.seconds = float(seconds)
        self.end = clock() + self.seconds

    def remaining(self) -> float:
        """Seconds left before the deadline, never negative."""
        return max(0.0, self.end - clock())

    @property
    def expired(self) -> bool:
        """Whether the deadline has passed (no time left for another solve)."""
        return self.remaining() <= 0.0


def binary(prob: pulp.LpProblem, name: str):
    """A binary variable of ``prob`` named ``name``."""
    if hasattr(prob, "add_variable"):  # PuLP >= 3.3
        return prob.add_variable(name, 0, 1, cat="Binary")
    return pulp.LpVariable(name, 0, 1, cat="Binary")


def continuous(prob: pulp.LpProblem, name: str, low: float):
    """A continuous variable of ``prob`` named ``name`` with lower bound ``low`` (no upper bound)."""
    if hasattr(prob, "add_variable"):
        return prob.add_variable(name, low, None, cat="Continuous")
    return pulp.LpVariable(name, low, None, cat="Continuous")


def solve(prob: pulp.LpProblem, time_limit: float) -> tuple[str, bool]:
    """Solve ``prob`` with CBC within ``time_limit`` seconds.

    Returns
    -------
    status : str
        ``"optimal"`` (proven), ``"time limit"`` (stopped by the limit) or
        ``"infeasible"``.
    has_solution : bool
        Whether an integer solution is available (read it from the variables).

    Raises
    ------
    RuntimeError
        For any other end (e.g. unbounded), which the package's models never reach.
    """
    with warnings.catch_warnings():
        # PuLP 3.x announces its 4.0 API; that is not the reader's concern
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="pulp")
        # No threads=1: CBC is serial by default, and the bundled CBC given "-threads 1" stalled
        # for exactly 10 s in about 0.3-1% of even tiny solves on our machines.
        solver = pulp.PULP_CBC_CMD(msg=False, timeLimit=time_limit)
        prob.solve(solver)
    if prob.sol_status == pulp.LpSolutionOptimal:
        return "optimal", True
    if prob.sol_status == pulp.LpSolutionIntegerFeasible:
        return "time limit", True
    if prob.status == pulp.LpStatusInfeasible or prob.sol_status == pulp.LpSolutionInfeasible:
        return "infeasible", False
    if prob.status == pulp.LpStatusNotSolved:
        return "time limit", False
    raise RuntimeError(f"CBC ended with status {pulp.LpStatus.get(prob.status, prob.status)!r}; "
                       "this model should never be unbounded.")


def time_limit_message(time_limit: float, has_solution: bool) -> str:
    """The warning for a MIP stopped by ``time_limit`` (with or without a solution)."""
    if has_solution:
        return (f"the MIP solver stopped at the time limit (time_limit={time_limit:g} s) before proving "
                "optimality; the result is its best solution so far (status 'time limit'). "
                "Raise time_limit for a proven optimum.")
    return (f"the MIP solver stopped at the time limit (time_limit={time_limit:g} s) without finding an integer "
            "solution; the selection is empty (status 'time limit'). Raise time_limit or use method='greedy'.")
