"""The library installs without the book's stack; each optional part names the extra it needs (issue 26, part 4).

A subprocess hides every module an extra provides (a meta-path finder that refuses them, as a plain
``pip install recourselab`` would leave them absent), imports every module of the package that needs no
extra, and checks that each optional part fails with an ImportError naming its extra and the command.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from recourselab._extras import EXTRAS, missing_extra, require

ROOT = Path(__file__).resolve().parent.parent

HIDE_EXTRAS = """
import importlib.abc, sys
HIDDEN = {hidden!r}
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, Hide())
"""


def _run(code: str, hidden) -> subprocess.CompletedProcess:
    script = HIDE_EXTRAS.format(hidden=sorted(hidden)) + code
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)


def _extra_modules() -> set[str]:
    return {module for modules, _ in EXTRAS.values() for module in modules}


def test_pyproject_extras_are_the_ones_the_errors_name():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    name = lambda requirement: re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower()  # noqa: E731
    for extra, (modules, _) in EXTRAS.items():
        installed = {name(r) for r in extras[extra]} | {"distributed" for r in extras[extra] if "[distributed]" in r}
        assert installed == set(modules), (extra, installed, modules)
    core = {name(r) for r in project["dependencies"]}
    assert not core & _extra_modules(), f"the core dependencies pull extras: {core & _extra_modules()}"
    assert set(extras["all"][0].split("[")[1].rstrip("]").split(",")) == set(EXTRAS)


def test_every_module_but_viz_imports_without_any_extra():
    code = """
import importlib, pkgutil
import recourselab
names = [m.name for m in pkgutil.walk_packages(recourselab.__path__, "recourselab.")
         if not m.name.startswith("recourselab.viz")]
for name in names:
    importlib.import_module(name)
hidden = [m for m in sys.modules if m.split(".")[0] in HIDDEN]
print(len(names), hidden)
"""
    result = _run(code, _extra_modules())
    assert result.returncode == 0, result.stderr
    count, hidden = result.stdout.split(" ", 1)
    assert int(count) > 40 and hidden.strip() == "[]"


def test_a_missing_extra_is_named_with_its_install_command():
    code = """
import numpy as np
try:
    import recourselab.viz
except ImportError as error:
    print("viz:", error)
from recourselab.explanation_consistency import methods
try:
    methods.fit_method("hardt", np.zeros((4, 2)), [0, 1, 0, 1], ["a", "a", "b", "b"])
except ImportError as error:
    print("hardt:", error)
from recourselab.explanation_consistency import network
try:
    network.require_jax()
except ImportError as error:
    print("jax:", error)
"""
    result = _run(code, _extra_modules())
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(": ", 1) for line in result.stdout.strip().splitlines())
    assert "pip install 'recourselab[book]'" in lines["viz"] and "'matplotlib'" in lines["viz"]
    assert "pip install 'recourselab[fairness]'" in lines["hardt"] and "'fairlearn'" in lines["hardt"]
    assert "pip install 'recourselab[cec]'" in lines["jax"]


def test_only_the_missing_extra_is_blamed():
    # with the book's stack present and only fairlearn hidden, viz imports and fairlearn is named
    result = _run("import recourselab.viz\nprint('ok')", {"fairlearn"})
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_require_returns_the_module_and_names_the_extra():
    assert require("math", "book").sqrt(9.0) == 3.0
    error = missing_extra("dask", "distributed")
    assert "recourselab[dask]" in str(error) and "'distributed'" in str(error)
    try:
        require("no_such_module_xyz", "fairness", "the test")
    except ImportError as error:
        assert str(error).startswith("the test needs 'no_such_module_xyz'") and "recourselab[fairness]" in str(error)
    else:  # pragma: no cover
        raise AssertionError("require did not raise")
