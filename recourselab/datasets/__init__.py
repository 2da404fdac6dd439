"""Data sets used in the book, shipped offline, each with its feature specifications.

Real data (raw UCI files, gzip-compressed in ``recourselab/data``; provenance,
licences and checksums in ``recourselab/data/PROVENANCE.md``):

* :func:`load_german_credit` — Statlog German Credit, 1,000 applicants;
* :func:`load_adult` — Adult census income, 32,561 people (the UCI training file).

Each loader returns a :class:`Dataset`: a readable frame (category labels, not
codes), the target column (1 = favourable outcome), the protected columns and one
:class:`~recourselab.features.FeatureSpec` per feature column, with the
actionability of FACEGroup's Table 4 :cite:p:`fragkathoulas2025facegroup`.

Synthetic worlds (simulated from known structural causal models, so that true
counterfactuals are available; each returns a ``SyntheticWorld``):

* ``make_loan_scm`` — the loan applications of counterfactual situation
  testing :cite:p:`alvarez2023cst`, Section 4.1;
* ``make_law_school`` — law-school admissions after the same paper's
  Section 4.2, calibrated to the LSAC data's group shares and admission rates.

Other simulated data (a ``Dataset`` with a documented generating process):

* ``make_admissions`` — university applicants with a known graduation
  probability, for the allocation chapter;
* ``make_cec_synthetic`` — the 20-feature lending data of the explanation
  consistency chapter (financial, proxy and noise features).
"""

from . import base, real, synthetic
from .base import *  # noqa: F401,F403
from .real import *  # noqa: F401,F403
from .synthetic import *  # noqa: F401,F403

__all__ = base.__all__ + real.__all__ + synthetic.__all__
