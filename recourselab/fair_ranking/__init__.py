"""fair_ranking: the "Recourse-aware fair ranking" lesson (RAGUEL, :cite:t:`haldar2022raguel`).

RAGUEL ranks records by their **recourse cost** (the weighted distance to the
favourable side of a linear classifier) and re-ranks them so that every prefix
of the list represents the protected group fairly, by suggesting small,
readable modifications (one attribute at a time, cheapest recourse weight
first) that move under-represented records up. The modules:

* ``paper``: the paper's algorithms written literally, for reading (RAGUEL's
  Algorithm 1 and RAGUEL-Block's Algorithm 2, Definitions 3.1 and Eq. 1, the
  ranking metrics, FA*IR's table and re-ranking);
* ``fairness``: fair representation of a set and of a ranking, and the recourse
  fairness ratio rho (Definitions 3.1-3.4);
* ``reranking`` and ``block``: the engines of Algorithms 1 and 2 (tested equal to
  ``paper``); ``rerank``: RAGUEL's walk on given per-row costs;
* ``metrics``: rND, rKL, rRD :cite:p:`yang2017measuring`; ``fair``: FA*IR
  :cite:p:`zehlike2017fair`.

**Reading of the lost formulas** (the book's design, §5). A set or prefix
:math:`S` represents a protected group fairly when
:math:`|p_S - p| \\le \\alpha` with :math:`\\alpha = p\\,t` for a tolerance
:math:`t \\in (0, 1]` (default 1/3: with :math:`p = 30\\%` the band is
30 % ± 10 %), where :math:`p` is the group's share in the **whole population**.
The recourse fairness ratio is
:math:`\\rho = \\min_g \\mu_g / \\max_g \\mu_g` over the groups' mean recourse
costs, and group-level recourse fairness is :math:`\\rho \\ge 1 - \\beta`.
Comparisons of a share with its band use a slack of 1e-9, so that 4 of 10
lies inside 30 % ± 10 % despite rounding.

**Costs** are those of the paper's Example 1: with a linear classifier
:math:`f(x) = a^\\top x + b` (favourable when :math:`f(x) \\ge 0`) and recourse
weights :math:`w`, the cost of an unfavourable row is the weighted Euclidean
length of its cheapest move to the favourable side that the actionability box
allows (the closed form of :func:`~recourselab.counterfactuals.linear_recourse`
with ``actionable=False``). Without binding bounds this is the distance to the
hyperplane,

.. math:: \\operatorname{cost}(x) = \\frac{\\max(0, -(a^\\top x + b))}
          {\\sqrt{\\sum_{j \\text{ mutable}} a_j^2 / w_j}} ,

and 0 on the favourable side. It is a **relaxation** (features may stop
between levels, and advice directions and caps are not enforced): the ranking
and rho rest on it, and the results say so (``cost_basis``). The
**modifications** RAGUEL suggests are actionable advice by default with an
encoder (whole levels and units, advised directions, within each spec's
``max_change``), and labelled (``advice``). Rows that no allowed move brings
to the favourable side (cost inf) have no mean cost, so RAGUEL refuses them
with a message saying how to set them aside.
"""

from . import block, fair, fairness, metrics, paper, rerank, reranking, results  # noqa: F401  (paper: for reading)
from .block import *  # noqa: F401,F403
from .fair import *  # noqa: F401,F403
from .fairness import *  # noqa: F401,F403
from .metrics import *  # noqa: F401,F403
from .rerank import *  # noqa: F401,F403
from .reranking import *  # noqa: F401,F403
from .results import *  # noqa: F401,F403

__all__ = (fairness.__all__ + results.__all__ + reranking.__all__ + block.__all__ + rerank.__all__ + metrics.__all__
           + fair.__all__)
