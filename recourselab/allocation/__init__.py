"""allocation"""

from . import engine
from .engine import *  # noqa: F401,F403

__all__ = engine.__all__
