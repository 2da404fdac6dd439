"""Situation testing (ST), counterfactual situation testing (CST) and counterfactual fairness (CF).

The lesson's package: the distance of the paper's Eq. (6) as an L1 distance (``distance``), the
control and test groups of every complainant (``neighbours``), the proportions, the Wald interval
and the flags (``testing``), and the paper's algorithm written literally, per complainant
(``paper``, not re-exported: its names are the paper's).
"""

from . import distance, neighbours, paper, testing  # noqa: F401 (paper: the literal algorithm)
from .distance import *  # noqa: F401,F403
from .neighbours import *  # noqa: F401,F403
from .testing import *  # noqa: F401,F403

__all__ = distance.__all__ + neighbours.__all__ + testing.__all__
