"""The documentation site's sources: the API reference covers every public name, every metric
has its formula, every example can be a gallery page, the getting-started code runs.

The site itself is built and checked in a browser by CI (``sphinx-build -W`` and
``docs/check_site.py``, which also checks that the built site has every page listed here).
"""

import ast
import importlib
import re
import sys
import types
from pathlib import Path

import pytest
import sklearn

import sklearn_rank_metrics
from sklearn_rank_metrics._engine.spec import METRICS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))

import api_reference  # noqa: E402


def _public_names():
    """(module name, name, object) for every name of every importable public module's __all__."""
    found = []
    for module_name, module, _ in api_reference.public_modules():
        if module is not None:
            found += [(module_name, name, getattr(module, name)) for name in module.__all__]
    return found


def _documented():
    """id(object) -> docname of its API page."""
    return {
        id(getattr(module, name)): api_reference.page_of(module_name, name)
        for module_name, module, names in api_reference.sections()
        for name in names
    }


def test_every_public_name_has_an_api_page():
    documented = _documented()
    public = _public_names()
    assert len(public) >= 30
    missing = [f"{module}.{name}" for module, name, obj in public if id(obj) not in documented]
    assert not missing
    # The top-level package re-exports the sub-packages' names: one page each, in its sub-package.
    assert documented[id(sklearn_rank_metrics.ndcg_score)] == (
        "api/generated/sklearn_rank_metrics.metrics.ndcg_score"
    )
    assert documented[id(sklearn_rank_metrics.set_config)] == (
        "api/generated/sklearn_rank_metrics.set_config"
    )


def test_every_public_module_is_found():
    names = {name for name, _, _ in api_reference.public_modules()}
    expected = {"metrics", "model_selection", "comparison", "trec", "datasets", "dask", "spark"}
    assert {f"sklearn_rank_metrics.{name}" for name in expected} | {"sklearn_rank_metrics"} <= names


def test_a_new_public_name_gets_its_page(monkeypatch):
    """Nothing to edit in the docs: a name added to an __all__ is in the next build's reference."""

    def brand_new_score(y_true, y_score):
        """A metric added after this test was written."""

    metrics = importlib.import_module("sklearn_rank_metrics.metrics")
    monkeypatch.setattr(metrics, "brand_new_score", brand_new_score, raising=False)
    monkeypatch.setattr(metrics, "__all__", [*metrics.__all__, "brand_new_score"])
    assert "   brand_new_score" in api_reference.rst().splitlines()
    plot = types.ModuleType("sklearn_rank_metrics.plot")
    plot.__all__ = ["SomeDisplay"]
    plot.SomeDisplay = type("SomeDisplay", (), {})
    monkeypatch.setitem(sys.modules, "sklearn_rank_metrics.plot", plot)
    monkeypatch.setattr(
        api_reference.pkgutil,
        "iter_modules",
        lambda path: [types.SimpleNamespace(name="plot", ispkg=True)],
    )
    assert [name for name, _, _ in api_reference.public_modules()] == [
        "sklearn_rank_metrics.plot", "sklearn_rank_metrics",
    ]  # fmt: skip
    assert ":mod:`sklearn_rank_metrics.plot`" in api_reference.rst()


def test_every_metric_definition_has_its_formula():
    text = (ROOT / "docs" / "formulas.md").read_text(encoding="utf-8")
    labels = set(re.findall(r"^\(formula-(\w+)\)=$", text, flags=re.M))
    assert set(METRICS) <= labels, sorted(set(METRICS) - labels)
    # Each label heads a section with display math or an inline formula.
    sections = re.split(r"^\(formula-\w+\)=$", text, flags=re.M)[1:]
    assert all("$" in section or "\\begin{align" in section for section in sections)


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_every_example_has_a_gallery_title(path):
    """sphinx-gallery reads the docstring's first line as the page title, underlined in rST."""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
    assert docstring is not None
    title, underline = docstring.splitlines()[:2]
    assert title.strip() and re.fullmatch(r"=+", underline) and len(underline) >= len(title)


def _python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def test_getting_started_code_runs(tmp_path, monkeypatch):
    pytest.importorskip("lightgbm")
    pytest.importorskip("pandas")
    monkeypatch.chdir(tmp_path)
    namespace = {}
    blocks = _python_blocks(ROOT / "docs" / "getting_started.md")
    assert len(blocks) == 3
    with sklearn.config_context():  # the snippet switches routing on globally
        for number, block in enumerate(blocks, 1):
            exec(compile(block, f"docs/getting_started.md, python block {number}", "exec"), namespace)
            if number == 1:  # what the page says in its comments, on the values it computed
                ndcg = namespace["ndcg_score"](
                    namespace["y_true"], namespace["y_score"], qid=namespace["qid"], k=10
                )
                assert round(ndcg, 4) == 0.7906
        held_out = namespace["search"].score(
            namespace["X_test"], namespace["y_test"], qid=namespace["qid_test"]
        )
    assert 0.5 < held_out < 1


def test_input_page_code_runs():
    namespace = {}
    for number, block in enumerate(_python_blocks(ROOT / "docs" / "input.md"), 1):
        exec(compile(block, f"docs/input.md, python block {number}", "exec"), namespace)
    two_d = namespace["ndcg_score"]([[2, 0, 1], [0, 0, 1]], [[0.9, 0.8, 0.1], [0.7, 0.2, 0.3]], k=10)
    flat = namespace["ndcg_score"](
        namespace["y_true"], namespace["y_score"], qid=namespace["qid"], k=10
    )
    assert round(two_d, 4) == round(flat, 4) == 0.7906
