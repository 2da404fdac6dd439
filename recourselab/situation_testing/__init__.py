"""situation_testing"""

from . import testing
from .testing import *  # noqa: F401,F403

__all__ = testing.__all__
