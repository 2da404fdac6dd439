"""Feature specifications, the encoder, and the one model of actionability.

Every chapter of the book describes its data with a list of :class:`FeatureSpec`
and turns frames into numbers with :class:`Encoder`. The encoder also answers the
question every recourse method asks again and again: *is this move allowed?*
(:meth:`Encoder.feasible`), and *what does it cost?* (:meth:`Encoder.cost`).

Encoding (each block lies in [0, 1] on the data the encoder was fitted on):

* ``continuous``: min-max scaling ``(x - lower) / (upper - lower)``, where
  ``lower``/``upper`` come from the spec or, when absent, from the fitted data;
* ``ordinal``: rank / (number of levels - 1), levels taken from ``order``
  (worst to best), so one step up the order is one equal step in [0, 1];
* ``binary``: 0 for ``order[0]`` and 1 for ``order[1]``;
* ``categorical``: one-hot, one column per category.

Actionability (the seeds' symbols in brackets): ``free`` (-), ``increase`` (↑),
``decrease`` (↓), ``immutable`` (=). A move from ``z`` to ``z'`` is feasible when
every immutable feature keeps its value (its whole one-hot block for a
categorical), no ``increase`` feature goes down and no ``decrease`` feature goes
up. For ordinal and binary features "up" means "later in ``order``".

Feasible is not yet advice. A move shown to a person as *advice* must also be
**actionable** (:meth:`Encoder.actionable`): feasible, every discrete feature at
a whole level (binary, ordinal and categorical features, and continuous columns
of an integer dtype such as age in years), every feature moved only in the
direction its spec lets advice move it (``advise``: a feature may be allowed to
change, e.g. age grows with time, without ever being *recommended*), no
feature moved further than its spec's plausible change (``max_change``, in the
feature's own units), and no feature moved into a level its spec never advises
(``never_advise_levels``, e.g. a missing-value code ``"Unknown"``; a person
already there may stay). A method that cannot meet this returns its result
labelled as a relaxation.
"""

from . import encoder, spec
from .encoder import *  # noqa: F401,F403
from .spec import *  # noqa: F401,F403

__all__ = spec.__all__ + encoder.__all__
