"""counterfactuals"""

from . import recourse
from .recourse import *  # noqa: F401,F403

__all__ = recourse.__all__
