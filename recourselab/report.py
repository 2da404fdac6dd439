"""A one-call audit of a fitted model, saved as an HTML page and a JSON file a practitioner can hand on.

:func:`audit_model` runs, on the user's own fitted model (any classifier on the raw frame, e.g. a
scikit-learn ``Pipeline``) and specs, every lens of the book that applies to any model, each with the
reference that gives its number meaning:

0. **Does the model use the protected attribute?** Whether the column is among the model's inputs,
   and the share of refused members of the audited group that the model approves when only that
   attribute is switched to the reference group's value (and the same the other way round).
1. **Who has recourse, at what cost?** :func:`~recourselab.counterfactuals.recourse_for_refused` on
   everyone refused in the two groups: the share for whom an actionable move that flips the model was
   found, and the mean and median cost of those moves, with the group sizes and a two-sided
   permutation test of the mean cost gap (group labels shuffled among those with a move); with
   ``strata=``, the same by stratum and one stratified permutation test
   (:func:`~recourselab.stratified.stratified_gap_test`).
2. **Situation testing** (:func:`~recourselab.situation_testing.situation_testing`, without
   counterfactuals): the share of refused members of the audited group whose ``k`` nearest members
   of the reference group were approved more often, beside the same share with the group labels
   shuffled (what the test flags by chance on this data) and a one-sided p.
3. **The recourse fairness ratio** ρ of the refused with a move found
   (:func:`~recourselab.fair_ranking.recourse_fairness_ratio` on the two groups): the ratio of the
   same costs' means as lens 1, a description with no test of its own.

Lenses that need more than a classifier say so in the report and are not run: explanation
consistency needs matched partners and the model's attributions (``recourselab.explanation_consistency``;
finite differences serve a model without gradients), counterfactual situation testing a structural
causal model, robust recourse a budget and a utility (the full list: ``NOT_RUN``).

:class:`AuditReport` keeps every number (``to_dict``, ``to_json``, ``from_json``) with the run's
metadata (package version, a hash of the data, the specs, the seeds, the time) and the list of its
tests with their Bonferroni line (``tests``), and writes the HTML
page (``to_html``; its figures need the ``book`` extra, matplotlib).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import html
import io
import json
import time
import warnings
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from ._extras import require
from ._validation import check_bool, check_int, check_seed, check_unit_interval, favourable_column, plain
from .counterfactuals.batch import BatchRecourse, _check_frame, _raw_model, recourse_for_refused
from .fair_ranking import recourse_fairness_ratio
from .features import check_encoder, features_to_frame
from .situation_testing import situation_testing
from .stratified import shuffled_st_shares, stratified_gap_test

__all__ = ["AuditReport", "audit_model"]

SMALL_GROUP = 30  # fewer refused people than this in a group: its shares are too noisy to read alone
NOT_RUN = {
    "group counterfactuals (FACEGroup)": "needs a feasibility graph over the data and its density threshold "
                                         "(recourselab.group_counterfactuals)",
    "counterfactual situation testing": "needs a structural causal model of the data (recourselab.scm)",
    "explanation consistency": "needs each person matched to a partner of the other group and attributions of "
                               "the model (recourselab.explanation_consistency.audit_explanations; finite "
                               "differences for a model without gradients, at many model calls per person)",
    "recourse-aware re-ranking (RAGUEL)": "modifies people through a linear model (recourselab.fair_ranking.raguel; "
                                          "rerank_by_cost re-ranks by any per-person cost)",
    "robust recourse under a budget": "needs a budget distribution and a utility (recourselab.allocation)",
}


@dataclass(frozen=True)
class AuditReport:
    """The result of :func:`audit_model`: one section per lens, and the run's metadata.

    Attributes
    ----------
    sections : list of dict
        Per lens: ``lens``, ``question``, ``numbers`` (a flat mapping of named numbers), ``reading``
        (the number beside its reference, in words), ``limits`` and ``table`` (a small list of
        records for the page).
    metadata : dict
        Package version, data hash (SHA-256 of the audited rows), specs, protected column and
        groups, seeds, start time and seconds; ``notes`` once :meth:`with_notes` adds them.
    not_run : dict
        Lenses that do not apply to a bare classifier, with the reason.
    tests : dict
        The report's tests (``tests``: name, sides and p of each), the Bonferroni line for them at 5%
        (``bonferroni``) and a sentence saying so (``line``).
    """

    sections: list
    metadata: dict
    not_run: dict = field(default_factory=lambda: dict(NOT_RUN))
    tests: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Everything in the report as plain Python values (what ``to_json`` writes)."""
        return {"metadata": self.metadata, "sections": self.sections, "not_run": self.not_run, "tests": self.tests}

    def to_json(self, path) -> Path:
        """Write the report's numbers and metadata to ``path`` (UTF-8 JSON); returns the path."""
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False), encoding="utf-8")
        return path

    @classmethod
    def from_json(cls, path) -> "AuditReport":
        """Read a report written by :meth:`to_json`."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(data["sections"], data["metadata"], data["not_run"], data.get("tests", {}))

    def with_notes(self, notes) -> "AuditReport":
        """A copy of the report with the auditor's notes added, to hand it on with what its numbers rest on.

        A note says what a reader needs beside the numbers: that the rows are a sample and what the whole
        data gives, what the model is for, who checked it. The HTML page shows the notes under its title and
        the JSON keeps them in ``metadata["notes"]``; notes already there are kept. This report is not changed.

        Parameters
        ----------
        notes : str or sequence of str
            One note, or several, each a non-empty string.

        Examples
        --------
        >>> shared = report.with_notes("Rows: a random sample of 1,000 of 9,769.")  # doctest: +SKIP
        """
        if isinstance(notes, str):
            notes = [notes]
        if notes is None or isinstance(notes, (bytes, dict)) or not hasattr(notes, "__iter__"):
            raise TypeError(f"notes={notes!r} is not a string or a list of strings; give one note as a string "
                            "or several as a list, e.g. notes=['Rows: a sample of 1,000.'].")
        notes = list(notes)
        if not notes:
            raise ValueError("notes=[] holds no note; give at least one non-empty string.")
        for i, note in enumerate(notes):
            if not isinstance(note, str) or not note.strip():
                raise ValueError(f"notes[{i}]={note!r} is not a note; give each note as a non-empty string.")
        metadata = copy.deepcopy(self.metadata)
        metadata["notes"] = [*metadata.get("notes", []), *(note.strip() for note in notes)]
        return replace(self, sections=copy.deepcopy(self.sections), metadata=metadata,
                       not_run=dict(self.not_run), tests=copy.deepcopy(self.tests))

    def to_frame(self) -> pd.DataFrame:
        """One row per lens: its question and its reading."""
        return pd.DataFrame([{"lens": s["lens"], "question": s["question"], "reading": s["reading"]}
                             for s in self.sections])

    def to_html(self, path, *, figures: bool = True) -> Path:
        """Write a self-contained HTML page (figures embedded as PNG); returns the path."""
        figures = check_bool(figures, "figures")
        path = Path(path)
        path.write_text(_page(self, figures), encoding="utf-8")
        return path


def _check_groups(X: pd.DataFrame, protected: str, group, reference):
    if protected not in X:
        raise ValueError(f"protected={protected!r} is not a column of X; give the column holding the protected "
                         f"attribute (X has {list(X.columns)[:12]}).")
    values = pd.unique(X[protected].dropna())
    if pd.isna(group) or group not in set(values):
        raise ValueError(f"group={plain(group)!r} is not a value of X[{protected!r}]; its values are "
                         f"{[plain(v) for v in values]}.")
    others = [v for v in values if v != group]
    if reference is None:
        if len(others) != 1:
            raise ValueError(f"X[{protected!r}] has {len(values)} values {[plain(v) for v in values]}; name the group "
                             f"to compare {plain(group)!r} with: reference=<one of them>. Mixing several groups "
                             "into one reference hides which comparison each number makes.")
        reference = others[0]
    elif reference not in set(others):
        raise ValueError(f"reference={plain(reference)!r} is not another value of X[{protected!r}]; choose one of "
                         f"{[plain(v) for v in others]}.")
    return group, reference


def _flip_lens(decide, used, X, refused, is_g, is_r, protected, group, reference):
    out, lost = {}, {}
    for name, who, value in (("group", is_g, reference), ("reference", is_r, group)):
        for mask, store, now in ((refused & who, out, True), (~refused & who, lost, False)):
            rows = X[mask].copy()
            rows[protected] = value
            decided = decide(rows)
            store[name] = (int((decided == now).sum()), len(rows))  # refused now approved / approved now refused
    g, r = out["group"], out["reference"]
    lg, lr = lost["group"], lost["reference"]

    def share(count):
        return count[0] / count[1] if count[1] else float("nan")

    reading = (f"The model {'takes' if used else 'does not take'} {protected!r} as an input. Switching only "
               f"{protected!r} to {plain(reference)!r} approves {g[0]} of {g[1]} refused {plain(group)!r} "
               f"({share(g):.0%}); switching {plain(reference)!r} to {plain(group)!r} approves {r[0]} of {r[1]} "
               f"({share(r):.0%}). The other way, it refuses {lg[0]} of {lg[1]} approved {plain(group)!r} and "
               f"{lr[0]} of {lr[1]} approved {plain(reference)!r}.")
    return {"lens": "0. the protected attribute itself",
            "question": f"Does the model's decision depend on {protected!r} directly?",
            "numbers": {"uses_protected": used, "flip_group": g[0], "refused_group": g[1], "flip_reference": r[0],
                        "refused_reference": r[1], "unflip_group": lg[0], "approved_group": lg[1],
                        "unflip_reference": lr[0], "approved_reference": lr[1]},
            "reading": reading,
            "limits": ("A model that does not take the column can still use proxies of it; a flip that changes "
                       "nothing does not show the model is fair, only that the column alone does not decide."),
            "table": []}


def _shuffled(values, labels, n, rng, statistic):
    return np.array([statistic(values, rng.permutation(labels)) for _ in range(n)])


_EXACT = ("The moves come from scoring every advised whole-unit move (exhaustive_recourse), so a cost is the "
          "cheapest on that grid and 'not found' means none on it. ")
_BOUND = ("The moves come from observed people and a bounded search, so a cost is an upper bound and 'not found' "
          "means none found, not none possible. ")


def _recourse_lens(result, groups_refused, group, reference, n_shuffles, rng, strata=None, strata_name=None,
                   rng_strata=None):
    s = result.summary
    found = s["found"].to_numpy() & (s["method"] != "already favourable").to_numpy()
    rows = []
    for g in (group, reference):
        mine = groups_refused == g
        cost = s.loc[mine & found, "cost"]
        rows.append({"group": plain(g), "refused": int(mine.sum()), "with recourse": int((mine & found).sum()),
                     "share": float((mine & found).sum() / mine.sum()) if mine.sum() else float("nan"),
                     "mean cost": float(cost.mean()) if len(cost) else float("nan"),
                     "median cost": float(cost.median()) if len(cost) else float("nan")})
    cost, labels = s.loc[found, "cost"].to_numpy(), groups_refused[found]

    # The mean, not the median, is tested: costs are lumpy (many moves cost exactly one category change),
    # so a median gap sits on a lump and its shuffled distribution is mostly a spike at 0.
    def gap(c, lab):
        a, b = c[lab == group], c[lab == reference]
        return float(np.mean(a) - np.mean(b)) if len(a) and len(b) else float("nan")

    observed = gap(cost, labels)
    null = _shuffled(cost, labels, n_shuffles, rng, gap) if np.isfinite(observed) else np.array([])
    p = float((np.sum(np.abs(null) >= abs(observed) - 1e-12) + 1) / (len(null) + 1)) if len(null) else float("nan")
    g, r = rows
    reading = (f"A move that flips the model was found for {g['with recourse']} of {g['refused']} refused "
               f"{g['group']!r} ({g['share']:.0%}), against {r['with recourse']} of {r['refused']} {r['group']!r} "
               f"({r['share']:.0%}). Mean cost {g['mean cost']:.3f} against {r['mean cost']:.3f} (gap "
               f"{observed:+.3f}; with the group labels shuffled among those with a move, a gap this large or "
               f"larger either way in {int(round(p * (len(null) + 1))) - 1} of {len(null)} shuffles, two-sided "
               f"p = {p:.3f}); median cost {g['median cost']:.3f} against {r['median cost']:.3f}.")
    section = {"lens": "1. recourse for the refused",
               "question": "Can the refused change what they may change and be approved, and at what cost, by group?",
               "numbers": {"mean_cost_gap": observed, "p_shuffled": p, "n_shuffles": len(null),
                           "median_cost_gap": (g["median cost"] - r["median cost"]),
                           "found_share": float(found.mean()) if len(found) else float("nan")},
               "reading": reading,
               "limits": (_EXACT if set(s.loc[found, "method"]) == {"exhaustive"} else _BOUND)
                         + ("Costs follow the specs' weights. The gap tested is of the means; the medians are shown as "
                            "a description (lumpy costs make a median gap a poor test)."),
               "table": rows}
    if strata is None:
        return section
    table = []
    for stratum in sorted(pd.unique(strata), key=str):
        for g in (group, reference):
            mine = (strata == stratum) & (groups_refused == g)
            cost_s = s.loc[mine & found, "cost"]
            table.append({"stratum": plain(stratum), "group": plain(g), "refused": int(mine.sum()),
                          "with recourse": int((mine & found).sum()),
                          "share": float((mine & found).sum() / mine.sum()) if mine.sum() else float("nan"),
                          "mean cost": float(cost_s.mean()) if len(cost_s) else float("nan")})
    test = stratified_gap_test(cost, labels, strata[found], group=group, reference=reference,
                               n_shuffles=n_shuffles, random_state=rng_strata)
    larger = int(round(test["p"] * (test["n_shuffles"] + 1))) - 1
    balanced = _balanced_gap(test["strata"])
    section["reading"] += (f" Within strata of {strata_name}, the within-stratum gaps weighted by each "
                           f"stratum's number of people with a move give {test['gap']:+.3f} "
                           f"({test['gap'] / observed:.0%} of the overall gap; weights that balance the two groups "
                           f"give {balanced:+.3f}, {balanced / observed:.0%}: the share depends on the weights); "
                           f"with the labels shuffled within each stratum, a gap this large or larger either "
                           f"way in {larger} of {test['n_shuffles']} shuffles (two-sided p = {test['p']:.3f}).")
    small = [f"{row['stratum']} {row['group']!r}: {row['refused']}" for row in table
             if 0 < row["refused"] < SMALL_GROUP]
    if small:
        section["reading"] += (f" Warning: fewer than {SMALL_GROUP} refused in {'; '.join(small)}; shares and means "
                               "of so few are too noisy to read alone.")
    section["numbers"].update({"stratified_gap": test["gap"], "stratified_gap_balanced": balanced,
                               "p_stratified": test["p"], "strata_left_out": test["strata_left_out"]})
    section["strata"] = {"column": strata_name, "table": table, "gaps": test["strata"]}
    section["limits"] += (f" The strata of {strata_name} are not like with like where they differ in a column the "
                          "model takes (e.g. wives and husbands, whose household role is sex under another name): a "
                          "within-stratum gap shows where a gap lies, not that it is explained.")
    return section


def _balanced_gap(strata) -> float:
    """The within-stratum gaps weighted by n_g n_r / (n_g + n_r), which balances the two groups (Mantel-Haenszel's
    weights for a difference), against :func:`stratified_gap_test`'s weights n_g + n_r."""
    weights = np.array([row["n_group"] * row["n_reference"] / (row["n_group"] + row["n_reference"]) for row in strata])
    gaps = np.array([row["gap"] for row in strata])
    return float(weights @ gaps / weights.sum()) if len(strata) else float("nan")


def _st_lens(Z, is_g, is_r, decisions, refused, k, n_shuffles, rng, n_jobs):
    keep = is_g | is_r
    prot = is_g[keep]
    res = situation_testing(Z[keep], prot, decisions[keep], k=k, reference=~prot, n_jobs=n_jobs)
    mine = refused[keep][prot]
    observed = float(res["significant"].to_numpy()[mine].mean()) if mine.any() else float("nan")
    # the distance leaves the labels out: one neighbour ordering serves every shuffle (same shares as rerunning)
    null = shuffled_st_shares(Z[keep], prot, decisions[keep], k=k, n_shuffles=n_shuffles, random_state=rng)
    null = null[np.isfinite(null)]
    high = int(np.sum(null >= observed - 1e-12))
    p = float((high + 1) / (len(null) + 1)) if len(null) and np.isfinite(observed) else float("nan")
    reading = (f"Situation testing flags {observed:.0%} of the refused audited group (k = {k}); with the group "
               f"labels shuffled it flags {np.nanmean(null):.0%} on average ({np.nanmin(null):.0%} to "
               f"{np.nanmax(null):.0%} over {len(null)} shuffles). A share this high or higher came up in {high} "
               f"of {len(null)} shuffles (one-sided, p = {p:.3f}).")
    return {"lens": "2. situation testing",
            "question": ("For a refused member of the audited group, were their k nearest neighbours in the same "
                         "group refused more often than their k nearest in the reference group (situation "
                         "testing)?"),
            "numbers": {"flagged_share": observed, "shuffled_mean": float(np.nanmean(null)),
                        "shuffled_min": float(np.nanmin(null)), "shuffled_max": float(np.nanmax(null)),
                        "p_shuffled": p, "k": k, "n_shuffles": len(null)},
            "reading": reading,
            "limits": ("Neighbours are found on the encoded features with the protected attribute left out, but "
                       "not its proxies: a column that encodes it (e.g. a household role saying husband or wife) "
                       "stays in the distance, and dropping it may not take the proxy out where other columns "
                       "encode it together (married and male says husband): read the flags by the proxy's "
                       "levels. The "
                       "shuffled reference breaks every link between the group and the other columns, so it is "
                       "the chance level of a world where the group is unrelated to the data. A flag is a "
                       "lead for a human review, not a finding of discrimination."),
            "table": []}


def _rho_lens(result, groups_refused, group, reference):
    s = result.summary
    found = s["found"].to_numpy()
    cost, labels = s.loc[found, "cost"].to_numpy(), groups_refused[found]
    two = np.isin(labels, [group, reference])
    cost, labels = cost[two], labels[two]
    rho = recourse_fairness_ratio(cost, labels) if len(np.unique(labels)) == 2 else float("nan")
    reading = (f"ρ = {rho:.3f} (1: equal mean costs), the smaller of the two groups' mean costs over the larger: "
               "a description of lens 1's gap, with no test of its own (read lens 1's p).")
    return {"lens": "3. the recourse fairness ratio",
            "question": ("Do the two groups carry equal mean recourse costs (the fair-ranking lesson's ρ, taken here "
                         "on the whole list of the refused with a move found)?"),
            "numbers": {"rho": rho},
            "reading": reading,
            "limits": ("ρ is the ratio of the same costs' means as lens 1's gap: it answers lens 1's question, and "
                       "lens 1's p is the one to read. It has no direction (a fall can mean either group got "
                       "cheaper) and counts only those with a move found; the lesson's ρ is on exact costs with "
                       "prefixes and β, neither used here."),
            "table": []}


def _reuse(recourse, rows, raw_model, X, column, recourse_options):
    """The audited rows of a ``recourse_for_refused`` result computed beforehand, checked to be about X."""
    if not isinstance(recourse, BatchRecourse):
        raise TypeError(f"recourse must be the BatchRecourse that recourse_for_refused or exhaustive_recourse "
                        f"returned, got "
                        f"{type(recourse).__name__}.")
    if recourse_options:
        raise TypeError(f"recourse is given, so the search options {sorted(recourse_options)} would not be used; "
                        "pass one or the other.")
    missing = rows.difference(recourse.summary.index)
    if len(missing):
        raise ValueError(f"recourse has no row for {len(missing)} refused people of the two groups (e.g. "
                         f"{list(missing[:3])}); compute it on the same X with rows covering them (the default "
                         "rows, everyone refused, do).")
    cols = list(getattr(raw_model, "feature_names_in_", X.columns))
    proba = np.asarray(raw_model.predict_proba(X.loc[rows, cols]))[:, column]
    if not np.allclose(proba, recourse.summary.loc[rows, "proba"].to_numpy(), atol=1e-9):
        raise ValueError("recourse does not match this model and X (its probabilities before the move differ); "
                         "compute it with the same model on the same rows.")
    return BatchRecourse(summary=recourse.summary.loc[rows], counterfactuals=recourse.counterfactuals.loc[rows],
                         changes=recourse.changes[recourse.changes["row"].isin(rows)],
                         threshold=recourse.threshold, seconds=recourse.seconds)


def audit_model(model, X, encoder, *, protected: str, group, reference=None, favourable=1, threshold=None, k: int = 15,
                n_shuffles: int = 200, st_shuffles: int = 200, n_jobs: int = 1, progress: bool = True,
                random_state: int = 0, recourse=None, strata=None, **recourse_options) -> AuditReport:
    """Audit a fitted model on its own rows with every lens that applies to any classifier.

    Parameters
    ----------
    model : fitted classifier on the raw frame (``predict`` and ``predict_proba``)
    X : DataFrame
        The rows to audit (raw columns, unique index): the people the model decides.
    encoder : Encoder
        Fitted, with the specs that say what advice may change.
    protected : str
        The column of ``X`` holding the protected attribute (it may be a model input or not).
    group : label
        The value of ``protected`` whose treatment is audited (e.g. "Female").
    reference : label, optional
        The value it is compared with. Required when the column has more than two values.
    favourable : label, default 1
    threshold : float in (0, 1], optional
        The cut-off on the favourable probability that approves a person, used for every decision the report
        reads (who is refused, what switching the protected attribute does, the recourse target, situation
        testing's outcomes). Default: the model's own ``predict`` decides, and recourse aims at 0.5.
    k : int, default 15
        Neighbours per group in situation testing.
    n_shuffles : int, default 200
        Label shuffles for the permutation tests of lens 1 (overall and within ``strata``).
    st_shuffles : int, default 200
        Label shuffles for situation testing's chance level and its one-sided p (up to 2,000 audited rows one
        neighbour ordering serves every shuffle; above, each shuffle reruns the test).
    n_jobs : int, default 1
    progress : bool, default True
    random_state : int, default 0
    recourse : BatchRecourse, optional
        A :func:`~recourselab.counterfactuals.recourse_for_refused` (or, for exact costs,
        :func:`~recourselab.counterfactuals.exhaustive_recourse`) result on the same model and ``X``
        covering the refused of both groups (e.g. the default call), reused instead of searching again.
    strata : str or Series, optional
        A column of ``X``, or a Series indexed like ``X``, whose values split the refused into strata (e.g.
        household role). Lens 1 then adds a table of shares and mean costs by stratum and group, and a
        stratified permutation test of the mean cost gap (:func:`~recourselab.stratified.stratified_gap_test`:
        labels shuffled within strata, the within-stratum gaps weighted by each stratum's number of people with a move).
    **recourse_options
        Passed to :func:`~recourselab.counterfactuals.recourse_for_refused` (e.g. ``n_samples``, ``keep``).

    Returns
    -------
    AuditReport

    Warns
    -----
    UserWarning
        When a group has fewer than 30 refused people: its shares and medians are too noisy to read alone.
    """
    start, began = time.perf_counter(), datetime.now(timezone.utc).isoformat(timespec="seconds")
    check_encoder(encoder)
    X = _check_frame(X, "X")
    group, reference = _check_groups(X, protected, group, reference)
    k = check_int(k, "k", minimum=1)
    n_shuffles = check_int(n_shuffles, "n_shuffles", minimum=1)
    st_shuffles = check_int(st_shuffles, "st_shuffles", minimum=1)
    seed = check_seed(random_state, "random_state")
    raw_model = _raw_model(model)
    column = favourable_column(raw_model, favourable)
    cols = list(getattr(raw_model, "feature_names_in_", X.columns))
    if threshold is not None:
        threshold = check_unit_interval(threshold, "threshold")
        if threshold == 0:
            raise ValueError("threshold=0 approves everyone, so no one is refused; give a cut-off in (0, 1].")

    def decide(frame):  # approved or not, by the model's predict or by the cut-off on its probability
        if not len(frame):
            return np.array([], dtype=bool)
        if threshold is None:
            return np.asarray(raw_model.predict(frame[cols])) == favourable
        return np.asarray(raw_model.predict_proba(frame[cols]))[:, column] >= threshold

    decisions = decide(X).astype(int)
    is_g, is_r = (X[protected] == group).to_numpy(), (X[protected] == reference).to_numpy()
    refused = decisions == 0
    for name, who in ((group, is_g), (reference, is_r)):
        if (refused & who).sum() < SMALL_GROUP:
            warnings.warn(f"only {(refused & who).sum()} refused people have {protected} = {plain(name)!r}; shares "
                          f"and medians of fewer than {SMALL_GROUP} are too noisy to read alone.", stacklevel=2)
    # one stream per lens, so that one lens's number of shuffles leaves the others' draws as they are
    rng_cost, rng_st, rng_strata = (np.random.default_rng(child) for child in np.random.SeedSequence(seed).spawn(3))
    sections = [_flip_lens(decide, protected in cols, X, refused, is_g, is_r, protected, group, reference)]
    rows = X.index[refused & (is_g | is_r)]
    strata_values, strata_name = _check_strata(strata, X, rows)
    if recourse is None:
        result = recourse_for_refused(raw_model, X, encoder, rows=rows, favourable=favourable, n_jobs=n_jobs,
                                      threshold=0.5 if threshold is None else threshold, progress=progress,
                                      random_state=seed, **recourse_options)
    else:
        if threshold is not None and getattr(recourse, "threshold", threshold) != threshold:
            raise ValueError(f"recourse was computed with threshold={recourse.threshold}, but threshold={threshold}; "
                             "compute it with the same threshold, or leave threshold out here.")
        result = _reuse(recourse, rows, raw_model, X, column, recourse_options)
    groups_refused = X.loc[rows, protected].to_numpy()
    sections.append(_recourse_lens(result, groups_refused, group, reference, n_shuffles, rng_cost, strata_values,
                                   strata_name, rng_strata))
    Z = encoder.transform(X)
    if protected in encoder.feature_names:
        Z = np.delete(Z, np.arange(encoder.n_columns)[encoder.slices_[protected]], axis=1)
    sections.append(_st_lens(Z, is_g, is_r, decisions, refused, k, st_shuffles, rng_st, n_jobs))
    sections.append(_rho_lens(result, groups_refused, group, reference))
    from . import __version__

    data_hash = _data_hash(X)
    specs = features_to_frame(encoder.specs_).astype(object).where(lambda f: f.notna(), None)
    metadata = {"package": "recourselab", "version": __version__, "started": began,
                "seconds": round(time.perf_counter() - start, 2), "rows": len(X), "data_sha256": data_hash,
                "model": type(raw_model).__name__, "protected": protected, "group": plain(group),
                "reference": plain(reference), "favourable": plain(favourable),
                "decision": "the model's predict" if threshold is None else f"favourable probability >= {threshold}",
                "random_state": seed, "k": k,
                "n_shuffles": n_shuffles, "st_shuffles": st_shuffles, "strata": strata_name,
                "recourse": (f"reused (computed beforehand, {recourse.seconds:.1f} s, threshold {recourse.threshold})"
                             if recourse is not None else
                             f"searched here (threshold {result.threshold}, options {recourse_options or 'defaults'})"),
                "specs": json.loads(specs.to_json(orient="records", default_handler=str))}
    sections = json.loads(json.dumps(sections, default=_plain_json))
    return AuditReport(sections, metadata, dict(NOT_RUN), _multiplicity(sections))


def _check_strata(strata, X, rows):
    """The strata of the audited refused rows (an array) and the strata's name, or (None, None)."""
    if strata is None:
        return None, None
    if isinstance(strata, str):
        if strata not in X:
            raise ValueError(f"strata={strata!r} is not a column of X; give a column name or a Series indexed like X "
                             f"(X has {list(X.columns)[:12]}).")
        values, name = X[strata], strata
    elif isinstance(strata, pd.Series):
        if not strata.index.equals(X.index):
            raise ValueError("strata is a Series whose index differs from X's; give one stratum per row of X, "
                             "indexed like X (e.g. X['relationship'].isin(['Husband', 'Wife'])).")
        values, name = strata, str(strata.name) if strata.name is not None else "strata"
    else:
        raise TypeError(f"strata must be a column name or a pandas Series indexed like X, got "
                        f"{type(strata).__name__}.")
    values = values.loc[rows]
    if values.isna().any():
        raise ValueError(f"strata has {int(values.isna().sum())} missing values among the refused audited rows; "
                         "fill them (e.g. with 'unknown') so that every refused person has a stratum.")
    return values.to_numpy(dtype=object), name


def _multiplicity(sections) -> dict:
    """The report's tests, their sides and p values, and the Bonferroni line for all of them at 5%."""
    found = []
    for s in sections:
        n = s["numbers"]
        if "p_shuffled" in n and s["lens"].startswith("1."):
            found.append({"test": "lens 1, mean cost gap (permutation)", "sides": "two-sided", "p": n["p_shuffled"]})
        if "p_stratified" in n:
            found.append({"test": f"lens 1, mean cost gap within {s['strata']['column']} (stratified permutation)",
                          "sides": "two-sided", "p": n["p_stratified"]})
        if "p_shuffled" in n and s["lens"].startswith("2."):
            found.append({"test": "lens 2, share flagged by situation testing (permutation)", "sides": "one-sided",
                          "p": n["p_shuffled"]})
    line = 0.05 / len(found) if found else float("nan")
    text = (f"This report runs {len(found)} tests on one sample: "
            + "; ".join(f"{t['test']}, {t['sides']} p = {t['p']:.3f}" for t in found)
            + f". The Bonferroni line for all {len(found)} at 5% is {line:.3f}; ρ and the shares carry no test.")
    return {"tests": found, "bonferroni": line, "line": text}


def _data_hash(X: pd.DataFrame) -> str:
    """SHA-256 of the rows, their index and columns (pandas' row hashes), to tell later which data was audited."""
    rows = pd.util.hash_pandas_object(X, index=True).to_numpy().tobytes()
    return hashlib.sha256(rows + "\x1f".join(map(str, X.columns)).encode()).hexdigest()


def _plain_json(value):
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if isinstance(value, np.floating):
        return float(value)
    return str(value)


# --------------------------------------------------------------------------- the HTML page
_STYLE = """body{font-family:system-ui,sans-serif;max-width:46rem;margin:1rem auto;padding:0 1rem;line-height:1.5}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}table{border-collapse:collapse;margin:.5rem 0}
td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:right}img{max-width:100%;height:auto}
.limits{color:#555;font-size:.9rem}.wide{overflow-x:auto}.meta{font-size:.85rem;color:#444}li,p{overflow-wrap:anywhere}
.notes{border-left:4px solid #E69F00;padding:.1rem .8rem;background:#fff8e6}"""


def _wilson(k, n):
    """The 95% Wilson score interval of a share k / n (NaN for an empty group)."""
    if not n:
        return float("nan"), float("nan")
    from scipy.stats import binomtest

    interval = binomtest(int(k), int(n)).proportion_ci(method="wilson")
    return interval.low, interval.high


def _figure(section) -> str:
    """A PNG (base64) for the sections with a picture: shares with a move found and mean costs by group."""
    if not section["table"]:
        return ""
    plt = require("matplotlib.pyplot", "book", "the audit report's figures")
    table = pd.DataFrame(section["table"])
    # each bar named with the size it is a share or a mean of; the shares with their 95% Wilson intervals
    names = [f"{g}\n{n} refused" for g, n in zip(table["group"].astype(str), table["refused"], strict=True)]
    low, high = np.array([_wilson(k, n) for k, n in zip(table["with recourse"], table["refused"], strict=True)]).T
    share = table["share"].to_numpy()
    fig, axes = plt.subplots(1, 2, figsize=(6.4, 2.6))
    axes[0].bar(names, share, color=["#0072B2", "#BBBBBB"], capsize=4,
                yerr=[np.nan_to_num(share - low), np.nan_to_num(high - share)])
    axes[0].set(ylim=(0, 1), ylabel="share with a move found", title="who has recourse (95% interval)")
    movers = [f"{g}\n{k} with\na move" for g, k in zip(table["group"].astype(str), table["with recourse"], strict=True)]
    axes[1].bar(movers, table["mean cost"], color=["#0072B2", "#BBBBBB"])
    axes[1].set(ylabel="mean cost\n(those with a move)", title="what it costs")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def _page(report: AuditReport, figures: bool) -> str:
    m = report.metadata
    e = html.escape
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><meta name='viewport' "
             f"content='width=device-width, initial-scale=1'><title>Audit of {e(m['model'])}</title>"
             f"<style>{_STYLE}</style></head><body>",
             f"<h1>Audit of {e(m['model'])}: {e(str(m['protected']))} = {e(str(m['group']))} against "
             f"{e(str(m['reference']))}</h1>",
             f"<p class='meta'>recourselab {e(m['version'])}, {e(m['started'])}, {m['rows']} rows (SHA-256 "
             f"{e(m['data_sha256'][:16])}…), random_state {m['random_state']}, {m['seconds']} s.</p>"]
    if m.get("notes"):  # the auditor's caveats come before any number
        parts.append("<div class='notes'><p><strong>Notes from the auditor</strong></p><ul>"
                     + "".join(f"<li>{e(note)}</li>" for note in m["notes"]) + "</ul></div>")
    for s in report.sections:
        parts.append(f"<h2>{e(s['lens'])}</h2><p><strong>{e(s['question'])}</strong></p><p>{e(s['reading'])}</p>")
        if s["table"]:
            parts.append(_html_table(s["table"]))
        if figures and s["table"]:
            alt = f"{s['lens']}: share with a move found and mean cost by group"
            parts.append(f"<img alt='{e(alt)}' src='data:image/png;base64,{_figure(s)}'>")
        if s.get("strata"):
            parts.append(f"<p>Within strata of {e(str(s['strata']['column']))}:</p>"
                         + _html_table(s["strata"]["table"]))
        parts.append(f"<p class='limits'>Limits: {e(s['limits'])}</p>")
    if report.tests:
        parts.append(f"<h2>Tests and multiplicity</h2><p>{e(report.tests['line'])}</p>")
    parts.append("<h2>Lenses not run</h2><ul>" + "".join(f"<li>{e(k)}: {e(v)}</li>" for k, v in
                                                          report.not_run.items()) + "</ul>")
    specs = m.get("specs") or []
    if specs:  # the advice policy every number rests on
        cols = [c for c in specs[0] if any(row.get(c) not in (None, "") for row in specs)]
        head = "".join(f"<th>{e(str(c))}</th>" for c in cols)
        body = "".join("<tr>" + "".join(f"<td>{e(_cell(row.get(c)) if row.get(c) is not None else '')}</td>"
                                        for c in cols) + "</tr>" for row in specs)
        parts.append(f"<h2>The specs (advice policy)</h2><div class='wide'><table><tr>{head}</tr>{body}</table></div>")
    settings = {k: m[k] for k in ("k", "n_shuffles", "st_shuffles", "random_state", "recourse") if k in m}
    parts.append("<h2>Settings</h2><p class='meta'>" + e(", ".join(f"{k} = {v}" for k, v in settings.items()))
                 + "</p></body></html>")
    return "\n".join(parts)


def _html_table(records) -> str:
    e = html.escape
    head = "".join(f"<th>{e(str(c))}</th>" for c in records[0])
    body = "".join("<tr>" + "".join(f"<td>{e(_cell(v))}</td>" for v in row.values()) + "</tr>" for row in records)
    return f"<div class='wide'><table><tr>{head}</tr>{body}</table></div>"


def _cell(value) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)
