"""Audit helpers for the capstone: a model with a planted bias, and flag overlaps read against chance.

Two questions come up whenever several fairness lenses are run on one model:

1. **Does a lens find what is there?** To check, we need a model whose bias is
   known. :func:`plant_label_bias` turns a seeded share of the protected
   group's favourable training labels into unfavourable ones (historical
   decisions that penalised the group), and :func:`train_on_biased_history`
   fits the same classifier twice on one split: on the biased labels (the
   audited model) and on the true labels (the reference). An applicant the
   audited model refuses and the reference approves was refused *because of*
   the planted bias, which is a ground truth each lens can be scored against.
2. **Do two lenses agree more than chance?** If lens A flags :math:`n_a` and
   lens B flags :math:`n_b` of the same :math:`N` people, independent lenses
   share :math:`n_a n_b / N` flags on average, and the number shared follows
   the hypergeometric distribution. :func:`overlap_vs_chance` sets the
   observed overlap against that expectation (its central interval under
   independence, a one-sided p-value, and a bootstrap interval of the ratio
   observed / expected); :func:`overlap_table` does it for every pair of
   lenses, each pair within the people *both* lenses are about.

Everything random takes ``random_state`` (None, an int seed or a
``numpy.random.Generator``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import hypergeom

from ._validation import check_aligned_all, check_int, check_mask, check_number, check_rng, check_unit_interval
from .datasets import Dataset
from .models import TrainedModel, _as_seed, _check_dataset, _check_share, _new_classifier, split_dataset

__all__ = [
    "LabelBias",
    "plant_label_bias",
    "BiasedHistory",
    "train_on_biased_history",
    "Overlap",
    "overlap_vs_chance",
    "overlap_table",
]


# --------------------------------------------------------------------------- planted bias
@dataclass(frozen=True)
class LabelBias:
    """Labels with a planted bias (:func:`plant_label_bias`).

    Attributes
    ----------
    labels : ndarray of int, shape (n,)
        The biased labels (1 = favourable).
    flipped : ndarray of bool, shape (n,)
        True where a favourable label of the protected group was turned into 0.
    protected : ndarray of bool, shape (n,)
    rate : float
        The share of the protected group's favourable labels that was flipped.
    """

    labels: np.ndarray = field(repr=False)
    flipped: np.ndarray = field(repr=False)
    protected: np.ndarray = field(repr=False)
    rate: float = 0.0

    @property
    def n_flipped(self) -> int:
        return int(self.flipped.sum())

    def to_frame(self) -> pd.DataFrame:
        """Per group (protected, other): rows, favourable labels before and after, labels flipped."""
        true = self.labels + self.flipped.astype(int)
        rows = {}
        for name, members in (("protected", self.protected), ("other", ~self.protected)):
            rows[name] = {"rows": int(members.sum()), "favourable (true)": int(true[members].sum()),
                          "favourable (biased)": int(self.labels[members].sum()),
                          "flipped": int(self.flipped[members].sum())}
        return pd.DataFrame.from_dict(rows, orient="index")


def plant_label_bias(labels, protected, rate: float, *, random_state=0) -> LabelBias:
    """Turn a seeded share of the protected group's favourable labels into unfavourable ones.

    This simulates historical decisions that penalised a group: of the
    :math:`m` protected individuals with label 1, exactly
    :math:`\\operatorname{round}(\\text{rate} \\cdot m)`, drawn uniformly
    without replacement, get label 0. Nobody else changes.

    Parameters
    ----------
    labels : array of 0/1, shape (n,)
        The true labels, 1 = favourable.
    protected : array of bool (or 0/1), shape (n,)
        Members of the group the historical decisions penalised. Paired with
        ``labels`` by position: when both are pandas objects they must share
        one index (else ValueError).
    rate : float in [0, 1]
        Share of the protected group's favourable labels to flip.
    random_state : None, int or numpy.random.Generator, default 0
        Seeds which labels are flipped.

    Returns
    -------
    LabelBias

    Examples
    --------
    >>> bias = plant_label_bias([1, 1, 1, 1, 0, 1], [1, 1, 1, 1, 1, 0], 0.5, random_state=0)
    >>> bias.n_flipped, int(bias.labels[5]), int(bias.labels[4])
    (2, 1, 0)
    """
    y = check_mask(labels, "labels", meaning="1 = favourable").astype(int)
    if len(y) == 0:
        raise ValueError("labels is empty; give one 0/1 label per individual.")
    check_aligned_all(labels=labels, protected=protected)
    protected = check_mask(protected, "protected", len(y), meaning="True = in the penalised group")
    rate = check_unit_interval(check_number(rate, "rate"), "rate")
    candidates = np.flatnonzero(protected & (y == 1))
    if rate > 0 and len(candidates) == 0:
        raise ValueError("the protected group has no favourable label to flip; check protected (is it the right "
                         "group?) or use rate=0.")
    chosen = check_rng(random_state).choice(candidates, int(round(rate * len(candidates))), replace=False)
    flipped = np.zeros(len(y), bool)
    flipped[chosen] = True
    return LabelBias(labels=np.where(flipped, 0, y), flipped=flipped, protected=protected, rate=rate)


@dataclass(frozen=True)
class BiasedHistory:
    """A model trained on biased historical labels and its reference (:func:`train_on_biased_history`).

    Attributes
    ----------
    biased : TrainedModel
        Fitted on the biased training labels (its ``train`` frame holds them).
    reference : TrainedModel
        The same classifier fitted on the true labels of the same training rows.
    bias : LabelBias
        The planted bias, on the training rows (in the order of ``biased.train``).
    column : str
        The protected column; ``protected_value`` is the penalised group's value.
    protected_value : object
    """

    biased: TrainedModel
    reference: TrainedModel
    bias: LabelBias
    column: str
    protected_value: object

    def harmed(self) -> np.ndarray:
        """Test rows of the protected group refused by the biased model and approved by the reference."""
        Z = self.biased.Z_test
        protected = self.biased.test[self.column].to_numpy() == self.protected_value
        return protected & ~self.biased.decide(Z) & self.reference.decide(Z)

    def to_frame(self) -> pd.DataFrame:
        """Per test group: approval rate of both models, accuracy of both (on true labels), and the count
        refused by the biased model and approved by the reference (for the protected group: the harmed)."""
        test, Z = self.biased.test, self.biased.Z_test
        y = self.reference.y_test
        groups = test[self.column].to_numpy()
        biased, reference = self.biased.decide(Z), self.reference.decide(Z)
        rows = {}
        for g in pd.unique(groups):
            m = groups == g
            rows[g] = {"test rows": int(m.sum()), "approval (biased)": float(biased[m].mean()),
                       "approval (reference)": float(reference[m].mean()),
                       "accuracy (biased)": float((biased[m] == (y[m] == 1)).mean()),
                       "accuracy (reference)": float((reference[m] == (y[m] == 1)).mean()),
                       "refused, reference approves": int((~biased & reference)[m].sum())}
        return pd.DataFrame.from_dict(rows, orient="index")


def train_on_biased_history(dataset: Dataset, *, protected_value, rate: float, column: str | None = None,
                            model="logistic", test_size: float = 0.3, random_state=0,
                            threshold: float = 0.5) -> BiasedHistory:
    """Fit one classifier on biased historical labels and the same classifier on the true labels.

    One stratified split (on the true labels) and one encoder serve both
    models, so they differ only by the planted bias: in the training rows,
    :func:`plant_label_bias` flips a share ``rate`` of the favourable labels of
    the rows with ``column == protected_value``. Test labels stay true, so
    accuracy and error rates are measured against what really happened.

    Parameters
    ----------
    dataset : Dataset
    protected_value : object
        The value of ``column`` that the historical decisions penalised.
    rate : float in [0, 1]
        Share of that group's favourable training labels turned into 0.
    column : str, optional
        The protected column (default: the data set's first protected attribute).
    model : {"logistic", "forest"} or a scikit-learn classifier, default "logistic"
    test_size : float, default 0.3
    random_state : None, int or numpy.random.Generator, default 0
        Seeds the split, the flipped labels and the classifiers.
    threshold : float, default 0.5
        Decision threshold of both models.

    Returns
    -------
    BiasedHistory

    Examples
    --------
    >>> from recourselab.datasets import load_german_credit
    >>> history = train_on_biased_history(load_german_credit(), protected_value="female", rate=0.25)
    >>> history.bias.n_flipped > 0
    True
    """
    _check_dataset(dataset)
    column = dataset.protected[0] if column is None else column
    if not isinstance(column, str) or column not in dataset.frame.columns:
        raise ValueError(f"column={column!r} is not a column of the data set; protected attributes are "
                         f"{list(dataset.protected)}.")
    values = pd.unique(dataset.frame[column]).tolist()
    if protected_value not in values:
        raise ValueError(f"protected_value={protected_value!r} does not occur in column {column!r}; its values are "
                         f"{values[:10]}.")
    rate = check_unit_interval(check_number(rate, "rate"), "rate")
    threshold = _check_share(threshold, "threshold")
    seed = _as_seed(random_state)
    _new_classifier(model, seed)  # a bad model is refused before anything is fitted
    train, test = split_dataset(dataset, test_size=test_size, random_state=seed)
    bias = plant_label_bias(train[dataset.target].to_numpy(), train[column].to_numpy() == protected_value, rate,
                            random_state=seed)
    encoder = dataset.encoder().fit(dataset.frame)
    Z_train, Z_test = encoder.transform(train), encoder.transform(test)
    fitted = [_new_classifier(model, seed).fit(Z_train, y) for y in (bias.labels, train[dataset.target].to_numpy())]
    biased = TrainedModel(dataset, encoder, fitted[0], train.assign(**{dataset.target: bias.labels}), test,
                          Z_train, Z_test, threshold)
    reference = TrainedModel(dataset, encoder, fitted[1], train, test, Z_train, Z_test, threshold)
    return BiasedHistory(biased=biased, reference=reference, bias=bias, column=column,
                         protected_value=protected_value)


# --------------------------------------------------------------------------- overlaps against chance
@dataclass(frozen=True)
class Overlap:
    """Observed overlap of two flag sets against the overlap expected by chance (:func:`overlap_vs_chance`).

    Attributes
    ----------
    n : int
        Size of the population both flag sets are drawn from.
    n_a, n_b : int
        Flags of each set inside the population.
    observed : int
        Individuals flagged by both.
    expected : float
        :math:`n_a n_b / n`, the mean overlap of independent flag sets of these sizes.
    chance_low, chance_high : int
        Central interval of the overlap under independence (hypergeometric), at ``confidence``.
    p_value : float
        One-sided :math:`P(X \\ge \\text{observed})` under independence.
    lift : float
        ``observed / expected`` (NaN when nothing is expected).
    lift_low, lift_high : float
        Bootstrap percentile interval of the lift (population rows resampled).
    confidence : float
    """

    n: int
    n_a: int
    n_b: int
    observed: int
    expected: float
    chance_low: int
    chance_high: int
    p_value: float
    lift: float
    lift_low: float
    lift_high: float
    confidence: float = 0.95

    @property
    def share_of_a(self) -> float:
        """Share of A's flags that B also flags (precision of A when B is the truth)."""
        return self.observed / self.n_a if self.n_a else float("nan")

    @property
    def share_of_b(self) -> float:
        """Share of B's flags that A also flags (recall of A when B is the truth)."""
        return self.observed / self.n_b if self.n_b else float("nan")

    @property
    def verdict(self) -> str:
        """"more than chance", "less than chance" or "as by chance" (outside / inside the chance interval)."""
        if self.observed > self.chance_high:
            return "more than chance"
        if self.observed < self.chance_low:
            return "less than chance"
        return "as by chance"

    def to_frame(self) -> pd.DataFrame:
        """The numbers as a one-row table."""
        values = {name: getattr(self, name) for name in ("n", "n_a", "n_b", "observed", "expected", "chance_low",
                                                         "chance_high", "p_value", "lift", "lift_low", "lift_high")}
        values["verdict"] = self.verdict
        return pd.DataFrame([values])


def overlap_vs_chance(flags_a, flags_b, population=None, *, confidence: float = 0.95, n_boot: int = 1000,
                      random_state=0) -> Overlap:
    """How many individuals two flag sets share, against what independent sets of the same sizes would share.

    Within a population of :math:`n` individuals, let A flag :math:`n_a` and B
    flag :math:`n_b`. If the flags were independent (B's flags a random
    :math:`n_b`-subset), the overlap :math:`X` would be hypergeometric with
    mean :math:`n_a n_b / n`. An observed overlap inside the central interval
    of that distribution says nothing about agreement, however large it looks:
    when most people are flagged by both lenses, most flags coincide anyway.

    Parameters
    ----------
    flags_a, flags_b : arrays of bool (or 0/1), shape (N,)
        Flags of the two lenses A and B (or of a lens and a ground truth).
    population : array of bool, shape (N,), optional
        The individuals both lenses are about (default: everyone). Flags outside
        it are not counted.
        The three are paired by position: pandas arguments must share one index
        (else ValueError; ``.to_numpy()`` pairs by position on purpose).
    confidence : float in (0, 1), default 0.95
        Coverage of the chance interval and of the bootstrap interval.
    n_boot : int, default 1000
        Bootstrap resamples of the population for the interval of the lift
        (0: no interval, NaN bounds).
    random_state : None, int or numpy.random.Generator, default 0
        Seeds the bootstrap.

    Returns
    -------
    Overlap

    Examples
    --------
    >>> a = [1, 1, 1, 1, 0, 0, 0, 0]
    >>> b = [1, 1, 1, 0, 1, 0, 0, 0]
    >>> o = overlap_vs_chance(a, b, n_boot=0)
    >>> o.observed, o.expected, o.verdict
    (3, 2.0, 'as by chance')
    """
    check_aligned_all(flags_a=flags_a, flags_b=flags_b, population=population)
    a = check_mask(flags_a, "flags_a", meaning="True = flagged by lens A")
    b = check_mask(flags_b, "flags_b", len(a), meaning="True = flagged by lens B")
    population = np.ones(len(a), bool) if population is None else check_mask(
        population, "population", len(a), meaning="True = a person both lenses are about")
    confidence = check_unit_interval(check_number(confidence, "confidence"), "confidence", open_interval=True)
    n_boot = check_int(n_boot, "n_boot", minimum=0)
    a, b = a[population], b[population]
    n = len(a)
    if n == 0:
        raise ValueError("population is empty; the two lenses share nobody to compare.")
    n_a, n_b, observed = int(a.sum()), int(b.sum()), int((a & b).sum())
    expected = n_a * n_b / n
    dist = hypergeom(n, n_a, n_b)
    tail = (1 - confidence) / 2
    chance_low, chance_high = int(dist.ppf(tail)), int(dist.ppf(1 - tail))
    p_value = float(dist.sf(observed - 1))
    lift = observed / expected if expected > 0 else float("nan")
    lift_low = lift_high = float("nan")
    if n_boot:
        rows = check_rng(random_state).integers(0, n, size=(n_boot, n))
        A, B = a[rows], b[rows]
        both = (A & B).sum(axis=1)
        chance = A.sum(axis=1) * B.sum(axis=1) / n
        ok = chance > 0
        if ok.any():
            lifts = both[ok] / chance[ok]
            lift_low, lift_high = (float(q) for q in np.quantile(lifts, [tail, 1 - tail]))
    return Overlap(n=n, n_a=n_a, n_b=n_b, observed=observed, expected=float(expected), chance_low=chance_low,
                   chance_high=chance_high, p_value=p_value, lift=float(lift), lift_low=lift_low,
                   lift_high=lift_high, confidence=confidence)


def overlap_table(flags: pd.DataFrame, populations: pd.DataFrame, *, pairs=None, confidence: float = 0.95,
                  n_boot: int = 1000, random_state=0) -> pd.DataFrame:
    """:func:`overlap_vs_chance` for pairs of lenses, each pair within the people both lenses are about.

    Parameters
    ----------
    flags : DataFrame of bool
        One row per individual, one column per lens (True = flagged). A
        ground truth can be one more column.
    populations : DataFrame of bool, same index and columns
        For each lens, the individuals it is about (e.g. refused applicants). A
        flag outside its lens's population is an error: a lens must not flag
        someone it does not speak about.
    pairs : list of (str, str), optional
        Pairs of columns to compare (default: all pairs).
    confidence, n_boot, random_state
        As in :func:`overlap_vs_chance` (the seed is shared by all pairs).

    Returns
    -------
    DataFrame
        One row per pair, indexed by (lens A, lens B): population size, flags of
        each, observed and expected overlap, chance interval, p-value, lift with
        its bootstrap interval, share of A's flags that B shares (``share of A``)
        and of B's (``share of B``), and the verdict.

    Examples
    --------
    >>> flags = pd.DataFrame({"x": [True, True, False, False], "y": [True, False, True, False]})
    >>> table = overlap_table(flags, flags | True, n_boot=0)
    >>> int(table.loc[("x", "y"), "observed"]), float(table.loc[("x", "y"), "expected"])
    (1, 1.0)
    """
    if not isinstance(flags, pd.DataFrame) or not isinstance(populations, pd.DataFrame):
        raise TypeError("flags and populations must be DataFrames (one boolean column per lens).")
    if list(flags.columns) != list(populations.columns) or not flags.index.equals(populations.index):
        raise ValueError("populations must have the same index and columns as flags (one population per lens); "
                         f"flags has columns {list(flags.columns)}, populations {list(populations.columns)}.")
    for frame, name in ((flags, "flags"), (populations, "populations")):
        bad = [c for c in frame.columns if not pd.api.types.is_bool_dtype(frame[c])]
        if bad:
            raise ValueError(f"{name} columns {bad} are not boolean; use True/False.")
    outside = {c: int((flags[c] & ~populations[c]).sum()) for c in flags.columns}
    outside = {c: v for c, v in outside.items() if v}
    if outside:
        raise ValueError(f"some flags lie outside their lens's population: {outside}; restrict each lens's flags to "
                         "the people it is about.")
    pairs = _check_pairs(pairs, list(flags.columns))
    confidence = check_unit_interval(check_number(confidence, "confidence"), "confidence", open_interval=True)
    n_boot = check_int(n_boot, "n_boot", minimum=0)
    rows = []
    for first, second in pairs:
        common = (populations[first] & populations[second]).to_numpy()
        o = overlap_vs_chance(flags[first].to_numpy(), flags[second].to_numpy(), common, confidence=confidence,
                              n_boot=n_boot, random_state=random_state)
        rows.append({"lens A": first, "lens B": second, "population": o.n, "flags A": o.n_a, "flags B": o.n_b,
                     "observed": o.observed, "expected": o.expected, "chance low": o.chance_low,
                     "chance high": o.chance_high, "p-value": o.p_value, "lift": o.lift, "lift low": o.lift_low,
                     "lift high": o.lift_high, "share of A": o.share_of_a, "share of B": o.share_of_b,
                     "verdict": o.verdict})
    return pd.DataFrame(rows).set_index(["lens A", "lens B"])


def _check_pairs(pairs, columns: list) -> list:
    """``pairs`` as a non-empty list of (column, column) of ``flags`` (default: every pair of columns)."""
    if pairs is None:
        pairs = list(itertools.combinations(columns, 2))
    elif isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise TypeError(f"pairs={pairs!r} must be a list of (lens A, lens B) column pairs.")
    pairs = list(pairs)
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ValueError(f"pairs holds {pair!r}; give each pair as (lens A, lens B), two columns of flags.")
        for name in pair:
            if name not in columns:
                raise ValueError(f"pair {tuple(pair)!r} names {name!r}, which is not a column of flags {columns}.")
    if not pairs:
        raise ValueError("no pair to compare; give at least two lenses.")
    return pairs
