"""counterfactuals: the "Recourse basics" lesson.

Recourse among observed people (``nearest``: the nearest approved people an
applicant could become, actionable by default), the burden of recourse across
groups (``groups``: costs and coverage curves), recourse to a linear boundary
(``linear``: closed form or MIP, actionable by default with an encoder), the
papers' costs priced by the data's spread (``costs``: Wachter's MAD-scaled L1,
Ustun's percentile shift), and the same algorithms written literally for
reading (``paper``); and recourse for everyone a fitted raw-frame model refuses (``batch``), the
practitioner's one call.
"""

from . import batch, costs, exhaustive, groups, linear, nearest
from .batch import *  # noqa: F401,F403
from .costs import *  # noqa: F401,F403
from .exhaustive import *  # noqa: F401,F403
from .groups import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .nearest import *  # noqa: F401,F403

__all__ = nearest.__all__ + groups.__all__ + linear.__all__ + costs.__all__ + batch.__all__ + exhaustive.__all__
