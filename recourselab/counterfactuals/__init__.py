"""counterfactuals: the "Recourse basics" lesson.

* :mod:`.nearest`: the nearest approved people an applicant could become (actionable by default);
* :mod:`.groups`: the burden of recourse across groups (coverage curves);
* :mod:`.linear`: recourse to a linear boundary (closed form or MIP; actionable by default with an encoder);
* :mod:`.paper`: the same algorithms written literally, for reading.
"""

from . import groups, linear, nearest
from .groups import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .nearest import *  # noqa: F401,F403

__all__ = nearest.__all__ + groups.__all__ + linear.__all__
