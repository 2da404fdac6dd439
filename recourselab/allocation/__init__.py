"""Recourse in binary allocation problems: policies, counterfactuals and rho-robust recourse.

A *binary allocation problem* :math:`\\langle r, X, U \\rangle` gives a resource
of size :math:`r` (a budget, a number of study places) to some of :math:`n`
applicants; applicant :math:`i` asks for :math:`w_i` units and is worth the
individual utility :math:`v_i = u(x_i) = S_\\theta(M(x_i))` to the decision
maker, where :math:`M` is a prediction model (the probability of success) and
:math:`S_\\theta` an increasing function :cite:p:`segal2024luck`. The
decision maker's utility is separable, :math:`U(Y) = \\sum_{i: y_i = 1} v_i`,
and the policy picks the allocation :math:`Y \\in \\{0, 1\\}^n`:

* **lending** (Eq. 1): :math:`u = M (w G_1 + G_2) - (1 - M) C w` with the
  optimal 0-1 :func:`knapsack` policy over the requested credits;
* **admissions** (Eq. 2): :math:`u = M G - C`, one slot each, and the
  :func:`greedy` policy.

Being refused here says little about the model alone: it depends on the budget
and on everyone else. The package follows the paper's pipeline from the decision
back to the features (Section 5): the minimal **utility counterfactual**
:func:`utility_ce`, the **prediction counterfactual** :func:`prediction_ce`
(:math:`m' = S_\\theta^{-1}(v')`) and a **feature counterfactual**
:func:`feature_ce` among candidate profiles, actionable by default. Because
budgets change from one round to the next, Section 6 turns the counterfactual
into **recourse** that stays valid for a share :math:`\\rho` of future budgets:
:func:`robust_recourse` (Algorithm 1, on a matrix of prediction counterfactuals
from :func:`prediction_ce_matrix`), the general Monte-Carlo form
:func:`monte_carlo_recourse`, the perturbation baseline :func:`noisy_recourse`,
:func:`validity`, and :func:`robustness_experiment`, which runs the design of
the paper's Table 3.

Modules: ``paper`` (the paper's algorithms written literally, for reading;
:func:`utility_ce_naive` is exported from it), ``utilities``, ``policies``,
``explanations`` (utility and prediction counterfactuals), ``robust``,
``experiments`` (refusals and Table 3) and ``advice`` (feature counterfactuals).

Input conventions. Probabilities (``m``, ``proba``, ``m_i``, the samplers'
``others_proba``) must lie in [0, 1] and be finite; shares and levels
(``rho``, ``rhos``, ``p``, ``ps``) lie in [0, 1]. A *prediction
counterfactual* :math:`m'` may exceed 1 or be ``inf`` (no probability is enough;
the paper keeps such values), but it is never NaN or negative. Counts, row
positions and seeds (``n_samples``, ``index``, ``candidates``, ``problems``,
``random_state``) must be Python or numpy integers: floats are refused even
when whole, never truncated, and an applicant appears at most once in a round.
Amounts of the resource (``weights``, ``capacity``, ``capacities``) are data in
whole units: an int, or a float with a whole value such as ``6.0``; ``2.5`` is
refused.
"""

from . import advice, experiments, explanations, policies, robust, utilities
from .advice import *  # noqa: F401,F403
from .experiments import *  # noqa: F401,F403
from .explanations import *  # noqa: F401,F403
from .paper import utility_ce_naive
from .policies import *  # noqa: F401,F403
from .robust import *  # noqa: F401,F403
from .utilities import *  # noqa: F401,F403

__all__ = (utilities.__all__ + policies.__all__ + explanations.__all__ + ["utility_ce_naive"] + advice.__all__
           + robust.__all__ + experiments.__all__)
