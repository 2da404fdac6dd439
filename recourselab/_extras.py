"""Optional dependencies, named by the extra that installs them.

The library itself needs the science stack only (numpy, pandas, scipy, scikit-learn, networkx, PuLP,
tqdm, joblib). The book's figures and explorers, fairlearn's outcome methods and the JAX networks of
explanation consistency each come with an extra of ``pyproject.toml``; a missing one is reported with
the command that installs it.
"""

from __future__ import annotations

import importlib

# extra -> what it installs (the top-level modules it provides) and what needs it
EXTRAS = {
    "book": (("matplotlib", "seaborn", "ipywidgets", "altair"), "the book's figures and explorers (recourselab.viz)"),
    "fairness": (("fairlearn",), "fairlearn's outcome-fairness methods and metrics"),
    "cec": (("jax", "optax"), "the differentiable networks of explanation consistency"),
    "dask": (("dask", "distributed"), "situation testing on a Dask cluster"),
}


def missing_extra(extra: str, module: str, purpose: str | None = None) -> ImportError:
    """The ImportError for ``module`` missing, naming the extra and the install command."""
    modules, default_purpose = EXTRAS[extra]
    return ImportError(f"{purpose or default_purpose} needs {module!r}, which is not installed. Install it with "
                       f"the extra: pip install 'recourselab[{extra}]' (it adds {', '.join(modules)}).")


def require(module: str, extra: str, purpose: str | None = None):
    """Import ``module`` (e.g. ``"fairlearn.postprocessing"``) or raise an ImportError naming ``extra``.

    Examples
    --------
    >>> require("math", "book").sqrt(4.0)
    2.0
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise missing_extra(extra, module.split(".")[0], purpose) from error
