"""Conventions every recourselab module shares (DESIGN §3), pinned so a new module cannot drift.

* anything that draws random numbers takes ``random_state``;
* results are frozen dataclasses with a ``to_frame()`` (specifications, data
  containers, fitted objects and configurations are listed as exceptions);
* every public name is documented (numpydoc docstring) and listed in ``__all__``.
"""

import dataclasses
import importlib
import inspect
import re

import pytest

MODULES = ["features", "datasets", "models", "adapters", "scm", "audit", "counterfactuals", "group_counterfactuals",
           "situation_testing", "explanation_consistency", "fair_ranking", "allocation", "viz"]

# Frozen dataclasses that are not results of a computation, so a table view is not their job.
NOT_RESULTS = {
    "features.FeatureSpec": "a specification (features_to_frame tabulates several)",
    "datasets.Dataset": "a data container (its frame is the table)",
    "datasets.SyntheticWorld": "a data container",
    "group_counterfactuals.FeasibilityGraph": "a fitted graph (to_networkx, costs, components)",
    "allocation.LendingUtility": "a utility function's parameters",
    "allocation.AdmissionUtility": "a utility function's parameters",
    "allocation.BudgetDistribution": "a distribution's parameters",
    "explanation_consistency.FittedMethod": "a fitted model",
}

# Source patterns that draw random numbers.
RANDOM = re.compile(r"default_rng|np\.random\.|jax\.random\.|\.sample\(|check_random_state|shuffle")


def public_objects():
    for name in MODULES:
        module = importlib.import_module(f"recourselab.{name}")
        for attr in getattr(module, "__all__", []):
            yield name, attr, getattr(module, attr)


def test_every_module_lists_its_public_names():
    for name in MODULES:
        module = importlib.import_module(f"recourselab.{name}")
        assert module.__all__, f"recourselab.{name} has no __all__"
        missing = [a for a in module.__all__ if not hasattr(module, a)]
        assert not missing, f"recourselab.{name}.__all__ names missing objects {missing}"


def test_results_are_frozen_dataclasses_with_to_frame():
    offenders = []
    for module, attr, obj in public_objects():
        if not (inspect.isclass(obj) and dataclasses.is_dataclass(obj)):
            continue
        key = f"{module}.{attr}"
        if not obj.__dataclass_params__.frozen:
            offenders.append(f"{key} is not frozen")
        if key not in NOT_RESULTS and not callable(getattr(obj, "to_frame", None)):
            offenders.append(f"{key} has no to_frame()")
    assert not offenders, offenders


def test_everything_random_takes_random_state():
    offenders = []
    for module, attr, obj in public_objects():
        if inspect.isfunction(obj):
            targets = {attr: obj}
        elif inspect.isclass(obj):
            targets = {f"{attr}.{m}": f for m, f in vars(obj).items()
                       if inspect.isfunction(f) and (not m.startswith("_") or m == "__init__")}
        else:
            continue
        for name, function in targets.items():
            try:
                source = inspect.getsource(function)
            except (OSError, TypeError):  # pragma: no cover - builtins
                continue
            code = source.split('"""')[-1] if source.count('"""') >= 2 else source  # skip the docstring
            if not RANDOM.search(code):
                continue
            params = inspect.signature(function).parameters
            owner_params = inspect.signature(obj).parameters if inspect.isclass(obj) else {}
            if "random_state" not in params and "random_state" not in owner_params and "rng" not in params \
                    and "sampler" not in params:
                offenders.append(f"{module}.{name}")
    assert not offenders, f"draw random numbers without a random_state argument: {offenders}"


@pytest.mark.parametrize("module", MODULES)
def test_public_functions_have_numpydoc_docstrings(module):
    undocumented = []
    for mod, attr, obj in public_objects():
        if mod != module or not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        doc = inspect.getdoc(obj) or ""
        if len(doc.strip()) < 20:
            undocumented.append(attr)
    assert not undocumented, f"recourselab.{module}: {undocumented} lack a docstring"


def test_random_state_is_documented_where_it_is_accepted():
    undocumented = []
    for module, attr, obj in public_objects():
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        try:
            params = inspect.signature(obj).parameters
        except (TypeError, ValueError):  # pragma: no cover
            continue
        if "random_state" in params and "random_state" not in (inspect.getdoc(obj) or ""):
            undocumented.append(f"{module}.{attr}")
    assert not undocumented, f"take random_state but do not document it: {undocumented}"


# One vocabulary for groups (see the API appendix): labels per individual are `groups`, the protected
# label(s) among them `protected_group`, a boolean mask of protected individuals `protected`.
RETIRED_NAMES = {"a", "a_pool", "a_fit", "a_test", "a_cf", "group", "sensitive", "protected_label"}


def test_one_vocabulary_for_group_arguments():
    offenders = []
    for module, attr, obj in public_objects():
        functions = {attr: obj} if inspect.isfunction(obj) else (
            {f"{attr}.{m}": f for m, f in vars(obj).items() if inspect.isfunction(f) and not m.startswith("_")}
            if inspect.isclass(obj) else {})
        for name, function in functions.items():
            retired = set(inspect.signature(function).parameters) & RETIRED_NAMES
            if retired:
                offenders.append(f"{module}.{name}: {sorted(retired)}")
    assert not offenders, offenders


def test_every_function_that_takes_a_model_takes_the_favourable_class():
    """Issue 22, part 3: the favourable class is never assumed silently to be 1 without a way to say otherwise."""
    # here `model` names a classifier to *train* on a Dataset, whose target codes the favourable outcome as 1
    trains = {"models.make_classifier", "models.train_model", "audit.train_on_biased_history"}
    offenders = []
    for module, attr, obj in public_objects():
        functions = {attr: obj} if inspect.isfunction(obj) else (
            {f"{attr}.{m}": f for m, f in vars(obj).items() if inspect.isfunction(f) and not m.startswith("_")}
            if inspect.isclass(obj) else {})
        for name, function in functions.items():
            params = inspect.signature(function).parameters
            if ({"model", "model_or_fitted"} & set(params)) and "favourable" not in params \
                    and f"{module}.{name}" not in trains:
                offenders.append(f"{module}.{name}")
    assert not offenders, f"take a model but no favourable=: {offenders}"
