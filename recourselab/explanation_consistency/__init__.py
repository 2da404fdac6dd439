"""explanation_consistency"""

from . import cec
from .cec import *  # noqa: F401,F403

__all__ = cec.__all__
