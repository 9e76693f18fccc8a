"""The package as a whole: its public API, its documentation, and how it talks to users."""

import inspect
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm
from _cases import FUNCTIONS

ROOT = Path(__file__).resolve().parent.parent

# The one order of the shared keyword parameters; a function's own options
# (gain, label_gain, level, method, ap_denominator; metrics for evaluate) come right after qid.
CANONICAL_ORDER = [
    "k", "metrics", "qid", "exclude", "gain", "label_gain", "log_base", "level", "method",
    "ap_denominator", "relevance_level", "n_relevant", "ties", "ignore_ties", "no_relevant",
    "leakage", "sample_weight", "average",
]  # fmt: skip
METRIC_API = [*FUNCTIONS, srm.evaluate]
RETRIEVAL_API = [srm.evaluate_top_k, srm.evaluate_retrieval]
SAMPLED_API = [srm.correct_sampled_metric, srm.sample_ranks, srm.sampled_metric_weights]


def test_import_and_use_under_python_OO():
    """Docstrings are stripped under -OO: nothing may depend on them."""
    code = (
        "import sklearn_rank_metrics as s; "
        "print(s.ndcg_score([[1, 0, 2]], [[0.3, 0.2, 0.1]]), s.make_rank_scorer('map@5'))"
    )
    done = subprocess.run([sys.executable, "-OO", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("0.7")


@pytest.mark.parametrize("function", METRIC_API, ids=lambda f: f.__name__)
def test_keyword_parameters_in_the_canonical_order(function):
    parameters = list(inspect.signature(function).parameters)
    assert parameters[:2] == ["y_true", "y_score"]
    assert parameters[2:] == [name for name in CANONICAL_ORDER if name in parameters[2:]]
    for name in parameters[2:]:
        assert inspect.signature(function).parameters[name].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize(
    "function", METRIC_API + RETRIEVAL_API + SAMPLED_API, ids=lambda f: f.__name__
)
def test_docstrings_document_every_parameter_with_references_and_examples(function):
    doc = inspect.getdoc(function)
    for section in ("Parameters", "Returns", "See Also", "References", "Examples"):
        assert f"\n{section}\n" in doc, section
    for name in inspect.signature(function).parameters:
        assert re.search(rf"^{name} : ", doc, re.MULTILINE), name
    if function is not srm.evaluate:
        assert ".. math::" in doc


def _warnings_from(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    found = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    assert found
    return found


@pytest.mark.parametrize(
    "call",
    [
        lambda: srm.map_score([[0, 0], [1, 0]], [[1, 2], [1, 2]], no_relevant="skip"),
        lambda: srm.evaluate([[0, 0], [1, 0]], [[1, 2], [1, 2]], metrics=["mrr"], no_relevant="skip"),
        lambda: srm.rank_correlation_score([1, 0, 1], [1, 2, 3], qid=[1, 2, 2], average=None),
        lambda: srm.evaluate([[0, 0]], [[1, 2]], metrics=["ndcg"], no_relevant="skip", average=None).mean(),
    ],
    ids=["function", "evaluate", "undefined", "results.mean"],
)
def test_warnings_point_at_the_callers_line(call):
    for warning in _warnings_from(call):
        assert warning.filename == __file__, str(warning.message)


def test_docs_metric_tables_are_generated_from_the_definitions():
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "metric_table.py"), "--check"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


# Words that belong to the project's tracker or to one machine, never to users.
_PRIVATE = re.compile(r"\bissue\s*#?\d|\bseeds?\b(?! \d)|/work/|\.\./shared|shared/(seeds|data)", re.I)
_SKIP_REASON = re.compile(r"""(?:skip\(|reason=)\s*f?["']([^"']*)""")


def _user_facing_files():
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    files += sorted((ROOT / "examples").glob("*.py"))
    files += sorted((ROOT / "sklearn_rank_metrics").rglob("*.py"))
    return [path for path in files if path.exists()]


@pytest.mark.parametrize("path", _user_facing_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_user_facing_text_speaks_of_the_project_only(path):
    text = path.read_text(encoding="utf-8")
    found = [m.group(0) for m in _PRIVATE.finditer(text) if "random" not in text[m.start() - 30 : m.end() + 30]]
    assert not found, found


def test_test_skip_reasons_speak_of_the_project_only():
    for path in sorted((ROOT / "tests").glob("*.py")):
        for reason in _SKIP_REASON.findall(path.read_text(encoding="utf-8")):
            assert not _PRIVATE.search(reason), (path.name, reason)


def test_public_names():
    assert set(srm.__all__) == {
        "ComparisonResults", "QueryKFold", "QueryRanker", "QueryResults", "QueryShuffleSplit",
        "RankingCurveDisplay", "RepeatedQueryKFold", "SplitQueryWarning", "cg_score", "compare",
        "compare_results", "config_context", "correct_sampled_metric", "dcg_score", "evaluate",
        "evaluate_retrieval", "evaluate_top_k", "f1_at_k_score", "get_config",
        "hit_rate_score", "make_rank_scorer", "make_rank_scorers", "map_score", "mrr_score",
        "ndcg_score", "precision_at_k_score", "r_precision_score", "rank_correlation_score",
        "recall_at_k_score", "recall_cap_score", "sample_ranks", "sampled_metric_weights",
        "set_config",
    }  # fmt: skip
    for name in srm.__all__:
        doc = inspect.getdoc(getattr(srm, name))
        for section in ("See Also", "References", "Examples"):
            assert f"\n{section}\n" in doc, (name, section)
    assert isinstance(srm.evaluate([1, 0], [2, 1], average=None), srm.QueryResults)
    np.testing.assert_array_equal(srm.evaluate([1, 0], [2, 1], average=None).query_ids, [0])


def test_distribution_declares_its_licence_and_home():
    """The installed metadata carries the BSD licence text and the project's addresses."""
    from importlib import metadata

    assert (ROOT / "LICENSE").read_text().startswith("BSD 3-Clause License")
    meta = metadata.metadata("sklearn-rank-metrics")
    assert meta["License-Expression"] == "BSD-3-Clause"
    assert "LICENSE" in meta.get_all("License-File")
    urls = dict(entry.split(", ", 1) for entry in meta.get_all("Project-URL"))
    assert {"Homepage", "Source", "Issues", "Changelog"} <= set(urls)


def test_public_names_are_imported_when_first_used():
    """The top level and ``trec`` import a name on first use; their lists are the sub-packages'."""
    from sklearn_rank_metrics import comparison, metrics, model_selection, plot, retrieval, trec

    assert set(srm.__all__) == {
        *metrics.__all__, *model_selection.__all__, *comparison.__all__, *retrieval.__all__,
        "RankingCurveDisplay", "config_context", "get_config", "set_config",
    }  # fmt: skip
    for package in (srm, trec):
        assert set(package.__all__) <= set(dir(package))
    for module in (metrics, model_selection, comparison, plot, retrieval):
        for name in set(module.__all__) & set(srm.__all__):
            assert getattr(srm, name) is getattr(module, name), name
    assert srm.metrics is metrics and srm.trec is trec and srm.retrieval is retrieval
    namespace = {}
    exec("from sklearn_rank_metrics import *", namespace)  # noqa: S102 - the star import itself
    assert set(srm.__all__) <= set(namespace)
    exec("from sklearn_rank_metrics.trec import *", namespace)  # noqa: S102
    assert set(trec.__all__) <= set(namespace)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        srm.no_such_name  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        trec.no_such_name  # noqa: B018
