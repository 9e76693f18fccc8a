"""Bad input: a clear ValueError/TypeError that names the argument, never a number."""

import inspect

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from _cases import BINARY, CUTOFF_FUNCTIONS, FUNCTIONS, GRADED, WITH_NO_RELEVANT, function_of

ALL_FUNCS = list(FUNCTIONS)
CUTOFF_FUNCS = list(CUTOFF_FUNCTIONS)
WHOLE_LIST_FUNCS = [f for f in ALL_FUNCS if f not in CUTOFF_FUNCS]
NO_RELEVANT_FUNCS = [function_of(name).func for name in WITH_NO_RELEVANT]
NO_RELEVANT_FUNCS = list(dict.fromkeys(NO_RELEVANT_FUNCS))
N_RELEVANT_FUNCS = list(dict.fromkeys(function_of(name).func for name in BINARY))
# one of each family, for checks that share all of their code path
SOME_FUNCS = [srm.ndcg_score, srm.map_score, srm.hit_rate_score, srm.rank_correlation_score]
GAIN_FUNCS = list(dict.fromkeys(function_of(name).func for name in GRADED))
LEVEL_FUNCS = N_RELEVANT_FUNCS

Y_TRUE = [1, 0, 2, 0]
Y_SCORE = [0.5, 0.1, 0.3, 0.2]


def by_name(funcs):
    return pytest.mark.parametrize("func", funcs, ids=[f.__name__ for f in funcs])


# ------------------------------------------------------------ shapes/values
@by_name(ALL_FUNCS)
def test_different_lengths(func):
    with pytest.raises(ValueError, match="y_true and y_score"):
        func([1, 0, 1], [0.3, 0.2])


@by_name(ALL_FUNCS)
def test_2d_shapes_differ(func):
    with pytest.raises(ValueError, match="y_true and y_score"):
        func([[1, 0, 1], [0, 1, 0]], [[0.3, 0.2], [0.1, 0.4]])


@by_name(ALL_FUNCS)
def test_1d_against_2d(func):
    with pytest.raises(ValueError, match="y_true and y_score"):
        func([1, 0], [[0.3, 0.2]])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
@by_name(ALL_FUNCS)
def test_non_finite_scores(func, bad):
    with pytest.raises(ValueError, match="y_score"):
        func([1, 0, 1], [0.3, bad, 0.1])


@pytest.mark.parametrize("bad", [np.nan, np.inf], ids=["nan", "inf"])
@by_name(ALL_FUNCS)
def test_non_finite_labels(func, bad):
    with pytest.raises(ValueError, match="y_true"):
        func([1, bad, 1], [0.3, 0.2, 0.1])


@by_name(ALL_FUNCS)
def test_non_finite_in_2d(func):
    with pytest.raises(ValueError, match="y_score"):
        func([[1, 0], [0, 1]], [[0.3, 0.2], [np.nan, 0.4]])


@by_name(ALL_FUNCS)
def test_negative_labels(func):
    with pytest.raises(ValueError, match="y_true"):
        func([1, -1, 1], [0.3, 0.2, 0.1])


@by_name(ALL_FUNCS)
def test_fractional_labels_are_fine(func):
    value = func([1.5, 0.25, 0.0], [0.3, 0.2, 0.1])
    assert np.isfinite(value)


@by_name(ALL_FUNCS)
def test_text_labels(func):
    with pytest.raises(TypeError, match="y_true"):
        func(["a", "b"], [0.3, 0.2])


@by_name(ALL_FUNCS)
def test_three_dimensional_input(func):
    with pytest.raises(ValueError, match="y_true"):
        func([[[1, 0]]], [[[0.3, 0.2]]])


@by_name(ALL_FUNCS)
def test_ragged_lists(func):
    with pytest.raises(ValueError, match="y_true"):
        func([[1, 0], [1]], [[0.3, 0.2], [0.1]])


@pytest.mark.parametrize(
    "y_true, y_score", [([], []), ([[]], [[]]), (np.zeros((0, 3)), np.zeros((0, 3)))],
    ids=["1d", "2d-no-docs", "2d-no-queries"],
)
@by_name(ALL_FUNCS)
def test_empty_input(func, y_true, y_score):
    with pytest.raises(ValueError, match="empty"):
        func(y_true, y_score)


# ------------------------------------------------------------------------ k
@pytest.mark.parametrize("k", [0, -1])
@by_name(CUTOFF_FUNCS)
def test_k_not_positive(func, k):
    with pytest.raises(ValueError, match="k must be a positive int"):
        func(Y_TRUE, Y_SCORE, k=k)


@pytest.mark.parametrize("k", [2.5, 2.0, True, False, "3", [3]], ids=["2.5", "2.0", "True", "False", "str", "list"])
@by_name(CUTOFF_FUNCS)
def test_k_not_an_int(func, k):
    with pytest.raises((TypeError, ValueError), match="k must be a positive int"):
        func(Y_TRUE, Y_SCORE, k=k)


@pytest.mark.parametrize("k", [np.int64(2), np.int32(2)], ids=["int64", "int32"])
@by_name(CUTOFF_FUNCS)
def test_k_numpy_int_is_accepted(func, k):
    assert func(Y_TRUE, Y_SCORE, k=k) == pytest.approx(func(Y_TRUE, Y_SCORE, k=2))


@by_name(WHOLE_LIST_FUNCS)
def test_whole_list_metrics_take_no_k(func):
    assert "k" not in inspect.signature(func).parameters
    with pytest.raises(TypeError, match="k"):
        func(Y_TRUE, Y_SCORE, k=2)


@pytest.mark.parametrize(
    "func, kwargs, words",
    [
        (srm.ndcg_score, {"k": 0}, ["ndcg_score", "k=0", "positive int", "k=10"]),
        (srm.map_score, {"ties": "random"}, ["map_score", "ties='random'", "'average'"]),
        (srm.mrr_score, {"relevance_level": -1}, ["mrr_score", "relevance_level", "relevant iff"]),
        (srm.hit_rate_score, {"level": "user"}, ["hit_rate_score", "level='user'", "'item'"]),
        (srm.evaluate, {"average": "macro"}, ["evaluate", "average='macro'", "None"]),
    ],
)
def test_messages_name_the_function_the_argument_and_the_fix(func, kwargs, words):
    with pytest.raises((TypeError, ValueError)) as info:
        func(Y_TRUE, Y_SCORE, **kwargs)
    for word in words:
        assert word in str(info.value)


# --------------------------------------------------------- unknown options
@by_name(ALL_FUNCS)
@pytest.mark.parametrize("ties", ["random", None])
def test_unknown_ties(func, ties):
    with pytest.raises(ValueError, match="ties"):
        func(Y_TRUE, Y_SCORE, ties=ties)


@by_name(NO_RELEVANT_FUNCS)
@pytest.mark.parametrize("no_relevant", ["nan", None])
def test_unknown_no_relevant(func, no_relevant):
    with pytest.raises(ValueError, match="no_relevant"):
        func(Y_TRUE, Y_SCORE, no_relevant=no_relevant)


@by_name(ALL_FUNCS)
@pytest.mark.parametrize("average", ["macro", "none"])
def test_unknown_average(func, average):
    with pytest.raises(ValueError, match="average"):
        func(Y_TRUE, Y_SCORE, average=average)


@by_name(GAIN_FUNCS)
@pytest.mark.parametrize("gain", ["log", "exp", None])
def test_unknown_gain(func, gain):
    with pytest.raises(ValueError, match="gain"):
        func(Y_TRUE, Y_SCORE, gain=gain)


@pytest.mark.parametrize("level", ["user", "items", None])
def test_unknown_level(level):
    with pytest.raises(ValueError, match="level"):
        srm.hit_rate_score(Y_TRUE, Y_SCORE, level=level)


@pytest.mark.parametrize("method", ["spearman", "tau", None])
def test_unknown_method(method):
    with pytest.raises(ValueError, match="method"):
        srm.rank_correlation_score(Y_TRUE, Y_SCORE, method=method)


@by_name([srm.dcg_score, srm.cg_score])
def test_no_relevant_one_for_unbounded(func):
    with pytest.raises(ValueError, match="no_relevant"):
        func(Y_TRUE, Y_SCORE, no_relevant="one")


@by_name(LEVEL_FUNCS)
@pytest.mark.parametrize("relevance_level", [0, np.nan])
def test_bad_relevance_level_value(func, relevance_level):
    with pytest.raises(ValueError, match="relevance_level"):
        func(Y_TRUE, Y_SCORE, relevance_level=relevance_level)


@by_name(LEVEL_FUNCS)
@pytest.mark.parametrize("relevance_level", ["1", True])
def test_bad_relevance_level_type(func, relevance_level):
    with pytest.raises(TypeError, match="relevance_level"):
        func(Y_TRUE, Y_SCORE, relevance_level=relevance_level)


# --------------------------------------------------------------------- qid
@pytest.mark.parametrize(
    "qid",
    [
        [1.0, np.nan, 1.0, 2.0],
        np.array([1.0, np.nan, 1.0, 2.0]),
        ["a", None, "a", "b"],
        [1, None, 1, 2],
        np.array(["a", np.nan, "a", "b"], dtype=object),
    ],
    ids=["float-nan-list", "float-nan-array", "str-none", "int-none", "object-nan"],
)
@by_name(SOME_FUNCS)
def test_qid_missing_values(func, qid):
    with pytest.raises(ValueError, match="qid"):
        func(Y_TRUE, Y_SCORE, qid=qid)


def test_qid_missing_values_in_pandas():
    pd = pytest.importorskip("pandas")
    for qid in (pd.Series(["a", None, "a", "b"]), pd.Series([1, None, 1, 2])):
        with pytest.raises(ValueError, match="qid"):
            srm.ndcg_score(Y_TRUE, Y_SCORE, qid=qid)


@pytest.mark.parametrize(
    "make_qid",
    [
        lambda: np.array([1, "a", 1, "a"], dtype=object),
        lambda: [1, "a", 1, "a"],
        lambda: [1, "1", 1, "1"],
        lambda: (1, "a", 1, "a"),
    ],
    ids=["object-array", "list", "list-1-and-'1'", "tuple"],
)
@by_name([srm.ndcg_score, srm.map_score, srm.rank_correlation_score])
def test_qid_mixing_ints_and_strings(func, make_qid):
    """1 and "1" would silently be different (or, after NumPy's list
    conversion to strings, the same) queries."""
    with pytest.raises(TypeError, match="qid"):
        func(Y_TRUE, Y_SCORE, qid=make_qid())


def test_qid_mixing_ints_and_strings_in_pandas():
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match="qid"):
        srm.ndcg_score(Y_TRUE, Y_SCORE, qid=pd.Series([1, "a", 1, "a"]))


@by_name(ALL_FUNCS)
def test_qid_with_2d_input(func):
    with pytest.raises(ValueError, match="qid"):
        func([[1, 0], [0, 1]], [[0.3, 0.2], [0.1, 0.4]], qid=[0, 1])


@by_name(ALL_FUNCS)
def test_qid_wrong_length(func):
    with pytest.raises(ValueError, match="qid"):
        func(Y_TRUE, Y_SCORE, qid=[0, 0, 1])


@by_name(ALL_FUNCS)
def test_qid_2d(func):
    with pytest.raises(ValueError, match="qid"):
        func(Y_TRUE, Y_SCORE, qid=[[0], [0], [1], [1]])


# -------------------------------------------------------------- n_relevant
@by_name(N_RELEVANT_FUNCS)
def test_n_relevant_below_what_the_list_holds(func):
    # query "a" lists 2 relevant documents, n_relevant says 1
    with pytest.raises(ValueError, match="n_relevant"):
        func([1, 1, 0, 1], [0.4, 0.3, 0.2, 0.1], qid=["a", "a", "a", "b"], n_relevant={"a": 1})


@by_name(N_RELEVANT_FUNCS)
def test_n_relevant_below_counts_relevance_level(func):
    # labels >= 2: one relevant in the list; n_relevant 1 is fine, 0 is not
    y_true, y_score, qid = [2, 1, 0], [0.3, 0.2, 0.1], [5, 5, 5]
    func(y_true, y_score, qid=qid, relevance_level=2, n_relevant={5: 1})
    with pytest.raises(ValueError, match="n_relevant"):
        func(y_true, y_score, qid=qid, relevance_level=2, n_relevant={5: 0})


@pytest.mark.parametrize(
    "qid, n_relevant",
    [([1, 1, 2, 2], {"1": 3, "2": 3}), (["1", "1", "2", "2"], {1: 3, 2: 3}), ([1, 1, 2, 2], {3: 5})],
    ids=["int-qid-str-keys", "str-qid-int-keys", "unknown-key"],
)
@by_name(N_RELEVANT_FUNCS)
def test_n_relevant_no_key_matches(func, qid, n_relevant):
    with pytest.raises(ValueError, match="n_relevant"):
        func(Y_TRUE, Y_SCORE, qid=qid, n_relevant=n_relevant)


@pytest.mark.parametrize(
    "qid, n_relevant, key",
    [
        (["1", "1", "2", "2"], {"1": 5, 2: 4}, "2"),  # an int key never names the query "1"
        (["1", "1", "2", "2"], {1: 5, "2": 4}, "1"),
        (["a", "a", "b", "b"], {"a": 3, "b ": 5}, "'b '"),  # ignored only silently before
        ([10, 10, 20, 20], {10: 3, 30: 1}, "30"),
        ([10, 10, 20, 20], {10: 3, 20.0: 1}, "20.0"),
        (np.array([1, 1, 2**63 + 5, 2**63 + 5], dtype=np.uint64), {2**64 + 7: 1}, str(2**64 + 7)),
    ],
    ids=["int-key-str-ids", "int-key-beside-str-key", "trailing-space", "unknown-int",
         "float-key-int-ids", "beyond-uint64"],
)  # fmt: skip
@by_name(N_RELEVANT_FUNCS)
def test_n_relevant_key_naming_no_query_is_an_error_naming_it(func, qid, n_relevant, key):
    message = f"n_relevant has 1 key\\(s\\) that are not query ids of the input, e.g. {key}"
    with pytest.raises(ValueError, match=message):
        func(Y_TRUE, Y_SCORE, qid=qid, n_relevant=n_relevant)


@pytest.mark.parametrize(
    "n_relevant, error",
    [([3, 3], TypeError), ({1: -1}, ValueError), ({1: 2.5}, TypeError), ({1: "3"}, TypeError)],
    ids=["list", "negative", "fractional", "str"],
)
def test_n_relevant_bad_values(n_relevant, error):
    with pytest.raises(error, match="n_relevant"):
        srm.map_score(Y_TRUE, Y_SCORE, qid=[1, 1, 2, 2], n_relevant=n_relevant)


# ------------------------------------------------------------ sample_weight
TWO_D_TRUE = [[1, 0, 2], [0, 1, 0]]
TWO_D_SCORE = [[0.3, 0.2, 0.1], [0.1, 0.4, 0.2]]


@by_name(ALL_FUNCS)
def test_sample_weight_negative(func):
    with pytest.raises(ValueError, match="sample_weight"):
        func(TWO_D_TRUE, TWO_D_SCORE, sample_weight=[1.0, -0.5])


@by_name(ALL_FUNCS)
def test_sample_weight_all_zero(func):
    with pytest.raises(ValueError, match="sample_weight"):
        func(TWO_D_TRUE, TWO_D_SCORE, sample_weight=[0.0, 0.0])


@by_name(ALL_FUNCS)
def test_sample_weight_all_zero_flat(func):
    with pytest.raises(ValueError, match="sample_weight"):
        func(Y_TRUE, Y_SCORE, qid=[1, 1, 2, 2], sample_weight=[0, 0, 0, 0])


@by_name(ALL_FUNCS)
def test_sample_weight_unequal_within_query(func):
    with pytest.raises(ValueError, match="sample_weight"):
        func(Y_TRUE, Y_SCORE, qid=[1, 1, 2, 2], sample_weight=[1, 2, 3, 3])


@pytest.mark.parametrize(
    "y_true, y_score, qid, sample_weight",
    [
        (TWO_D_TRUE, TWO_D_SCORE, None, [1.0, 2.0, 3.0]),
        (TWO_D_TRUE, TWO_D_SCORE, None, [1.0]),
        (TWO_D_TRUE, TWO_D_SCORE, None, [[1.0, 2.0]]),
        (Y_TRUE, Y_SCORE, [1, 1, 2, 2], [1.0, 2.0]),  # one per query is not enough
        (Y_TRUE, Y_SCORE, [1, 1, 2, 2], [1.0, 1.0, 2.0, 2.0, 2.0]),
    ],
    ids=["2d-too-many", "2d-too-few", "2d-nested", "flat-per-query", "flat-too-many"],
)
@by_name(SOME_FUNCS)
def test_sample_weight_wrong_length(func, y_true, y_score, qid, sample_weight):
    with pytest.raises(ValueError, match="sample_weight"):
        func(y_true, y_score, qid=qid, sample_weight=sample_weight)


@by_name(ALL_FUNCS)
def test_sample_weight_not_finite(func):
    with pytest.raises(ValueError, match="sample_weight"):
        func(TWO_D_TRUE, TWO_D_SCORE, sample_weight=[1.0, np.nan])


# ------------------------------------------------------- accepted containers
@pytest.mark.parametrize("container", ["list", "tuple", "numpy", "pandas", "numpy-int", "numpy-float32"])
@by_name(ALL_FUNCS)
def test_accepted_containers_give_the_same_value(func, container):
    pd = pytest.importorskip("pandas")
    y_true, y_score, qid = [1, 0, 2, 0, 1, 3], [3, 1, 2, 0, 5, 4], ["a", "a", "b", "a", "b", "b"]
    convert = {
        "list": list,
        "tuple": tuple,
        "numpy": np.asarray,
        "pandas": pd.Series,
        "numpy-int": lambda x: np.asarray(x) if isinstance(x[0], str) else np.asarray(x, dtype=np.int32),
        "numpy-float32": lambda x: np.asarray(x) if isinstance(x[0], str) else np.asarray(x, dtype=np.float32),
    }[container]
    expected = func(np.array(y_true, float), np.array(y_score, float), qid=np.array(qid), average=None)
    got = func(convert(y_true), convert(y_score), qid=convert(qid), average=None)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@by_name(ALL_FUNCS)
def test_pandas_dataframe_2d(func):
    pd = pytest.importorskip("pandas")
    y_true = pd.DataFrame(TWO_D_TRUE)
    y_score = pd.DataFrame(TWO_D_SCORE)
    np.testing.assert_allclose(
        func(y_true, y_score, average=None),
        func(np.array(TWO_D_TRUE, float), np.array(TWO_D_SCORE, float), average=None),
    )
