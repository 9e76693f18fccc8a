"""Array-likes scikit-learn users pass: taken as NumPy takes them, or refused with the fix.

torch tensors and other objects that convert themselves (``__array__``)
give the numbers of the same NumPy arrays. What would give a silently
wrong number is refused, naming the argument: 2-D input with one column
(queries of one document, whose values ignore the scores), masked arrays
whose mask hides values, and scipy.sparse labels.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.linear_model import LinearRegression

from sklearn_rank_metrics import (
    QueryRanker,
    RankingCurveDisplay,
    evaluate,
    make_rank_scorer,
    ndcg_score,
)
from sklearn_rank_metrics.comparison import compare

pytestmark = pytest.mark.filterwarnings("ignore:Only 2 queries are compared:UserWarning")

Y_TRUE = np.array([2, 0, 1, 0, 1, 0, 0, 3])
Y_SCORE = np.array([0.1, 0.9, 0.4, 0.4, 0.8, 0.3, 0.2, 0.5])
QID = np.array([7, 7, 7, 7, 9, 9, 9, 9])
WEIGHT = np.array([1.0, 1.0, 1.0, 1.0, 3.0, 3.0, 3.0, 3.0])
METRICS = ["ndcg@3", "map", "mrr"]


class OnlyArray:
    """An array-like with ``__array__`` and nothing else (no len, no indexing)."""

    def __init__(self, values):
        self._values = np.asarray(values)

    def __array__(self, dtype=None, copy=None):
        return self._values if dtype is None else self._values.astype(dtype)


def _model():
    X = Y_SCORE.reshape(-1, 1)
    return LinearRegression().fit(X, Y_SCORE), X  # predicts Y_SCORE (up to rounding)


# ------------------------------------------------ taken as NumPy takes them
@pytest.mark.parametrize("convert", ["torch", "__array__"])
def test_array_likes_give_the_numbers_of_their_arrays(convert):
    convert = pytest.importorskip("torch").as_tensor if convert == "torch" else OnlyArray
    y_true, y_score, qid, weight = map(convert, (Y_TRUE, Y_SCORE, QID, WEIGHT))
    expected = evaluate(Y_TRUE, Y_SCORE, qid=QID, sample_weight=WEIGHT, metrics=METRICS)
    assert evaluate(y_true, y_score, qid=qid, sample_weight=weight, metrics=METRICS) == expected
    assert ndcg_score(y_true, y_score, k=3, qid=qid, sample_weight=weight) == expected["ndcg@3"]
    assert ndcg_score(y_true, y_score, qid=qid, ignore_ties=True) == ndcg_score(
        Y_TRUE, Y_SCORE, qid=QID, ignore_ties=True
    )
    expected_comparison = compare(Y_TRUE, {"a": Y_SCORE, "b": -Y_SCORE}, qid=QID, random_state=0)
    got = compare(y_true, {"a": y_score, "b": convert(-Y_SCORE)}, qid=qid, random_state=0)
    assert got.to_frame().equals(expected_comparison.to_frame())
    model, X = _model()
    scorer = make_rank_scorer("ndcg@3")
    with sklearn.config_context(enable_metadata_routing=True):
        assert scorer(model, X, y_true, qid=qid) == scorer(model, X, Y_TRUE, qid=QID)
    ranker = QueryRanker(LinearRegression()).fit(X, y_true, qid=qid)
    reference = QueryRanker(LinearRegression()).fit(X, Y_TRUE, qid=QID)
    np.testing.assert_array_equal(ranker.predict(X), reference.predict(X))


@pytest.mark.parametrize("values", [Y_TRUE, Y_SCORE])
def test_one_dimensional_torch_tensors_are_not_read_as_scalars(values):
    torch = pytest.importorskip("torch")
    one = torch.as_tensor(values)
    assert evaluate(one, one, metrics=["ndcg"]) == evaluate(values, values, metrics=["ndcg"])


# ----------------------------------------------------------------- refused
def test_2d_input_with_one_column_is_refused():
    column_true, column_score = Y_TRUE.reshape(-1, 1), Y_SCORE.reshape(-1, 1)
    message = r"y_true and y_score are 2-D with one column .*qid.*\.ravel\(\)"
    with pytest.raises(ValueError, match=message):
        ndcg_score(column_true, column_score)
    with pytest.raises(ValueError, match=message):
        evaluate(column_true, column_score, metrics=METRICS)
    with pytest.raises(ValueError, match=message):
        compare(column_true, {"a": column_score, "b": -column_score})
    with pytest.raises(ValueError, match=message):
        RankingCurveDisplay.from_predictions(column_true, column_score)
    # One query per row, as many columns as documents, is still 2-D input.
    assert ndcg_score(Y_TRUE.reshape(1, -1), Y_SCORE.reshape(1, -1)) == ndcg_score(Y_TRUE, Y_SCORE)


def _masked(values):
    mask = np.zeros(values.shape, dtype=bool)
    mask[2] = True
    return np.ma.masked_array(values, mask=mask)


@pytest.mark.parametrize("argument", ["y_true", "y_score", "qid", "sample_weight"])
def test_a_masked_array_that_hides_values_is_refused(argument):
    arguments = dict(y_true=Y_TRUE, y_score=Y_SCORE, qid=QID, sample_weight=WEIGHT)
    arguments[argument] = _masked(arguments[argument])
    message = rf"{argument} is a masked array with 1 masked value.*\.compressed\(\).*\.filled\("
    with pytest.raises(ValueError, match=message):
        evaluate(**arguments, metrics=METRICS)
    with pytest.raises(ValueError, match=message):
        ndcg_score(**arguments)
    if argument in ("y_true", "qid"):
        model, X = _model()
        y = arguments["y_true"]
        with pytest.raises(ValueError, match=message.replace("y_true", "y")):
            QueryRanker(LinearRegression()).fit(X, y, qid=arguments["qid"])
        with sklearn.config_context(enable_metadata_routing=True), pytest.raises(
            ValueError, match=message
        ):
            make_rank_scorer("ndcg")(model, X, y, qid=arguments["qid"])
    if argument in ("y_true", "y_score"):
        scores = {"a": arguments["y_score"], "b": -Y_SCORE}
        with pytest.raises(ValueError, match=message):
            compare(arguments["y_true"], scores, qid=QID)


def test_a_masked_array_that_hides_nothing_is_its_data():
    nothing_hidden = np.ma.masked_array(Y_TRUE)
    assert evaluate(nothing_hidden, Y_SCORE, qid=QID) == evaluate(Y_TRUE, Y_SCORE, qid=QID)


@pytest.mark.parametrize("make", [sp.csr_matrix, sp.csr_array, sp.coo_matrix])
def test_sparse_labels_are_the_dense_ones_and_sparse_scores_say_toarray(make):
    y_true = make(Y_TRUE.reshape(2, -1))
    dense = Y_TRUE.reshape(2, -1)
    scores = Y_SCORE.reshape(2, -1)
    assert evaluate(y_true, scores, metrics=METRICS) == evaluate(dense, scores, metrics=METRICS)
    message = r"y_score is a scipy.sparse \w+: only y_true .*toarray\(\)"
    with pytest.raises(TypeError, match=message):
        evaluate(dense, make(scores), metrics=METRICS)
    with pytest.raises(TypeError, match=message):
        compare(dense, {"a": make(scores), "b": -scores})
