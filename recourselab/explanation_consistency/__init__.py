"""Counterfactual explanation consistency (CEC): same outcome, but the same reasoning?

Outcome-fairness criteria such as equalized odds look at *what* a model decides.
Popoola and Sheppard :cite:p:`popoola2026cec` ask *how* it decides: two
applicants from different groups who look alike on the features that should
matter (the *financial* features) may receive the same decision for quite
different reasons. CEC makes this measurable and trainable in four steps, one
module each, and :mod:`~recourselab.explanation_consistency.paper` writes the
paper's algorithms out literally (plain loops, the paper's notation), tested
equal to these engines.

1. **Counterfactual partners by matching** (:func:`match_counterfactuals`,
   the paper's Definition 2 and Algorithm 1; module ``matching``). Each person
   is paired with the most similar real person of the other group *with the
   same true label*; similarity is the Euclidean distance on standardised
   financial features. No causal model is needed, and the partner is a real row.
2. **One shared baseline** (:func:`label_group_baselines`, Principle 1).
   Integrated gradients measure each feature's contribution relative to a
   baseline point. Both members of a pair are explained against the
   *factual's* label-group mean :math:`b_{y,a}`, so that the difference between
   the two groups' averages does not enter the comparison.
3. **The score** (:func:`integrated_gradients`, module ``attributions``;
   :func:`cec_scores` and :func:`regimes`, module ``audit``; Definition 3).
   With :math:`g = \\mathrm{IG}(x; b)` and :math:`\\tilde g = \\mathrm{IG}(\\tilde x; b)`,
   each scaled to unit length, :math:`\\Delta_{\\mathrm{CEC}} = \\tfrac12
   \\lVert \\hat g - \\hat{\\tilde g} \\rVert_2 = \\sin(\\theta / 2) \\in [0, 1]`.
   :func:`regimes` crosses "same prediction?" with "same reasoning?" into the
   paper's four regimes A-D (Table 1); regime B, same decision for different
   reasons, is the one outcome metrics cannot see.
4. **Training for consistency** (:class:`MLPClassifier`, Algorithm 2; modules
   ``mlp`` and ``network``, in JAX). The loss adds to the binary cross-entropy a
   soft equalized-odds penalty and the mean squared CEC score of the matched
   pairs in each minibatch.

:func:`fit_method`, :func:`evaluate_method` and :func:`cross_validate_methods`
(module ``methods``) run the paper's comparison with fairlearn's
outcome-fairness baselines.

Input conventions. Features must be finite numbers (errors name the column);
a DataFrame is read by column name (aligned to the model's columns, or
refused), never by position; labels and group values may not be missing (a
missing group is an error, never a silently dropped row), and a protected
attribute must have exactly two values. Counts (``steps``, ``epochs``,
``batch_size``, ``n_splits``) are integers: a float is rejected even when
whole. Every function that explains a model takes ``favourable=`` (default 1),
the class whose logit is explained.
"""

from . import attributions, audit, matching, methods, mlp, quadrature
from .attributions import *  # noqa: F401,F403
from .audit import *  # noqa: F401,F403
from .matching import *  # noqa: F401,F403
from .methods import *  # noqa: F401,F403
from .mlp import *  # noqa: F401,F403
from .quadrature import *  # noqa: F401,F403

__all__ = (matching.__all__ + quadrature.__all__ + attributions.__all__ + audit.__all__ + mlp.__all__
           + methods.__all__)
