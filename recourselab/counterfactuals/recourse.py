"""The module path ``recourselab.counterfactuals.recourse`` of earlier versions, kept for the imports that use it.

The code lives in :mod:`.nearest` (nearest counterfactuals among observed
people), :mod:`.groups` (burden across groups) and :mod:`.linear` (recourse to
a linear boundary); import the names from :mod:`recourselab.counterfactuals`.
"""

from .groups import coverage_by_group, recourse_by_group
from .linear import LinearRecourse, linear_recourse
from .nearest import NO_COUNTERFACTUAL, NearestCounterfactuals, describe_changes, nearest_counterfactuals

__all__ = ["NO_COUNTERFACTUAL", "NearestCounterfactuals", "nearest_counterfactuals", "describe_changes",
           "recourse_by_group", "coverage_by_group", "LinearRecourse", "linear_recourse"]
