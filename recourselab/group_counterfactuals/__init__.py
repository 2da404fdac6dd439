"""group_counterfactuals"""

from . import burden, graph, selection
from .burden import *  # noqa: F401,F403
from .graph import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403

__all__ = graph.__all__ + selection.__all__ + burden.__all__
