"""The book's figures (one theme, fixed group colours), the chapters' explorers and their kernel-free twins.

Modules: ``theme`` (the theme and the fixed colours), ``cost_figures``, ``intuition``, ``graph_figures``,
``audit_figures``, ``explorers`` and ``twins``; every public name is importable from ``recourselab.viz``
(chapters import it as ``from recourselab import viz as plotting``).
"""

from .._extras import require

for _module in ("matplotlib", "seaborn", "ipywidgets", "altair"):  # the extra "book" (pyproject.toml)
    require(_module, "book")

from . import audit_figures, cost_figures, explorers, graph_figures, intuition, theme, twins  # noqa: E402
from .audit_figures import *  # noqa: F401,F403,E402
from .cost_figures import *  # noqa: F401,F403,E402
from .explorers import *  # noqa: F401,F403,E402
from .graph_figures import *  # noqa: F401,F403,E402
from .intuition import *  # noqa: F401,F403,E402
from .theme import *  # noqa: F401,F403,E402
from .twins import *  # noqa: F401,F403,E402

__all__ = (theme.__all__ + cost_figures.__all__ + intuition.__all__ + graph_figures.__all__ + audit_figures.__all__
           + explorers.__all__ + twins.__all__)
