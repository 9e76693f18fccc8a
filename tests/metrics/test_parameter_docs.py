"""The parameter table documents and checks the arguments the public functions share."""

import inspect
import re

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from _cases import FUNCTIONS
from sklearn_rank_metrics._engine._param_docs import document_parameters
from sklearn_rank_metrics._engine._params import PARAMETERS
from sklearn_rank_metrics.comparison import compare, compare_results

numpydoc = pytest.importorskip("numpydoc.docscrape")

DOCUMENTED = [
    *FUNCTIONS, srm.evaluate, compare, compare_results,
    srm.RankingCurveDisplay.from_predictions, srm.RankingCurveDisplay.from_run,
]  # fmt: skip


def _entries(function):
    return numpydoc.FunctionDoc(function)["Parameters"]


def _text(lines):
    return " ".join(" ".join(lines).split())


@pytest.mark.parametrize("function", DOCUMENTED, ids=lambda f: f.__qualname__)
def test_every_argument_has_one_entry_in_signature_order(function):
    names = [p.name for p in inspect.signature(function).parameters.values() if p.name != "cls"]
    documented = [name.strip().lstrip("*") for entry in _entries(function) for name in entry.name.split(",")]
    assert documented == names


@pytest.mark.parametrize("function", DOCUMENTED, ids=lambda f: f.__qualname__)
def test_table_entries_give_type_default_and_doc(function):
    signature = inspect.signature(function).parameters
    for entry in _entries(function):
        table = PARAMETERS.get(entry.name)
        if table is None or table.doc is None or not _text(entry.desc).startswith(_text([table.doc])):
            continue  # the function's own entry
        default = signature[entry.name].default
        if default is inspect.Parameter.empty:
            assert entry.type == table.type
        else:
            shown = f'"{default}"' if isinstance(default, str) else repr(default)
            shown = f"{default:_}" if type(default) is int else shown
            assert entry.type == f"{table.type}, default={shown}"


@pytest.mark.parametrize("name", ["y_true", "y_score", "qid", "k", "relevance_level", "sample_weight"])
def test_metric_functions_share_one_text_per_argument(name):
    texts = {
        _text(entry.desc)
        for function in FUNCTIONS
        for entry in _entries(function)
        if entry.name == name and function is not srm.rank_correlation_score
    }
    assert texts and all(text.startswith(_text([PARAMETERS[name].doc])) for text in texts), texts


def test_document_parameters_keeps_own_entries_and_adds_the_table():
    def metric(y_true, y_score, *, k=10, ties="first"):
        """Summary.

        Parameters
        ----------
        k : int, default=10
            Its own words.

        Examples
        --------
        >>> 1
        1
        """

    doc = document_parameters(returns="x : float\n    A value.", extra={"ties": "Also this."})(metric).__doc__
    lines = doc.split("\n")
    assert lines[:4] == ["Summary.", "", "Parameters", "----------"]
    assert re.findall(r"^(\w+) : (.*)$", doc, re.MULTILINE) == [
        ("y_true", PARAMETERS["y_true"].type), ("y_score", PARAMETERS["y_score"].type),
        ("k", "int, default=10"), ("ties", PARAMETERS["ties"].type + ', default="first"'),
        ("x", "float"),
    ]  # fmt: skip
    assert "    Its own words." in lines and doc.index("Also this.") < doc.index("Returns")
    assert doc.index("Returns") < doc.index("Examples")


def test_document_parameters_refuses_an_undocumented_argument():
    def metric(y_true, *, colour=None):
        """Summary."""

    with pytest.raises(TypeError, match="argument 'colour' is documented neither"):
        document_parameters()(metric)


def _two_models():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, size=60)
    qid = np.repeat(np.arange(30), 2)
    return y, {"a": rng.random(60), "b": rng.random(60)}, qid


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"test": "fisher"}, ValueError, r"^compare: test='fisher' is not valid; test must be one of"),
        ({"pairs": "every"}, ValueError, r"^compare: pairs='every' is not valid; pairs must be 'baseline' or 'all'"),
        ({"n_resamples": 2.5}, TypeError, r"^compare: n_resamples=2.5 is not valid; n_resamples must be a positive int"),
        ({"alpha": 1}, ValueError, r"^compare: alpha=1 is not valid"),
        ({"baseline": "z"}, ValueError, r"^compare: baseline must be one of the models"),
    ],
)
def test_comparison_options_are_checked_by_the_table_naming_the_function(options, error, message):
    y, scores, qid = _two_models()
    with pytest.raises(error, match=message):
        compare(y, scores, qid=qid, **{"n_resamples": 10, **options})
