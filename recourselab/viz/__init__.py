"""The book's figures (one theme, fixed group colours), the chapters' explorers and their kernel-free twins.

* :mod:`~recourselab.viz.theme`: :func:`set_theme`, :func:`group_palette` and the fixed colours;
* :mod:`~recourselab.viz.cost_figures`: recourse costs per group and per feature of a move;
* :mod:`~recourselab.viz.intuition`: one refused applicant in a two-feature world;
* :mod:`~recourselab.viz.graph_figures`: feasibility graphs, connectivity, burden curves and causal DAGs;
* :mod:`~recourselab.viz.audit_figures`: explanation consistency and the five lenses' flags;
* :mod:`~recourselab.viz.explorers`: ipywidgets explorers and :func:`check_explorer`;
* :mod:`~recourselab.viz.twins`: kernel-free Vega-Lite twins (:func:`sweep`, :func:`twin_chart`).

Chapters import it as ``from recourselab import viz as plotting``; every public name is here.
"""

from . import audit_figures, cost_figures, explorers, graph_figures, intuition, theme, twins
from .audit_figures import *  # noqa: F401,F403
from .cost_figures import *  # noqa: F401,F403
from .explorers import *  # noqa: F401,F403
from .graph_figures import *  # noqa: F401,F403
from .intuition import *  # noqa: F401,F403
from .theme import *  # noqa: F401,F403
from .twins import *  # noqa: F401,F403

__all__ = (theme.__all__ + cost_figures.__all__ + intuition.__all__ + graph_figures.__all__ + audit_figures.__all__
           + explorers.__all__ + twins.__all__)
