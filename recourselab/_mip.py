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
import os
import signal
import subprocess
import tempfile
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
    stops solving once :attr:`expired`, keeping its best solution so far.
    Model builders look at the deadline while they add constraints, and
    :func:`solve` counts the time to write the model and stops an overrunning
    CBC, so the whole call ends within about ``1.1 seconds + 2``.
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


# CBC checks its -sec limit only between the steps of its search; on some models it spends minutes
# in one step (seen: 7 min under a 3 s limit). Past the limit plus this grace it is interrupted,
# and killed if it has not written its answer GRACE seconds later.
GRACE = 1.0


def _grace(time_limit: float) -> float:
    return max(GRACE, 0.1 * time_limit)


def _run_cbc(args: list, time_limit: float) -> int:
    """Run CBC, interrupting it (SIGINT: stop and write the best solution), then killing it, if it overruns.

    Returns its exit code (negative: the signal that ended it).
    """
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        proc.wait(timeout=time_limit + _grace(time_limit))
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def solve(prob: pulp.LpProblem, time_limit: float) -> tuple[str, bool]:
    """Solve ``prob`` with CBC within ``time_limit`` seconds, counted from this call.

    The model is written to an MPS file and CBC started with the time left;
    CBC gets ``max(1, time_limit / 10)`` seconds of grace past its limit and is
    then interrupted, and killed if it does not answer within another second,
    so the call ends within about ``1.1 time_limit + 2`` seconds however CBC
    behaves.

    Returns
    -------
    status : str
        ``"optimal"`` (proven), ``"time limit"`` (stopped by the limit, or out
        of time before CBC could start) or ``"infeasible"``.
    has_solution : bool
        Whether an integer solution is available (read it from the variables).

    Raises
    ------
    RuntimeError
        For any other end (e.g. unbounded), which the package's models never reach.
    """
    start = clock()
    with warnings.catch_warnings():
        # PuLP 3.x announces its 4.0 API; that is not the reader's concern
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="pulp")
        solver = pulp.PULP_CBC_CMD(msg=False)  # only for the path of the bundled CBC and its answer reader
    with tempfile.TemporaryDirectory(prefix="recourselab-cbc-") as folder:
        model, answer = os.path.join(folder, "model.mps"), os.path.join(folder, "model.sol")
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=DeprecationWarning, module="pulp")
            variables, variable_names, constraint_names, _ = prob.writeMPS(model, rename=1)
        left = time_limit - (clock() - start)  # writing a large model takes time too
        if left <= 0:
            return "time limit", False
        # No "-threads 1": CBC is serial by default, and the bundled CBC given it stalled for
        # exactly 10 s in about 0.3-1% of even tiny solves on our machines.
        args = [solver.path, model, *(["-max"] if prob.sense == pulp.LpMaximize else []),
                "-sec", f"{left:.6g}", "-timeMode", "elapsed", "-solve", "-printingOptions", "all",
                "-solution", answer]
        _run_cbc(args, left)
        if not os.path.exists(answer):  # killed before it wrote anything
            return "time limit", False
        status, values, _, _, _, sol_status = solver.readsol_MPS(answer, prob, variables, variable_names,
                                                                 constraint_names)
    prob.assignVarsVals(values)
    prob.assignStatus(status, sol_status)
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
