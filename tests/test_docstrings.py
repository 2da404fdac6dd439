"""Every docstring of the package renders (the API appendix's nitpicky build would fail on it ten minutes later).

The docstrings go through napoleon (numpydoc to reST) and docutils, as Sphinx renders them; a reST
construct docutils cannot parse (``|x|`` read as a substitution, an unclosed inline literal) is
reported here in seconds. Sphinx's own roles (``:func:``, ``:cite:p:``) are unknown to plain docutils
and are not judged here; the book build checks their targets.
"""

import importlib
import inspect
import pkgutil

import docutils.core
import pytest
from sphinx.ext.napoleon import Config
from sphinx.ext.napoleon.docstring import NumpyDocstring

import recourselab

CONFIG = Config(napoleon_use_param=True, napoleon_use_rtype=True)


def _docstrings():
    for info in pkgutil.walk_packages(recourselab.__path__, "recourselab."):
        module = importlib.import_module(info.name)
        if module.__doc__:
            yield info.name, module.__doc__
        for name, obj in vars(module).items():
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or obj.__module__ != info.name:
                continue
            if obj.__doc__:
                yield f"{info.name}.{name}", obj.__doc__
            if inspect.isclass(obj):
                for method, function in vars(obj).items():
                    if inspect.isfunction(function) and function.__doc__:
                        yield f"{info.name}.{name}.{method}", function.__doc__


def _problems(doc: str) -> list[str]:
    text = str(NumpyDocstring(inspect.cleandoc(doc), CONFIG))
    tree = docutils.core.publish_doctree(text, settings_overrides={"report_level": 1, "halt_level": 5,
                                                                  "warning_stream": False})
    problematic = [node.astext() for node in tree.findall(lambda n: n.tagname == "problematic")]
    return [p for p in problematic if not p.startswith((":", "`"))]  # Sphinx roles are the build's to check


def test_every_docstring_renders_without_a_stray_markup_character():
    bad = [(name, found) for name, doc in _docstrings() for found in _problems(doc)]
    assert not bad, f"reST cannot parse (use ``literal`` or :math: for |x| and the like): {bad[:8]}"


@pytest.mark.parametrize("doc, found", [("the band |p_S - p| <= alpha", ["|p_S - p|"]),
                                        ("the band ``|p_S - p| <= alpha``", []), ("see :func:`x`", [])])
def test_the_check_finds_what_docutils_cannot_parse(doc, found):
    assert _problems(doc) == found
