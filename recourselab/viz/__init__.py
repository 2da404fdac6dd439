"""viz"""

from . import plotting, widgets
from .plotting import *  # noqa: F401,F403
from .widgets import *  # noqa: F401,F403

__all__ = plotting.__all__ + widgets.__all__
