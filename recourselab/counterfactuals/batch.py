"""Recourse for everyone a model refuses, from any fitted model, in the user's raw columns.

:func:`recourse_for_refused` is the practitioner's one call: a fitted classifier on the raw frame (a
scikit-learn ``Pipeline`` with its own preprocessing, or any estimator taking a DataFrame), the
:class:`~recourselab.features.FeatureSpec` list as a fitted :class:`~recourselab.features.Encoder`,
and the rows to audit. For each refused person it returns the cheapest actionable move it finds, in
raw columns, with its cost, the per-feature changes and the decision re-checked on the raw model.

The search, per person (all steps vectorised over candidates):

1. **Graft** (:func:`~recourselab.allocation.graft_candidates`): every observed donor profile, moved
   only as far as advice may move this person (features advice may never change, including
   immutable ones such as a length of stay, keep the person's own values, so no exact match of a
   continuous immutable feature among donors is needed; directions and plausible changes are kept).
2. **Cheapest reaching**: candidates are scored in order of cost, a batch at a time, until a batch
   holds one whose favourable probability reaches ``threshold``; the cheapest such actionable one is
   the target (the same answer as scoring them all).
3. **Bounded search** for the people no graft reaches: ``n_samples`` random sparse moves within the
   person's advice bounds (one to ``max_features`` features, snapped to whole levels), the cheapest
   actionable one that reaches ``threshold``. A fixed number of model calls: never an open loop.
4. **Prune** (:func:`~recourselab.allocation.prune_move`): undo every change the decision does not need.

Every move returned passes :meth:`Encoder.actionable <recourselab.features.Encoder.actionable>`
(and so :meth:`~recourselab.features.Encoder.feasible`), and is kept only if the raw model's
``predict`` on the decoded row (in the input frame's dtypes) gives the favourable class.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from .._validation import check_bool, check_int, check_number, check_seed, favourable_column
from ..adapters import EncodedModel
from ..features import check_encoder

__all__ = ["BatchRecourse", "recourse_for_refused"]

_METHODS = ("already favourable", "graft", "search", "none")


@dataclass(frozen=True)
class BatchRecourse:
    """Recourse for a batch of people (:func:`recourse_for_refused`).

    Attributes
    ----------
    summary : DataFrame
        One row per audited person, indexed by their labels in ``X``: ``found`` (an actionable move
        that flips the raw model, or none needed), ``method`` ("graft", "search", "none", or "already favourable"),
        ``cost`` (the move's cost under the encoder, ``inf`` when none), ``proba`` and ``proba_after``
        (the favourable probability before and after), ``n_changes`` and ``changes`` (the features
        moved, in words).
    counterfactuals : DataFrame
        The target rows in the raw columns of ``X`` (same index as ``summary``; the person's own row
        where nothing is found, so check ``summary["found"]``).
    changes : DataFrame
        One row per changed feature of each move found: ``row`` (the person's label), ``feature``,
        ``from``, ``to``, ``change``, ``unit`` and ``cost`` (as :func:`describe_changes`).
    threshold : float
        The favourable probability a move had to reach.
    seconds : float
        Wall time of the call.
    advice : str
        Always ``"actionable"``: every move found may be shown as advice.
    """

    summary: pd.DataFrame
    counterfactuals: pd.DataFrame
    changes: pd.DataFrame
    threshold: float
    seconds: float
    advice: str = field(default="actionable")

    @property
    def found_share(self) -> float:
        """Share of the audited people who get a move (those already favourable excluded)."""
        refused = self.summary["method"] != "already favourable"
        return float(self.summary.loc[refused, "found"].mean()) if refused.any() else float("nan")

    def to_frame(self) -> pd.DataFrame:
        """The summary table."""
        return self.summary.copy()


def _check_frame(X, name: str) -> pd.DataFrame:
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"{name} is a {type(X).__name__}; give a pandas DataFrame of the raw columns the model takes.")
    if not X.index.is_unique:
        raise ValueError(f"{name} has duplicate index labels; the result is indexed by them, so make them unique "
                         f"(e.g. {name}.reset_index(drop=True)).")
    return X


def _rows(rows, X: pd.DataFrame, refused: np.ndarray) -> np.ndarray:
    """Positions in ``X`` of the people to audit: the given labels (or mask), default the refused."""
    if rows is None:
        return np.flatnonzero(refused)
    if isinstance(rows, (pd.Series, np.ndarray, list)) and np.asarray(rows).dtype == bool:
        mask = np.asarray(rows)
        if mask.shape != (len(X),):
            raise ValueError(f"rows is a boolean mask of length {mask.size}; X has {len(X)} rows.")
        return np.flatnonzero(mask)
    labels = pd.Index(rows)
    missing = labels.difference(X.index)
    if len(missing):
        raise ValueError(f"rows names {list(missing[:5])}, which are not index labels of X; give labels of X "
                         "(or a boolean mask).")
    if not labels.is_unique:
        raise ValueError("rows repeats labels; give each person once.")
    return X.index.get_indexer(labels)


def _raw_model(model):
    """The estimator that takes raw frames (an EncodedModel's own estimator)."""
    if isinstance(model, EncodedModel):
        return model.estimator_ if hasattr(model, "estimator_") else model.estimator
    if not hasattr(model, "predict_proba") or not hasattr(model, "predict"):
        raise TypeError(f"model ({type(model).__name__}) needs predict and predict_proba; give a fitted classifier "
                        "on the raw frame (e.g. a Pipeline ending in LogisticRegression or a gradient-boosting model).")
    return model


def _raw_rows(encoder, Z: np.ndarray, base: pd.DataFrame, Z_base: np.ndarray) -> pd.DataFrame:
    """Encoded targets in ``base``'s raw columns and dtypes: changed features decoded, the rest kept as they are.

    Keeping an unchanged feature's raw value (rather than decoding it) avoids round-off in a decoded float
    (a length of stay 38.0 coming back as 37.99999999999999) and keeps columns no spec describes.
    """
    decoded = encoder.inverse_transform(Z, index=base.index)
    out = base.copy()
    for name in encoder.feature_names:
        sl = encoder.slices_[name]
        changed = np.abs(Z[:, sl] - Z_base[:, sl]).max(axis=1) > 1e-12
        if changed.any():
            values = decoded[name].astype(base[name].dtype)
            out[name] = values.where(changed, base[name])
    return out


def _changes_table(encoder, Z_from: np.ndarray, Z_to: np.ndarray, labels: pd.Index, weights) -> pd.DataFrame:
    """:func:`describe_changes` for many moves at once: the changed features of each move (``row`` its label), in
    the moves' order and the specs' order within a move, without ``allowed`` and ``advice``.

    One decoding and one loop over the features instead of one call per person (which decoded two one-row frames
    each time and made most of a batch call's time).
    """
    columns = ["row", "feature", "from", "to", "change", "unit", "cost"]
    if not len(labels):
        return pd.DataFrame(columns=columns)
    before, after = encoder.inverse_transform(Z_from), encoder.inverse_transform(Z_to)
    share = encoder.feature_distances(Z_from, Z_to) * encoder.weight_vector(weights)
    parts = []
    for f, spec in enumerate(encoder.specs_):
        old, new = before[spec.name].to_numpy(object), after[spec.name].to_numpy(object)
        if spec.kind == "continuous":
            changed = ~np.isclose(old.astype(float), new.astype(float))
            change = list(new[changed].astype(float) - old[changed].astype(float))
        else:
            changed = old != new
            if spec.kind in ("ordinal", "binary"):
                level = {value: i for i, value in enumerate(encoder.levels_[spec.name])}
                steps = [level[b] - level[a] for a, b in zip(old[changed], new[changed], strict=True)]
                change = [f"{n:+d} level{'s' if abs(n) != 1 else ''}" if n else "0" for n in steps]
            else:
                change = ["changed"] * int(changed.sum())
        at = np.flatnonzero(changed)
        parts.append(pd.DataFrame({"move": at, "order": f, "row": labels[at], "feature": spec.name, "from": old[at],
                                   "to": new[at], "change": pd.Series(change, dtype=object), "unit": spec.unit,
                                   "cost": share[at, f]}))
    table = pd.concat(parts, ignore_index=True).sort_values(["move", "order"], kind="stable")
    table["change"] = table["change"].infer_objects()
    return table[columns].reset_index(drop=True)


def _proba(raw_model, frame: pd.DataFrame, column: int) -> np.ndarray:
    cols = list(getattr(raw_model, "feature_names_in_", frame.columns))
    return np.asarray(raw_model.predict_proba(frame[cols]), dtype=float)[:, column]


def _grafted_by_cost(encoder, z, donors, keep, weights):
    """The person's distinct actionable grafted donors (moved at all), cheapest first."""
    from ..allocation.advice import graft_candidates  # the allocation lesson's graft step

    grafted = graft_candidates(z, donors, encoder, keep=keep)[1:]
    grafted = grafted[~pd.DataFrame(grafted).duplicated().to_numpy()]  # hashing: np.unique's sort is slower
    grafted = grafted[encoder.actionable(np.broadcast_to(z, grafted.shape), grafted)]
    cost = encoder.cost(np.broadcast_to(z, grafted.shape), grafted, weights=weights)
    grafted, cost = grafted[cost > 0], cost[cost > 0]
    return grafted[np.argsort(cost, kind="stable")]


def _first_reaching(score, candidates, threshold, batch, start=0):
    """The first candidate (in order) whose score reaches ``threshold``, scoring ``batch`` at a time."""
    for begin in range(start, len(candidates), batch):
        chunk = candidates[begin:begin + batch]
        reach = score(chunk) >= threshold
        if reach.any():
            return chunk[np.argmax(reach)]
    return None


def _search_target(score, encoder, z, lower, upper, keep_mask, threshold, weights, n_samples, max_features, rng):
    """Cheapest of ``n_samples`` random sparse actionable moves that reaches ``threshold`` (None if none)."""
    movable = [name for name in encoder.feature_names
               if not keep_mask[encoder.slices_[name]].all()
               and (upper[encoder.slices_[name]] - lower[encoder.slices_[name]] > 0).any()]
    if not movable or n_samples == 0:
        return None
    lo = np.clip(z + lower, 0.0, 1.0)
    hi = np.clip(z + upper, 0.0, 1.0)
    trials = np.repeat(z[None, :], n_samples, axis=0)
    size = rng.integers(1, min(max_features, len(movable)) + 1, size=n_samples)
    ranks = rng.random((n_samples, len(movable))).argsort(axis=1).argsort(axis=1)
    chosen = ranks < size[:, None]  # each sample changes `size` features drawn without replacement
    for f, name in enumerate(movable):
        s, rows = encoder.slices_[name], np.flatnonzero(chosen[:, f])
        spec = encoder.spec(name)
        if spec.kind == "categorical":
            allowed = np.flatnonzero(hi[s] > 0.5)  # categories advice may switch to (never-advised ones excluded)
            trials[rows, s] = 0.0
            trials[rows, s.start + rng.choice(allowed, size=len(rows))] = 1.0
        elif spec.never_advise_levels:  # an ordinal: draw among the levels advice may move the person to
            trials[rows, s.start] = rng.choice(_advisable_levels(encoder, spec, z, lo, hi), size=len(rows))
        else:
            trials[rows, s] = rng.uniform(lo[s], hi[s], size=(len(rows), s.stop - s.start))
    trials = encoder.snap_to_levels(np.broadcast_to(z, trials.shape), trials)
    trials[:, keep_mask] = z[keep_mask]
    starts = np.broadcast_to(z, trials.shape)
    ok = encoder.actionable(starts, trials)
    trials = trials[ok]
    if not len(trials):
        return None
    reach = score(trials) >= threshold
    if not reach.any():
        return None
    trials = trials[reach]
    return trials[np.argmin(encoder.cost(starts[: len(trials)], trials, weights=weights))]


def _advisable_levels(encoder, spec, z, lo, hi) -> np.ndarray:
    """Encoded values of the ordinal ``spec``'s levels within ``[lo, hi]`` that advice may move ``z`` to."""
    levels = encoder.levels_[spec.name]
    step, j = 1.0 / max(len(levels) - 1, 1), encoder.slices_[spec.name].start
    codes = np.arange(len(levels))
    own = int(round(z[j] / step))
    never = [levels.index(level) for level in spec.never_advise_levels]
    keep = (codes * step >= lo[j] - 1e-9) & (codes * step <= hi[j] + 1e-9) & (~np.isin(codes, never) | (codes == own))
    return codes[keep] * step


def _one_chunk(positions, X, Z, donors, raw_model, encoder, column, threshold, keep, weights, batch, n_samples,
               max_features, seed):
    """Targets (or None) and methods for the people at ``positions`` (one joblib task)."""
    from ..allocation.advice import _feature_columns

    keep_mask = _feature_columns(encoder, keep, "keep")
    lower, upper = encoder.advice_bounds()
    rng = np.random.default_rng(seed)
    ranked = [_grafted_by_cost(encoder, Z[p], donors, keep, weights) for p in positions]
    first = _first_batch(positions, ranked, X, Z, raw_model, encoder, column, threshold, batch)
    out = []
    for p, candidates, found in zip(positions, ranked, first, strict=True):
        base, z = X.iloc[[p]], Z[p]

        def score(C, base=base, z=z):
            return _proba(raw_model, _raw_rows(encoder, C, base.loc[base.index.repeat(len(C))],
                                               np.broadcast_to(z, C.shape)), column)

        target, method = (found if found is not None
                          else _first_reaching(score, candidates, threshold, batch, start=batch)), "graft"
        if target is None:
            target, method = _search_target(score, encoder, z, lower, upper, keep_mask, threshold, weights,
                                            n_samples, max_features, rng), "search"
        out.append((target, method if target is not None else "none"))
    moved = [i for i, (t, _) in enumerate(out) if t is not None]
    if moved:
        pruned = _prune_many(np.asarray(positions)[moved], np.array([out[i][0] for i in moved]), X, Z, raw_model,
                             encoder, column, threshold)
        for i, t in zip(moved, pruned, strict=True):
            out[i] = (t, out[i][1])
    return out


def _prune_many(positions, targets, X, Z, raw_model, encoder, column, threshold):
    """:func:`~recourselab.allocation.prune_move` for many people at once, one model call per round.

    Each round, for every person still pruning, every changed feature is reverted in turn; among the
    reversions that keep the score at ``threshold`` and the move actionable, the one saving the most
    cost is kept (the first such feature on ties, in the encoder's order), as ``prune_move`` does.
    """
    slices = [encoder.slices_[name] for name in encoder.feature_names]
    current = targets.copy()
    active = np.ones(len(positions), dtype=bool)
    while active.any():
        trials, owners, which = [], [], []
        for i in np.flatnonzero(active):
            a = Z[positions[i]]
            changed = [s for s in slices if not np.allclose(current[i, s], a[s])]
            if not changed:
                active[i] = False
                continue
            block = np.repeat(current[i][None, :], len(changed), axis=0)
            for k, s in enumerate(changed):
                block[k, s] = a[s]
            trials.append(block)
            owners += [positions[i]] * len(changed)
            which += [i] * len(changed)
        if not trials:
            break
        trials, owners, which = np.vstack(trials), np.asarray(owners), np.asarray(which)
        starts = Z[owners]
        ok = (_proba(raw_model, _raw_rows(encoder, trials, X.iloc[owners], starts), column) >= threshold) \
            & encoder.actionable(starts, trials)
        saved = encoder.cost(starts, current[which]) - encoder.cost(starts, trials)
        for i in np.unique(which):
            mine = np.flatnonzero((which == i) & ok)
            if not len(mine):
                active[i] = False
                continue
            current[i] = trials[mine[np.argmax(saved[mine])]]
    return list(current)


def _first_batch(positions, ranked, X, Z, raw_model, encoder, column, threshold, batch):
    """Each person's first reaching candidate among their ``batch`` cheapest, all people in one model call
    (a pipeline's per-call overhead dominates small calls)."""
    heads = [candidates[:batch] for candidates in ranked]
    sizes = np.array([len(h) for h in heads])
    if not sizes.sum():
        return [None] * len(positions)
    owners = np.repeat(np.asarray(positions), sizes)
    proba = _proba(raw_model, _raw_rows(encoder, np.vstack(heads), X.iloc[owners], Z[owners]), column)
    found, start = [], 0
    for head, size in zip(heads, sizes, strict=True):
        reach = proba[start:start + size] >= threshold
        found.append(head[np.argmax(reach)] if reach.any() else None)
        start += size
    return found


def recourse_for_refused(model, X, encoder, *, rows=None, donors=None, favourable=1, threshold: float = 0.5,
                         keep=(), weights: Mapping[str, float] | None = None, batch: int = 512,
                         n_samples: int = 2000, max_features: int = 3, n_jobs: int = 1, chunk_size: int = 25,
                         progress: bool = True, random_state: int = 0) -> BatchRecourse:
    """Actionable recourse for every refused person, from a fitted model on the raw frame.

    For each person the cheapest actionable move found (graft, then a bounded random search, then
    pruning; see the module docstring) whose favourable probability reaches ``threshold``, decoded
    into the raw columns of ``X`` and kept only if the raw model's ``predict`` then gives
    ``favourable``. The search is over observed donors and sampled moves, so the cost is an upper
    bound on the optimum, not the optimum.

    Parameters
    ----------
    model : fitted classifier taking a DataFrame, or an EncodedModel
        E.g. a ``Pipeline`` with its own ``ColumnTransformer``; it must have ``predict_proba`` and
        ``classes_`` holding ``favourable``. Columns it takes that no spec describes (an identifier)
        keep each person's own value, with a warning naming them unless the encoder lists them in
        ``ignore``.
    X : DataFrame
        The raw rows (people to audit and, by default, the donors), with a unique index.
    encoder : Encoder
        Fitted on the raw frame, with the specs that say what advice may change (immutable features,
        advised directions, plausible changes, ``advise="never"``).
    rows : index labels or boolean mask, optional
        The people to audit. Default: those the model refuses (``predict != favourable``).
    donors : DataFrame, optional
        Observed profiles to graft from (default ``X``); the encoder's features are read from it.
    favourable : label, default 1
        The model's favourable class (e.g. 0 when 1 means reoffending).
    threshold : float in (0, 1], default 0.5
        The favourable probability a move must reach. The final check is ``predict``; raise the
        threshold for a margin.
    keep : sequence of str, default ()
        Features held at each person's values besides those the specs never advise.
    weights : mapping, optional
        Per-feature cost weights overriding the specs' ``weight``.
    batch : int, default 512
        Grafted candidates scored per model call, cheapest first.
    n_samples : int, default 2000
        Random moves tried per person that no graft reaches (0 turns the search off).
    max_features : int, default 3
        Most features a sampled move changes.
    n_jobs : int, default 1
        Processes for joblib (-1: all cores); people are split into chunks of ``chunk_size``.
    chunk_size : int, default 25
    progress : bool, default True
        A progress bar counting the people done.
    random_state : int, default 0
        Seeds the bounded search (each chunk derives its own seed, so results do not depend on
        ``n_jobs``).

    Returns
    -------
    BatchRecourse

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from sklearn.ensemble import GradientBoostingClassifier
    >>> from recourselab.features import Encoder, FeatureSpec
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"age": rng.integers(20, 70, 300), "savings": rng.uniform(0, 10, 300).round(1)})
    >>> y = (X["savings"] + rng.normal(0, 1, 300) > 5).astype(int)
    >>> model = GradientBoostingClassifier(random_state=0).fit(X, y)
    >>> enc = Encoder([FeatureSpec("age", "continuous", "immutable"),
    ...                FeatureSpec("savings", "continuous", "increase", unit="k")]).fit(X)
    >>> res = recourse_for_refused(model, X, enc, progress=False)
    >>> bool(res.summary["found"].all()), set(res.changes["feature"])
    (True, {'savings'})
    """
    start = time.perf_counter()
    check_encoder(encoder)
    X = _check_frame(X, "X")
    donors = X if donors is None else _check_frame(donors, "donors")
    threshold = check_number(threshold, "threshold", minimum=0.0, maximum=1.0)
    if threshold == 0:
        raise ValueError("threshold=0 is reached by everyone; give the favourable probability a move must reach, "
                         "e.g. 0.5.")
    batch = check_int(batch, "batch", minimum=1)
    n_samples = check_int(n_samples, "n_samples", minimum=0)
    max_features = check_int(max_features, "max_features", minimum=1)
    chunk_size = check_int(chunk_size, "chunk_size", minimum=1)
    n_jobs = check_int(n_jobs, "n_jobs", minimum=-1)
    progress = check_bool(progress, "progress")
    seed = check_seed(random_state, "random_state")
    raw_model = _raw_model(model)
    column = favourable_column(raw_model, favourable)
    missing = [c for c in getattr(raw_model, "feature_names_in_", []) if c not in X.columns]
    if missing:
        raise ValueError(f"the model takes columns {missing[:8]} that X lacks; give X every raw column the model "
                         "was fitted on.")
    from ..allocation.advice import _feature_columns

    _feature_columns(encoder, keep, "keep")  # checked here, not first inside a worker process
    ignored = [encoder.ignore] if isinstance(encoder.ignore, str) else list(encoder.ignore or ())
    unspecified = [c for c in getattr(raw_model, "feature_names_in_", [])
                   if c not in encoder.feature_names and c not in ignored]  # Encoder(ignore=) says it on purpose
    if unspecified:
        warnings.warn(f"the model takes columns {unspecified[:8]} that no FeatureSpec describes: every move holds "
                      "them at each person's own value, so a column derived from another (a flag computed from "
                      "hours, a ratio) goes stale when that one moves. Compute derived columns inside the pipeline, "
                      "give each a FeatureSpec (advise='never' makes the freeze explicit), or list it in "
                      "Encoder(..., ignore=[...]) to say that holding it is meant.", stacklevel=2)
    Z = encoder.transform(X)
    Zd = np.unique(encoder.transform(donors), axis=0)
    decision = np.asarray(raw_model.predict(X[list(getattr(raw_model, "feature_names_in_", X.columns))]))
    positions = _rows(rows, X, decision != favourable)
    chunks = [positions[i:i + chunk_size] for i in range(0, len(positions), chunk_size)]
    seeds = np.random.SeedSequence(seed).spawn(len(chunks))
    tasks = (delayed(_one_chunk)(c, X, Z, Zd, raw_model, encoder, column, threshold, keep, weights, batch,
                                 n_samples, max_features, s) for c, s in zip(chunks, seeds, strict=True))
    results = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    found = []
    with tqdm(total=len(positions), disable=not progress, desc="recourse", unit="person") as bar:
        for chunk in results:
            found += chunk
            bar.update(len(chunk))
    return _assemble(X, Z, positions, found, raw_model, encoder, column, favourable, decision, threshold, weights,
                     time.perf_counter() - start)


def _assemble(X, Z, positions, found, raw_model, encoder, column, favourable, decision, threshold, weights, seconds):
    """The result tables, each move re-checked on the raw model in the frame's dtypes."""
    people = X.iloc[positions]
    targets = np.array([Z[p] if t is None else t for p, (t, _) in zip(positions, found, strict=True)])
    targets = targets.reshape(len(positions), -1)
    counterfactuals = _raw_rows(encoder, targets, people, Z[positions])
    cols = list(getattr(raw_model, "feature_names_in_", X.columns))
    after_decision = np.asarray(raw_model.predict(counterfactuals[cols])) if len(people) else np.array([])
    proba = _proba(raw_model, people, column) if len(people) else np.array([])
    proba_after = _proba(raw_model, counterfactuals, column) if len(people) else np.array([])
    method = np.array([m for _, m in found], dtype=object)
    already = decision[positions] == favourable
    method[already] = "already favourable"
    moved = np.array([t is not None for t, _ in found], dtype=bool) & ~already
    flips = moved & (after_decision == favourable)
    method[moved & ~flips] = "none"  # a move the raw model's predict does not confirm is not returned
    ok = flips | already
    counterfactuals[~flips] = people[~flips]
    cost = np.where(flips, encoder.cost(Z[positions], targets, weights=weights) if len(people) else 0.0, np.inf)
    cost[already] = 0.0
    changes = _changes_table(encoder, Z[positions][flips], targets[flips], people.index[flips], weights)
    words = changes.groupby("row", sort=False)["feature"].agg(", ".join) if len(changes) else pd.Series(dtype=object)
    summary = pd.DataFrame({
        "found": ok, "method": method, "cost": cost, "proba": proba,
        "proba_after": np.where(ok, np.where(already, proba, proba_after), np.nan),
        "n_changes": changes.groupby("row", sort=False).size().reindex(people.index, fill_value=0).to_numpy(),
    }, index=people.index)
    summary["changes"] = words.reindex(people.index).fillna("").to_numpy()
    return BatchRecourse(summary, counterfactuals, changes, threshold, seconds)
