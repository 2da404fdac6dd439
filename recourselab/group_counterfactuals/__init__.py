"""Group counterfactuals on a feasibility graph: FACE and FACEGroup.

The lesson's package: the feasibility graph and FACE's individual counterfactuals
(modules ``graph``, ``epsilon``, ``face``), FACEGroup's two selection problems
(``selection``), its burden metrics (``burden``, ``auc``), and the papers'
algorithms written literally (``paper``, not re-exported: its names are the
papers').
"""

from . import auc, burden, epsilon, face, graph, paper, selection  # noqa: F401 (paper: the literal algorithms)
from .auc import *  # noqa: F401,F403
from .burden import *  # noqa: F401,F403
from .epsilon import *  # noqa: F401,F403
from .face import *  # noqa: F401,F403
from .graph import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403

__all__ = graph.__all__ + epsilon.__all__ + face.__all__ + selection.__all__ + burden.__all__ + auc.__all__
