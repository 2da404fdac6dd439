"""Synthetic worlds with known structural causal models, and the simulated data of two chapters."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Callable

import networkx as nx
import numpy as np
import pandas as pd

from .._validation import check_do, restore_dtype
from ..features import FeatureSpec
from .base import Dataset, _column_names

__all__ = ["SyntheticWorld", "make_loan_scm", "make_law_school", "make_admissions",
           "admissions_graduation_probability", "make_cec_synthetic"]

# --------------------------------------------------------------------------- synthetic worlds
@dataclass(frozen=True, eq=False)
class SyntheticWorld:
    """A simulated data set together with the structural causal model that generated it.

    Because the true structural equations and every row's true exogenous
    noise are known, abduction is exact and :meth:`true_counterfactual`
    gives the ground truth that a fitted
    :class:`~recourselab.scm.AdditiveNoiseSCM` can be checked against.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per individual: protected columns (1 = protected group), the
        decision's input features and the decision column.
    dag : networkx.DiGraph
        Causal graph over the protected and feature columns (the decision is
        not a node: it is a fixed rule of the features).
    protected : str or tuple of str
        Protected attribute columns, coded 1 = protected (one string is one column).
    features : str or tuple of str
        The decision rule's input columns (one string is one column).
    target : str
        The decision column, 1 = favourable.
    noise : pandas.DataFrame
        The true exogenous noise of every non-root variable, per row (same
        index as ``frame``).
    description : str
        The world's equations in words.
    citation : str
        BibTeX key of the paper the world comes from.
    bounds : dict
        Column -> ``(low, high)`` valid range applied to generated values
        (pass it to :class:`~recourselab.scm.AdditiveNoiseSCM`).
    decimals : dict
        Column -> decimals generated values are rounded to (likewise).

    Examples
    --------
    >>> world = make_loan_scm(1000, random_state=0)
    >>> world.protected, world.features, world.target
    (('gender',), ('annual_salary', 'account_balance'), 'loan_approved')
    >>> sorted(world.dag.edges)
    [('annual_salary', 'account_balance'), ('gender', 'account_balance'), ('gender', 'annual_salary')]
    """

    frame: pd.DataFrame
    dag: nx.DiGraph
    protected: tuple
    features: tuple
    target: str
    noise: pd.DataFrame
    description: str = ""
    citation: str = ""
    bounds: dict = field(default_factory=dict)
    decimals: dict = field(default_factory=dict)
    _equations: Callable | None = field(default=None, repr=False)

    def __post_init__(self):
        if not isinstance(self.frame, pd.DataFrame) or not isinstance(self.noise, pd.DataFrame):
            raise TypeError("frame and noise must be pandas DataFrames.")
        object.__setattr__(self, "protected", _column_names(self.protected, "protected"))
        object.__setattr__(self, "features", _column_names(self.features, "features"))
        missing = [c for c in (*self.protected, *self.features, self.target) if c not in self.frame.columns]
        if missing:
            raise ValueError(f"protected, features and target name columns that frame lacks: {missing}.")
        if not self.noise.index.equals(self.frame.index):
            raise ValueError("noise must have the same index as frame (one row of noise per individual).")

    def true_counterfactual(self, do: dict) -> pd.DataFrame:
        """Every column recomputed under the true equations, the true noises held fixed.

        Parameters
        ----------
        do : dict
            Node of ``dag`` -> value (a scalar or one value per row), e.g.
            ``{"gender": 0}``; several nodes may be set at once. Setting a
            non-root node replaces its equation by the value.

        Returns
        -------
        pandas.DataFrame
            Same columns and index as ``frame``; descendants of the
            intervened nodes and the decision column recomputed by the true
            structural equations and the true decision rule (with the same
            rounding and clipping as the factual data).
        """
        if self._equations is None:
            raise ValueError("this world was built without its structural equations; use a generator "
                             "such as make_loan_scm or make_law_school.")
        interventions = check_do(do, self.dag, len(self.frame))
        roots = self.frame[[node for node in self.dag if self.dag.in_degree(node) == 0]]
        columns = self._equations(roots, self.noise, interventions)
        return pd.DataFrame(
            {c: restore_dtype(np.asarray(columns[c], dtype=float), self.frame[c]) for c in self.frame.columns},
            index=self.frame.index,
        )


def _check_world_args(n, random_state) -> np.random.Generator:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"n={n!r} must be an int (the number of individuals to simulate).")
    if n < 10:
        raise ValueError(f"n={n} is too small; simulate at least 10 individuals.")
    if isinstance(random_state, bool) or not isinstance(random_state, (numbers.Integral, np.random.Generator)):
        raise TypeError(
            f"random_state={random_state!r} must be an int seed or a numpy.random.Generator (floats are not "
            "truncated to a seed)."
        )
    if isinstance(random_state, numbers.Integral) and random_state < 0:
        raise ValueError(f"random_state={random_state!r} must be an int >= 0 (a seed for numpy).")
    return np.random.default_rng(random_state)


def _build_world(equations, roots: pd.DataFrame, noise: pd.DataFrame, dtypes: dict, **fields) -> SyntheticWorld:
    columns = equations(roots, noise, {})
    frame = pd.DataFrame({c: np.asarray(v).astype(dtypes[c]) for c, v in columns.items()})
    return SyntheticWorld(frame=frame, noise=noise, _equations=equations, **fields)


# The loan world of Alvarez & Ruggieri (2023), Section 4.1, exactly as printed.
_LOAN_P_FEMALE = 0.45          # A ~ Ber(0.45), 1 = female
_LOAN_SALARY_PENALTY = 1500.0  # X1 <- -1500 * Poi(10) * A + U1
_LOAN_BALANCE_PENALTY = 300.0  # X2 <- -300 * chi2(4) * A + 0.3 * X1 + U2
_LOAN_SALARY_TO_BALANCE = 0.3
_LOAN_U1_SCALE = 10_000.0      # U1 ~ 10000 * Poi(10)
_LOAN_U2_SCALE = 2_500.0       # U2 ~ 2500 * N(0, 1)
_LOAN_CUTOFF = 225_000.0       # Y = 1{X1 + 5 * X2 > 225000}


def _loan_equations(roots, noise, do):
    gender = do["gender"] if "gender" in do else roots["gender"].to_numpy(dtype=float)
    salary = do.get("annual_salary")
    if salary is None:
        salary = -_LOAN_SALARY_PENALTY * noise["salary_penalty_draw"].to_numpy() * gender + noise["u1"].to_numpy()
    balance = do.get("account_balance")
    if balance is None:
        balance = (-_LOAN_BALANCE_PENALTY * noise["balance_penalty_draw"].to_numpy() * gender
                   + _LOAN_SALARY_TO_BALANCE * salary + noise["u2"].to_numpy())
    approved = (salary + 5.0 * balance > _LOAN_CUTOFF).astype(float)
    return {"gender": gender, "annual_salary": salary, "account_balance": balance, "loan_approved": approved}


def make_loan_scm(n: int = 5000, random_state=0) -> SyntheticWorld:
    """The loan-application world of counterfactual situation testing :cite:p:`alvarez2023cst` (Section 4.1).

    Structural equations, exactly as in the paper (A = 1 for women):

    * ``gender`` A ~ Ber(0.45);
    * ``annual_salary`` X1 = -1500 · P1 · A + U1, with P1 ~ Poi(10) and
      U1 ~ 10000 · Poi(10);
    * ``account_balance`` X2 = -300 · P2 · A + 0.3 · X1 + U2, with
      P2 ~ χ²(4) and U2 ~ 2500 · N(0, 1);
    * ``loan_approved`` = 1{X1 + 5 · X2 > 225000} (the bank's rule).

    The gender penalties are random per individual: the draws P1
    (``salary_penalty_draw``) and P2 (``balance_penalty_draw``) are part of
    the true noise next to ``u1`` and ``u2``. They are multiplied by A, so
    under do(gender := 0) they vanish and a woman's true counterfactual is
    X1 = U1, X2 = 0.3 · U1 + U2. A man has penalty draws too: they only act
    under do(gender := 1). On average gender lowers salary by 15,000 and the
    balance by 1,200 directly and 0.3 · 15,000 = 4,500 through salary.

    Parameters
    ----------
    n : int, default 5000
        Number of applicants (at least 10).
    random_state : int or numpy.random.Generator, default 0

    Returns
    -------
    SyntheticWorld

    Examples
    --------
    >>> world = make_loan_scm(5000, random_state=0)
    >>> world.frame.shape
    (5000, 4)
    >>> women = world.frame["gender"] == 1
    >>> rejected = 1 - world.frame["loan_approved"]
    >>> round(float(rejected[women].mean()), 3), round(float(rejected[~women].mean()), 3)
    (0.599, 0.402)
    >>> counterfactual = world.true_counterfactual({"gender": 0})   # had every woman been a man
    >>> round(float(1 - counterfactual.loc[women, "loan_approved"].mean()), 3)
    0.388
    """
    rng = _check_world_args(n, random_state)
    gender = rng.binomial(1, _LOAN_P_FEMALE, size=n)
    noise = pd.DataFrame({
        "salary_penalty_draw": rng.poisson(10, size=n).astype(float),
        "u1": _LOAN_U1_SCALE * rng.poisson(10, size=n),
        "balance_penalty_draw": rng.chisquare(4, size=n),
        "u2": _LOAN_U2_SCALE * rng.standard_normal(size=n),
    })
    dag = nx.DiGraph([("gender", "annual_salary"), ("gender", "account_balance"),
                      ("annual_salary", "account_balance")])
    return _build_world(
        _loan_equations, pd.DataFrame({"gender": gender}), noise,
        {"gender": int, "annual_salary": float, "account_balance": float, "loan_approved": int},
        dag=dag, protected=("gender",), features=("annual_salary", "account_balance"),
        target="loan_approved",
        description=(
            f"Simulated loan applications (n={n}), Alvarez & Ruggieri (2023) Section 4.1: gender (1 = female) "
            "~ Ber(0.45); annual_salary = -1500*Poi(10)*gender + 10000*Poi(10); account_balance = "
            "-300*chi2(4)*gender + 0.3*annual_salary + 2500*N(0,1); loan_approved = "
            "1{annual_salary + 5*account_balance > 225000}."
        ),
        citation="alvarez2023cst",
    )


# The law-school admissions world of Alvarez & Ruggieri (2023), Section 4.2 and Fig. 3.
# How the constants were chosen (from the LSAC law-school data the paper uses, 21,790 applicants,
# read once to calibrate; the data is not shipped):
# * shares: 43.8% women and 16.1% non-white applicants, as in the data and the paper;
# * UGPA: ordinary least squares of UGPA on (female, non-white) gives 3.21 + 0.13*female
#   - 0.22*nonwhite with residual sd 0.40; kept as fitted. The data records UGPA to one decimal,
#   so UGPA is rounded to 0.1 and clipped to [0, 4];
# * LSAT: least squares gives 37.8 - 0.6*female - 4.6*nonwhite with residual sd 5.2. Admission
#   depends only on the top ~2% of scores, where the data's groups differ more in spread than in
#   mean (non-white applicants: sd 6.4 against 4.9), which a homoskedastic additive-noise equation
#   cannot copy: with the fitted shifts the simulated non-white admission rate falls to 0.2%.
#   We therefore adjusted the LSAT intercept, shifts and noise sd on a grid (simulating 435,800
#   applicants per setting) to reproduce the paper's admission rates - 1.88% of women vs 2.65% of
#   men, 0.94% of non-white vs 2.58% of white applicants - giving 37.6 - 1.1*female - 1.6*nonwhite
#   with noise sd 5.1 (overall LSAT mean 36.8 and sd 5.1, against 36.8 and 5.4 in the data).
#   LSAT is recorded in whole points in 91% of the data, so it is rounded to integers and
#   clipped to [10, 48].
# * the noise is additive and Normal for both scores (the paper's Fig. 3 writes LSAT as exp{...},
#   a Poisson-style equation after Kusner et al.): additive noise is the model the book's
#   AdditiveNoiseSCM fits, so a fitted SCM can be compared with the truth on equal terms.
_LAW_P_FEMALE = 0.438
_LAW_P_NONWHITE = 0.161
_LAW_UGPA = {"intercept": 3.21, "female": 0.13, "race_nonwhite": -0.22, "noise_sd": 0.40}
_LAW_LSAT = {"intercept": 37.6, "female": -1.1, "race_nonwhite": -1.6, "noise_sd": 5.1}
_LAW_BOUNDS = {"ugpa": (0.0, 4.0), "lsat": (10.0, 48.0)}
_LAW_DECIMALS = {"ugpa": 1, "lsat": 0}
_LAW_WEIGHTS = {"ugpa": 0.6, "lsat": 0.4}
_LAW_CUTOFF = 20.8   # 0.6 * 3.93 + 0.4 * 46.1: the median admitted profile of the top US law school
_ROUND_OFF = 1e-9    # scores on the 0.1 grid: 0.6 * 4.0 + 0.4 * 46 must count as 20.8


def _law_equations(roots, noise, do):
    race = do["race_nonwhite"] if "race_nonwhite" in do else roots["race_nonwhite"].to_numpy(dtype=float)
    female = do["female"] if "female" in do else roots["female"].to_numpy(dtype=float)
    scores = {}
    for name, params, u in (("ugpa", _LAW_UGPA, "u_ugpa"), ("lsat", _LAW_LSAT, "u_lsat")):
        if name in do:
            scores[name] = do[name]
            continue
        raw = (params["intercept"] + params["female"] * female + params["race_nonwhite"] * race
               + noise[u].to_numpy())
        scores[name] = np.clip(np.round(raw, _LAW_DECIMALS[name]), *_LAW_BOUNDS[name])
    score = _LAW_WEIGHTS["ugpa"] * scores["ugpa"] + _LAW_WEIGHTS["lsat"] * scores["lsat"]
    admitted = (score >= _LAW_CUTOFF - _ROUND_OFF).astype(float)
    return {"race_nonwhite": race, "female": female, "ugpa": scores["ugpa"], "lsat": scores["lsat"],
            "admitted": admitted}


def make_law_school(n: int = 21790, random_state=0) -> SyntheticWorld:
    """A simulated law-school admissions world after :cite:t:`alvarez2023cst` (Section 4.2, Fig. 3).

    Two independent protected roots, race R (``race_nonwhite``, 1 = non-white,
    share 16.1%) and gender G (``female``, 1 = female, share 43.8%), cause the
    undergraduate grade-point average and the admission test score
    :cite:p:`kusner2017counterfactual`:

    * ``ugpa`` = round(3.21 + 0.13 · G - 0.22 · R + U_U, 1), clipped to [0, 4],
      U_U ~ N(0, 0.40²);
    * ``lsat`` = round(37.6 - 1.1 · G - 1.6 · R + U_L), clipped to [10, 48],
      U_L ~ N(0, 5.1²);
    * ``admitted`` = 1{0.6 · ugpa + 0.4 · lsat ≥ 20.8}, the paper's rule for a
      top law school.

    The noise is additive (the paper writes LSAT as exp{...}, a Poisson-style
    equation): additive noise is what :class:`~recourselab.scm.AdditiveNoiseSCM`
    fits, so a fitted model can be compared with the truth on equal terms.
    The constants were calibrated once on the LSAC data the paper uses (see the
    comment in the source): the UGPA equation is the least-squares fit, the
    LSAT equation was adjusted so that the admission rates match the paper's
    (1.88% of women vs 2.65% of men, 0.94% of non-white vs 2.58% of white
    applicants). The true counterfactual keeps U_U and U_L fixed and applies
    the same rounding and clipping; ``bounds`` and ``decimals`` carry them for a
    fitted SCM.

    Parameters
    ----------
    n : int, default 21790
        Number of applicants (at least 10; the paper's data has 21,790).
    random_state : int or numpy.random.Generator, default 0

    Returns
    -------
    SyntheticWorld

    Examples
    --------
    >>> world = make_law_school(random_state=0)
    >>> world.frame.shape
    (21790, 5)
    >>> round(float(world.frame["female"].mean()), 3), round(float(world.frame["race_nonwhite"].mean()), 3)
    (0.441, 0.159)
    >>> world.frame.groupby("female")["admitted"].mean().round(4).to_dict()
    {0: 0.027, 1: 0.0186}
    >>> world.frame.groupby("race_nonwhite")["admitted"].mean().round(4).to_dict()
    {0: 0.0255, 1: 0.0118}
    >>> as_white = world.true_counterfactual({"race_nonwhite": 0})   # had every applicant been white
    >>> round(float(as_white.loc[world.frame["race_nonwhite"] == 1, "admitted"].mean()), 4)
    0.0259
    """
    rng = _check_world_args(n, random_state)
    female = rng.binomial(1, _LAW_P_FEMALE, size=n)
    race = rng.binomial(1, _LAW_P_NONWHITE, size=n)
    noise = pd.DataFrame({
        "u_ugpa": rng.normal(0.0, _LAW_UGPA["noise_sd"], size=n),
        "u_lsat": rng.normal(0.0, _LAW_LSAT["noise_sd"], size=n),
    })
    dag = nx.DiGraph([("race_nonwhite", "ugpa"), ("race_nonwhite", "lsat"),
                      ("female", "ugpa"), ("female", "lsat")])
    return _build_world(
        _law_equations, pd.DataFrame({"race_nonwhite": race, "female": female}), noise,
        {"race_nonwhite": int, "female": int, "ugpa": float, "lsat": int, "admitted": int},
        dag=dag, protected=("race_nonwhite", "female"), features=("ugpa", "lsat"), target="admitted",
        description=(
            f"Simulated law-school applicants (n={n}) after Alvarez & Ruggieri (2023) Section 4.2: "
            "race_nonwhite ~ Ber(0.161), female ~ Ber(0.438); ugpa = 3.21 + 0.13*female - 0.22*race_nonwhite "
            "+ N(0, 0.40^2), rounded to 0.1 and clipped to [0, 4]; lsat = 37.6 - 1.1*female - "
            "1.6*race_nonwhite + N(0, 5.1^2), rounded and clipped to [10, 48]; admitted = "
            "1{0.6*ugpa + 0.4*lsat >= 20.8}. Constants calibrated on the LSAC data to the paper's rates."
        ),
        citation="alvarez2023cst",
        bounds=dict(_LAW_BOUNDS),
        decimals=dict(_LAW_DECIMALS),
    )


# --------------------------------------------------------------------------- admissions (allocation chapter)
# A documented stand-in for the Norwegian admissions simulator of Kleine Buening et al. (2022) that
# Segal et al. (2024) use; that simulator and its data are not available, so the constants below were
# chosen by hand (simulating 400,000 applicants per setting) to give the shares the allocation chapter
# needs: about 56% of applicants with a graduation probability above 0.5 (positive utility when G = 2,
# C = 1) and about 40% admitted historically (batches of 500 give budgets near 200 slots).
_ADM_P_FIRST_GENERATION = 0.35
_ADM_GRADE = {"mean": 4.4, "first_generation": -0.25, "sd": 0.6}        # Norwegian 1-6 grade scale
_ADM_TEST = {"mean": 60.0, "per_grade": 10.0, "first_generation": -3.0, "sd": 11.0}   # 0-100 points
_ADM_EXTRA = {"trials": 4, "p": 0.3}                                     # extra credits 0-4
_ADM_AGE = {"min": 19, "poisson": 1.2, "p_late": 0.15, "late_max": 12, "max": 35}
# logit P(graduate) = intercept + coefficient * (feature - centre), summed over the features
_ADM_LOGIT = {
    "intercept": 0.35,
    "grade_average": (1.6, 4.4),       # per grade point above 4.4
    "entrance_test": (0.035, 60.0),    # per test point above 60 (0.35 per 10 points)
    "extra_credits": (0.25, 0.0),      # per extra credit
    "age": (-0.08, 19.0),              # per year above 19
    "first_generation": (-0.2, 0.0),   # first in the family at university
}
_ADM_SCORE_NOISE = 3.0                 # historical competition score = 10 * grade + extra credits + N(0, 3^2)
_ADM_CUTOFF = 46.0                     # admitted when the score is at least 46 (about 40%)


def admissions_graduation_probability(frame: pd.DataFrame) -> np.ndarray:
    """The admissions simulator's true probability of graduating, a logistic function of the features.

    .. math::

        \\operatorname{logit} p = 0.35 + 1.6\\,(g - 4.4) + 0.035\\,(t - 60) + 0.25\\,e
        - 0.08\\,(a - 19) - 0.2\\,f

    with ``grade_average`` g (1-6 scale), ``entrance_test`` t (0-100 points),
    ``extra_credits`` e (0-4), ``age`` a (years) and ``first_generation`` f
    (1 = first in the family to go to university). Use it as the model
    :math:`M` of the allocation chapter (see :func:`make_admissions`).

    Parameters
    ----------
    frame : pandas.DataFrame
        Holds the five feature columns (any other columns are ignored).

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> row = pd.DataFrame({"grade_average": [4.4], "entrance_test": [60], "extra_credits": [0],
    ...                     "age": [19], "first_generation": [0]})
    >>> admissions_graduation_probability(row).round(3).tolist()
    [0.587]
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    names = [name for name in _ADM_LOGIT if name != "intercept"]
    missing = [name for name in names if name not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks the columns {missing}; the probability needs {names}.")
    logit = np.full(len(frame), _ADM_LOGIT["intercept"])
    for name in names:
        try:
            values = frame[name].to_numpy(dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"column {name!r} must hold numbers, found dtype {frame[name].dtype}.") from None
        if np.isnan(values).any():
            raise ValueError(f"column {name!r} has missing values; give complete rows.")
        if np.isinf(values).any():
            row = frame.index[int(np.flatnonzero(np.isinf(values))[0])]
            raise ValueError(f"column {name!r} has infinite values (first in row {row!r}); give finite numbers.")
        coefficient, centre = _ADM_LOGIT[name]
        logit += coefficient * (values - centre)
    return 1.0 / (1.0 + np.exp(-logit))


def _admissions_features() -> tuple[FeatureSpec, ...]:
    return (
        FeatureSpec("grade_average", "continuous", "increase", lower=1.0, upper=6.0, unit="grade (1-6)",
                    description="Upper-secondary grade average on the Norwegian 1-6 scale"),
        FeatureSpec("entrance_test", "continuous", "increase", lower=0.0, upper=100.0, unit="points",
                    description="Score on an entrance test (0-100)"),
        FeatureSpec("extra_credits", "continuous", "increase", lower=0.0, upper=4.0, unit="credits",
                    description="Extra credits, e.g. for science subjects (whole credits 0-4)"),
        FeatureSpec("age", "continuous", "increase", unit="years", description="Age when applying"),
        FeatureSpec("first_generation", "binary", "immutable", order=[0, 1],
                    description="1 = first in the family to go to university"),
    )


def make_admissions(n: int = 10000, random_state=0) -> Dataset:
    """Simulated university applicants with a known graduation probability (for the allocation chapter).

    Segal et al. :cite:p:`segal2024luck` sample applicants from the
    simulator of Kleine Buening et al. (2022), built on the Norwegian Database
    for Statistics on Higher Education. That simulator is not available, so
    this is **our own** documented stand-in, not a reproduction of it. Each
    applicant has

    * ``first_generation`` ~ Ber(0.35) (1 = first in the family at university);
    * ``grade_average`` ~ N(4.4 - 0.25 · first_generation, 0.6²), rounded to
      0.01 and clipped to the 1-6 scale;
    * ``entrance_test`` ~ N(60 + 10 · (grade_average - 4.4) - 3 · first_generation, 11²),
      rounded and clipped to 0-100;
    * ``extra_credits`` ~ Binomial(4, 0.3);
    * ``age`` = 19 + Poisson(1.2), plus with probability 0.15 a late start of
      0-11 more years, capped at 35;
    * ``graduation_probability`` p: the logistic function
      :func:`admissions_graduation_probability`,
      logit p = 0.35 + 1.6 (grade - 4.4) + 0.035 (test - 60) + 0.25 · extra
      - 0.08 (age - 19) - 0.2 · first_generation; about 56% of applicants have
      p > 0.5, i.e. a positive utility under the paper's G = 2, C = 1;
    * ``admitted``: what the institution did historically — a competition
      score 10 · grade + extra credits + N(0, 3²) of at least 46, about 40% of
      applicants (batches of 500 admit about 200-205, sd about 9-11);
    * ``graduated`` ~ Ber(p): whether the applicant would graduate if admitted
      (simulated for everyone; the target, 1 = favourable).

    First-generation applicants have lower grades and test scores on average
    and a small direct penalty, so the protected group has lower graduation
    probabilities — a fairness question the chapter can raise.

    Parameters
    ----------
    n : int, default 10000
        Number of applicants (at least 10; the paper simulates 10,000).
    random_state : int or numpy.random.Generator, default 0

    Returns
    -------
    Dataset
        Target ``graduated``, protected ``("first_generation",)``, feature specs
        for the five features (grades, test and extra credits may only
        increase, age only increases, first generation is immutable); the frame
        also holds ``graduation_probability`` and ``admitted``.

    Examples
    --------
    >>> data = make_admissions(10000, random_state=0)
    >>> data.frame.shape
    (10000, 8)
    >>> p = data.frame["graduation_probability"]
    >>> round(float((p > 0.5).mean()), 2), round(float(data.frame["admitted"].mean()), 2)
    (0.57, 0.41)
    >>> data.frame.groupby("first_generation")["graduation_probability"].mean().round(2).to_dict()
    {0: 0.59, 1: 0.44}
    >>> round(float(data.y.mean()), 2)
    0.54
    """
    rng = _check_world_args(n, random_state)
    first = rng.binomial(1, _ADM_P_FIRST_GENERATION, size=n)
    grade = np.clip(np.round(rng.normal(_ADM_GRADE["mean"] + _ADM_GRADE["first_generation"] * first,
                                        _ADM_GRADE["sd"]), 2), 1.0, 6.0)
    test = np.clip(np.round(rng.normal(
        _ADM_TEST["mean"] + _ADM_TEST["per_grade"] * (grade - _ADM_GRADE["mean"])
        + _ADM_TEST["first_generation"] * first, _ADM_TEST["sd"])), 0, 100).astype(int)
    extra = rng.binomial(_ADM_EXTRA["trials"], _ADM_EXTRA["p"], size=n)
    late = rng.binomial(1, _ADM_AGE["p_late"], size=n) * rng.integers(0, _ADM_AGE["late_max"], size=n)
    age = np.minimum(_ADM_AGE["min"] + rng.poisson(_ADM_AGE["poisson"], size=n) + late, _ADM_AGE["max"])
    frame = pd.DataFrame({
        "grade_average": grade,
        "entrance_test": test,
        "extra_credits": extra.astype(int),
        "age": age.astype(int),
        "first_generation": first.astype(int),
    })
    p = admissions_graduation_probability(frame)
    score = 10.0 * grade + extra + rng.normal(0.0, _ADM_SCORE_NOISE, size=n)
    frame["graduation_probability"] = p
    frame["admitted"] = (score >= _ADM_CUTOFF).astype(int)
    frame["graduated"] = rng.binomial(1, p).astype(int)
    return Dataset(
        frame=frame,
        target="graduated",
        protected=("first_generation",),
        features=_admissions_features(),
        description=(
            f"Simulated university applicants (n={n}); our stand-in for the Norwegian admissions simulator "
            "used by Segal et al. (2024), which is not available: graduation_probability is a known logistic "
            "function of grades, entrance test, extra credits, age and first-generation status; admitted is "
            "the historical decision (competition score >= 46, about 40%); graduated ~ Ber(probability)."
        ),
        citation="segal2024luck",
    )


# --------------------------------------------------------------------------- CEC synthetic lending data
# The data of Popoola & Sheppard (2026), Section "Datasets": 10 financial features independent of the group,
# 5 proxies shifted by half a standard deviation between groups, 5 noise features; the label depends on the
# financial features only. The paper does not give w, the noise or the threshold; these are ours.
_CEC_WEIGHTS = (1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.3, 0.2, 0.2, 0.1)   # w_j of fin_0 ... fin_9
_CEC_NOISE_SD = 0.5          # epsilon ~ N(0, 0.5^2)
_CEC_THRESHOLD = -0.43       # y = 1 when sum_j w_j fin_j + epsilon > -0.43: about 60% favourable
_CEC_GROUP_SHARE = 0.4       # P(group = 1)
_CEC_PROXY_SHIFT = 0.5       # proxies ~ N(0.5 * group, 1)


def _cec_features() -> tuple[FeatureSpec, ...]:
    specs = [FeatureSpec(f"fin_{j}", "continuous", "free",
                         description=f"Financial feature {j} (weight {_CEC_WEIGHTS[j]} in the label)")
             for j in range(10)]
    specs += [FeatureSpec(f"proxy_{j}", "continuous", "free",
                          description=f"Proxy {j}: shifted by {_CEC_PROXY_SHIFT} sd in group 1, not in the label")
              for j in range(5)]
    specs += [FeatureSpec(f"noise_{j}", "continuous", "free", description=f"Noise feature {j}")
              for j in range(5)]
    specs.append(FeatureSpec("group", "binary", "immutable", order=[0, 1],
                             description="Protected group (1 = the smaller group)"))
    return tuple(specs)


def make_cec_synthetic(n: int = 10000, random_state=0) -> Dataset:
    """Synthetic lending data with financial, proxy and noise features (explanation consistency chapter).

    Follows the synthetic design of Popoola and Sheppard :cite:p:`popoola2026cec`
    (n = 10,000, 20 features); the paper leaves the weights, the noise and the
    threshold open, so these constants are ours:

    * ``group`` ~ Ber(0.4) (1 = the smaller group, 40% of rows);
    * ``fin_0`` ... ``fin_9`` ~ N(0, 1), independent of each other and of the group;
    * ``proxy_0`` ... ``proxy_4`` ~ N(0.5 · group, 1): shifted by half a
      standard deviation between groups (like a residential-area score), but
      not used by the label;
    * ``noise_0`` ... ``noise_4`` ~ N(0, 1);
    * ``approved`` = 1[Σ_j w_j fin_j + ε > -0.43] with
      w = (1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.3, 0.2, 0.2, 0.1) and
      ε ~ N(0, 0.5²): about 60% favourable in both groups.

    Because the label depends on the financial features only, any use of the
    proxies or of the group by a model is reasoning that differs by group
    without a legitimate reason.

    Parameters
    ----------
    n : int, default 10000
        Number of applicants (at least 10).
    random_state : int or numpy.random.Generator, default 0

    Returns
    -------
    Dataset
        Target ``approved``, protected ``("group",)``, 21 feature specs (every
        feature continuous and free, the group binary and immutable).

    Examples
    --------
    >>> data = make_cec_synthetic(10000, random_state=0)
    >>> data.frame.shape, round(float(data.y.mean()), 2), round(float(data.frame["group"].mean()), 2)
    ((10000, 22), 0.6, 0.4)
    >>> means = data.frame.groupby("group")[["fin_0", "proxy_0"]].mean()
    >>> (means.loc[1] - means.loc[0]).round(1).tolist()
    [0.0, 0.5]
    """
    rng = _check_world_args(n, random_state)
    group = rng.binomial(1, _CEC_GROUP_SHARE, size=n)
    fin = rng.normal(size=(n, 10))
    proxy = rng.normal(size=(n, 5)) + _CEC_PROXY_SHIFT * group[:, None]
    noise = rng.normal(size=(n, 5))
    score = fin @ np.asarray(_CEC_WEIGHTS) + rng.normal(0.0, _CEC_NOISE_SD, size=n)
    columns = {f"fin_{j}": fin[:, j] for j in range(10)}
    columns.update({f"proxy_{j}": proxy[:, j] for j in range(5)})
    columns.update({f"noise_{j}": noise[:, j] for j in range(5)})
    columns["group"] = group.astype(int)
    columns["approved"] = (score > _CEC_THRESHOLD).astype(int)
    return Dataset(
        frame=pd.DataFrame(columns),
        target="approved",
        protected=("group",),
        features=_cec_features(),
        description=(
            f"Simulated lending data (n={n}) after Popoola & Sheppard (2026): group ~ Ber(0.4); fin_0..fin_9 ~ "
            "N(0, 1) independent of the group; proxy_0..proxy_4 ~ N(0.5 * group, 1); noise_0..noise_4 ~ N(0, 1); "
            "approved = 1{sum_j w_j fin_j + N(0, 0.5^2) > -0.43} with w = (1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.3, 0.2, "
            "0.2, 0.1), about 60% approved. Weights, noise and threshold are ours (the paper does not give them)."
        ),
        citation="popoola2026cec",
    )

