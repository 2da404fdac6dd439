"""fair_ranking"""

from . import ranking
from .ranking import *  # noqa: F401,F403

__all__ = ranking.__all__
