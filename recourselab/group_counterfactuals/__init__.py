"""Group counterfactuals on a feasibility graph: FACE and FACEGroup.

The lesson's package: the feasibility graph and FACE's individual counterfactuals
(:mod:`.graph`, :mod:`.epsilon`, :mod:`.face`), FACEGroup's two selection
problems (:mod:`.selection`), its burden metrics (:mod:`.burden`, :mod:`.auc`),
and the papers' algorithms written literally (:mod:`.paper`, not re-exported:
its names are the papers').
"""

from . import auc, burden, epsilon, face, graph, paper, selection  # noqa: F401 (paper: the literal algorithms)
from .auc import *  # noqa: F401,F403
from .burden import *  # noqa: F401,F403
from .epsilon import *  # noqa: F401,F403
from .face import *  # noqa: F401,F403
from .graph import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403

__all__ = graph.__all__ + epsilon.__all__ + face.__all__ + selection.__all__ + burden.__all__ + auc.__all__
