"""RecourseLab: algorithmic recourse and counterfactual fairness auditing, tested.

The package behind the RecourseLab book. Each module implements one chapter's
method; ``features`` (FeatureSpec, Encoder) and ``datasets`` are the shared
foundation every chapter uses.
"""

__version__ = "0.1.0"

from .adapters import EncodedModel
from .datasets import Dataset, load_adult, load_german_credit
from .features import Encoder, FeatureSpec

__all__ = [
    "__version__",
    "Dataset",
    "EncodedModel",
    "Encoder",
    "FeatureSpec",
    "load_adult",
    "load_german_credit",
]
