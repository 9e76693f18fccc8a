"""Worked examples of five published tutorials on ranking metrics (in Chinese).

Every number is hard-coded here, with the tutorial it comes from, so these
tests always run. Where a tutorial is loose or wrong, the test asserts the
standard value and says why. The last tests check, when the tutorials' texts
are available beside the project, that the quoted numbers really are in them
(skipped cleanly otherwise).
"""

from math import log2
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm

TUTORIALS_DIR = Path(__file__).resolve().parents[3] / "shared" / "seeds"


def descending(n):
    """Scores that rank n documents in the given order."""
    return list(range(n, 0, -1))


def dcg(labels):
    return sum(x / log2(i + 2) for i, x in enumerate(labels))


# =====================================================================
# tutorial 000 (MRR@k and NDCG@k)
# =====================================================================
def test_tutorial000_mrr_at_5_ranks_2_1_5():
    """"3 queries, first relevant results at ranks 2, 1, 5 (k=5): MRR@5 ~ 0.57"."""
    y_true = [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 1]]
    y_score = [descending(5)] * 3
    value = srm.mrr_score(y_true, y_score, k=5)
    assert value == pytest.approx((1 / 2 + 1 + 1 / 5) / 3, rel=1e-12)  # 17/30 = 0.5667
    assert round(value, 2) == 0.57
    # with k=4 the third query's first relevant result (rank 5) no longer counts
    assert srm.mrr_score(y_true, y_score, k=4) == pytest.approx((1 / 2 + 1) / 3)
    assert srm.mrr_score(y_true, y_score, k=4, average=None).tolist() == pytest.approx([0.5, 1, 0])


def test_tutorial000_ndcg_at_5():
    """Ranked labels [3, 2, 3, 0, 1]: DCG@5 ~ 6.15, IDCG@5 ~ 6.32 (ideal
    [3, 3, 2, 1, 0]), NDCG@5 ~ 0.97. Exact value: 0.972364..."""
    y_true, y_score = [3, 2, 3, 0, 1], descending(5)
    assert srm.dcg_score(y_true, y_score, k=5) == pytest.approx(6.148712314377457, rel=1e-12)
    assert srm.dcg_score([3, 3, 2, 1, 0], y_score, k=5) == pytest.approx(6.323465818787765, rel=1e-12)
    value = srm.ndcg_score(y_true, y_score, k=5)
    assert value == pytest.approx(0.9723642841729143, rel=1e-12)
    assert round(value, 2) == 0.97
    assert round(srm.dcg_score(y_true, y_score, k=5), 2) == 6.15
    assert round(srm.dcg_score([3, 3, 2, 1, 0], y_score, k=5), 2) == 6.32


def test_tutorial000_reference_code_agrees():
    """The article's calculate_mrr / calculate_ndcg (copied, lightly shortened)."""

    def calculate_mrr(rankings, k):
        reciprocal_ranks = []
        for ranks in rankings:
            for i in range(min(k, len(ranks))):
                if ranks[i] == 1:
                    reciprocal_ranks.append(1 / (i + 1))
                    break
            else:
                reciprocal_ranks.append(0)
        return np.mean(reciprocal_ranks)

    def calculate_ndcg(scores, ideal_scores, k):
        def dcg_(s):
            return sum((score / np.log2(i + 2)) for i, score in enumerate(s[:k]))

        idcg_val = dcg_(sorted(ideal_scores, reverse=True))
        return dcg_(scores) / idcg_val if idcg_val > 0 else 0

    rankings = [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]]
    for k in (1, 2, 5):
        assert srm.mrr_score(rankings, [descending(5)] * 4, k=k) == pytest.approx(
            calculate_mrr(rankings, k)
        )
    for k in (1, 2, 3, 4, 5):
        assert srm.ndcg_score([3, 2, 3, 0, 1], descending(5), k=k) == pytest.approx(
            calculate_ndcg([3, 2, 3, 0, 1], [3, 2, 3, 0, 1], k)
        )


# =====================================================================
# tutorial 001 (CG, DCG, NDCG, HitRate@K, MRR)
# =====================================================================
def test_tutorial001_dcg_at_3():
    """DCG@3 of [3, 2, 3, 0, 1] = 3 + 2/log2(3) + 3/2 ~ 5.76."""
    value = srm.dcg_score([3, 2, 3, 0, 1], descending(5), k=3)
    assert value == pytest.approx(3 + 2 / log2(3) + 1.5, rel=1e-12)
    assert round(value, 2) == 5.76


def test_tutorial001_idcg_and_ndcg_at_3_standard_value():
    """The article says IDCG@3 ([3, 3, 2]) ~ 6.43 and NDCG@3 ~ 0.90.

    That IDCG is a misprint: 3/log2(2) + 3/log2(3) + 2/log2(4) = 3 + 1.893 + 1
    = 5.893 (no gain or discount convention gives 6.43; exponential gain
    gives 7 + 4.417 + 1.5 = 12.92). The standard NDCG@3 is 5.762 / 5.893 =
    0.978, not 5.76 / 6.43 = 0.896."""
    idcg = srm.dcg_score([3, 3, 2], descending(3), k=3)
    assert idcg == pytest.approx(5.892789260714372, rel=1e-12)
    assert round(idcg, 2) == 5.89 and round(idcg, 2) != 6.43
    value = srm.ndcg_score([3, 2, 3, 0, 1], descending(5), k=3)
    assert value == pytest.approx(0.9777813616305049, rel=1e-12)
    assert round(value, 3) == 0.978
    assert value != pytest.approx(0.90, abs=0.01)  # the article's 5.76 / 6.43


def test_tutorial001_exponential_gain_variant():
    """(2**rel - 1) / log2(i + 1): DCG@3 of [3, 2, 3] = 7 + 3/log2(3) + 7/2."""
    value = srm.dcg_score([3, 2, 3, 0, 1], descending(5), k=3, gain="exponential")
    assert value == pytest.approx(7 + 3 / log2(3) + 3.5, rel=1e-12)
    ideal = 7 + 7 / log2(3) + 3 / 2
    assert srm.ndcg_score([3, 2, 3, 0, 1], descending(5), k=3, gain="exponential") == pytest.approx(
        value / ideal, rel=1e-12
    )


def test_tutorial001_cg():
    """CG@k sums the top-k labels, position ignored."""
    y_true, y_score = [3, 2, 3, 0, 1], descending(5)
    assert [srm.cg_score(y_true, y_score, k=k) for k in range(1, 6)] == [3, 5, 8, 8, 9]
    # swapping the first two leaves CG@2 unchanged
    assert srm.cg_score([2, 3, 3, 0, 1], y_score, k=2) == 5


def test_tutorial001_mrr_three_queries():
    """Query 1: D3, D1, D2 with D1 relevant (rank 2); query 2: D2, D4, D1 with
    D2 relevant (rank 1); query 3: D3, D4, D5, none relevant (0).
    MRR = (1/2 + 1 + 0) / 3 = 0.5."""
    y_true = [0, 1, 0, 1, 0, 0, 0, 0, 0]
    y_score = [3, 2, 1] * 3
    qid = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert srm.mrr_score(y_true, y_score, qid=qid) == pytest.approx(0.5)
    assert srm.mrr_score(y_true, y_score, qid=qid, average=None).tolist() == [0.5, 1.0, 0.0]
    # Query 3 has no relevant document in its list. If its relevant document
    # exists but was not retrieved (n_relevant), it is an ordinary 0 even
    # when queries without relevant documents are skipped:
    assert srm.mrr_score(
        y_true, y_score, qid=qid, n_relevant={3: 1}, no_relevant="skip"
    ) == pytest.approx(0.5)
    # ... whereas skipping a query that truly has none gives (1/2 + 1) / 2.
    with pytest.warns(UndefinedMetricWarning, match="1 of 3"):
        assert srm.mrr_score(y_true, y_score, qid=qid, no_relevant="skip") == pytest.approx(0.75)


def test_tutorial001_hit_rate_user_and_item_level():
    """User-level HitRate@K: share of users with a hit in the top K;
    item-level: total hits / total recommended items."""
    # user 1: top-3 holds 2 liked items; user 2: none; user 3: 1 (list of 2)
    y_true = [1, 0, 1, 0, 0, 0, 0, 1, 0]
    y_score = [3, 2, 1, 3, 2, 1, 9, 8, 0]
    qid = ["u1", "u1", "u1", "u2", "u2", "u2", "u3", "u3", "u4"]
    # u4 has one item, not liked
    assert srm.hit_rate_score(y_true, y_score, qid=qid, k=3) == pytest.approx(2 / 4)
    assert srm.hit_rate_score(y_true, y_score, qid=qid, k=3, level="item") == pytest.approx(
        (2 + 0 + 1 + 0) / (3 + 3 + 2 + 1)
    )


# =====================================================================
# tutorial 002 (P@k, Recall@k, F1@k, MRR, AP, MAP with code, CG, DCG, NDCG)
# =====================================================================
# Binary example: 5 results, relevant at ranks 1, 3, 5. The tables are
# images in the article; the values below are the article's definitions.
BINARY_135 = [1, 0, 1, 0, 1]


@pytest.mark.parametrize(
    "k, precision, recall, f1",
    [
        (1, 1.0, 1 / 3, 0.5),
        (2, 0.5, 1 / 3, 0.4),
        (3, 2 / 3, 2 / 3, 2 / 3),
        (4, 0.5, 2 / 3, 4 / 7),
        (5, 0.6, 1.0, 0.75),
    ],
)
def test_tutorial002_precision_recall_f1_at_k(k, precision, recall, f1):
    """precision@1 = 1, precision@2 = 0.5; recall@1 = 0.33, recall@3 = 0.67;
    F1@k = 2 P R / (P + R)."""
    y_score = descending(5)
    assert srm.precision_at_k_score(BINARY_135, y_score, k=k) == pytest.approx(precision, rel=1e-12)
    assert srm.recall_at_k_score(BINARY_135, y_score, k=k) == pytest.approx(recall, rel=1e-12)
    assert srm.f1_at_k_score(BINARY_135, y_score, k=k) == pytest.approx(f1, rel=1e-12)


def test_tutorial002_precision_ignores_positions():
    """Model A (first three relevant) and B (last three) have the same P@5."""
    y_score = descending(5)
    assert srm.precision_at_k_score([1, 1, 1, 0, 0], y_score, k=5) == srm.precision_at_k_score(
        [0, 0, 1, 1, 1], y_score, k=5
    ) == pytest.approx(0.6)


@pytest.mark.parametrize(
    "labels, expected",
    [([1, 0, 1, 0, 1], 1.0), ([0, 0, 0, 0, 1], 0.2), ([0, 0, 0, 0, 0], 0.0)],
    ids=["first-relevant-at-1", "only-at-5", "none"],
)
def test_tutorial002_reciprocal_rank(labels, expected):
    assert srm.mrr_score(labels, descending(5)) == pytest.approx(expected)


def test_tutorial002_mrr_over_queries():
    y_true = [[1, 0, 1, 0, 1], [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]]
    assert srm.mrr_score(y_true, [descending(5)] * 3) == pytest.approx((1 + 0.2 + 0) / 3)


def test_tutorial002_average_precision():
    """Relevant at 1, 3, 5: AP = (1 + 2/3 + 3/5) / 3 = 0.7556; the three
    relevant results moved to the top: AP = 1."""
    assert srm.map_score(BINARY_135, descending(5)) == pytest.approx((1 + 2 / 3 + 3 / 5) / 3, rel=1e-12)
    assert srm.map_score([1, 1, 1, 0, 0], descending(5)) == pytest.approx(1.0)


# The article's MAP code, verbatim apart from formatting.
def _article_average_precision(true_labels, predicted_scores):
    sorted_results = [
        (true, score)
        for true, score in sorted(zip(true_labels, predicted_scores), key=lambda x: x[1], reverse=True)
    ]
    num_true = sum(true_labels)
    precision_at_k = []
    true_positives = 0
    for i, (true, score) in enumerate(sorted_results):
        if true == 1:
            true_positives += 1
            precision_at_k.append(true_positives / (i + 1))
    if not precision_at_k:
        return 0.0
    return sum(precision_at_k) / num_true


def _article_map_at_k(true_labels, predicted_scores, k):
    average_precisions = []
    for i in range(len(true_labels)):
        ap = _article_average_precision(true_labels[i][:k], predicted_scores[i][:k])
        average_precisions.append(ap)
    return sum(average_precisions) / len(average_precisions)


TUTORIAL002_TRUE = [[1, 0, 1, 1, 0, 0, 1, 1, 0, 0], [0, 1, 1, 0, 1, 0, 0, 1, 1, 0]]
TUTORIAL002_SCORE = [
    [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0],
    [0.9, 0.8, 0.5, 0.4, 0.8, 0.2, 0.1, 0.9, 0.3, 0.0],
]


def test_tutorial002_map_code_versus_standard_map_at_5():
    """The article's map_at_k(k=5) gives 0.7222; the standard MAP@5
    (trec_eval map_cut_5, ranx map@5) gives 0.5383. The standard wins:

    1. The code cuts each list to its first k entries *in input order*
       before ranking by score. Query 2's document 8 (score 0.9, relevant,
       tied for the top) is thrown away although it ranks in the top 2.
    2. It divides by the relevant documents inside that cut (num_true of the
       truncated list), not by the query's R = 5 relevant documents, so
       relevant documents missed by the top k cost nothing and cutting a list
       short is rewarded (see the next test).
    3. Ties are broken by input order (Python's stable sort); the standard
       value is the expectation over the orderings of tied scores.

    Query 1 (no ties): code (1 + 2/3 + 3/4) / 3 = 0.8056, standard
    (1 + 2/3 + 3/4) / 5 = 0.4833. Query 2: code on its first five entries
    [0, 1, 1, 0, 1] with scores [.9, .8, .5, .4, .8]: (1/2 + 2/3 + 3/4) / 3 =
    0.6389; standard: the top five by score are {0: .9, 7: .9} tied, then
    1 and 4 (.8), then 2 (.5) - labels [0|1, 1, 1, 1] - AP@5 =
    ((1/2 + 2/3 + 3/4 + 4/5) + (1 + 2/3 + 3/4 + 4/5)) / 2 / 5 = 0.5933.
    """
    code = _article_map_at_k(TUTORIAL002_TRUE, TUTORIAL002_SCORE, 5)
    assert code == pytest.approx(((1 + 2 / 3 + 3 / 4) / 3 + (1 / 2 + 2 / 3 + 3 / 4) / 3) / 2)
    assert code == pytest.approx(0.7222222222222222)

    per_query = srm.map_score(TUTORIAL002_TRUE, TUTORIAL002_SCORE, k=5, average=None)
    assert per_query.tolist() == pytest.approx([(1 + 2 / 3 + 3 / 4) / 5, 0.5933333333333333], rel=1e-12)
    standard = srm.map_score(TUTORIAL002_TRUE, TUTORIAL002_SCORE, k=5)
    assert standard == pytest.approx(0.5383333333333333, rel=1e-12)
    # bounds from the tie on top of query 2
    assert srm.map_score(TUTORIAL002_TRUE, TUTORIAL002_SCORE, k=5, ties="optimistic") == pytest.approx(0.5633333333333333)
    assert srm.map_score(TUTORIAL002_TRUE, TUTORIAL002_SCORE, k=5, ties="pessimistic") == pytest.approx(0.5133333333333333)


def test_tutorial002_average_precision_code_on_whole_lists():
    """On whole lists the code's average_precision divides by all relevant
    documents, so it is the standard AP - with ties broken by input order.
    Query 1 (no ties): 0.7226 from both (and sklearn's average_precision_score).
    Query 2: the code puts document 0 (label 0) before the tied document 7
    (label 1), which is the pessimistic order: 0.6862; the standard
    tie-averaged AP is 0.7362."""
    from sklearn.metrics import average_precision_score

    code_1 = _article_average_precision(TUTORIAL002_TRUE[0], TUTORIAL002_SCORE[0])
    code_2 = _article_average_precision(TUTORIAL002_TRUE[1], TUTORIAL002_SCORE[1])
    assert code_1 == pytest.approx(0.7226190476190476)
    assert code_2 == pytest.approx(0.6861904761904762)
    assert code_1 == pytest.approx(average_precision_score(TUTORIAL002_TRUE[0], TUTORIAL002_SCORE[0]))

    ap = srm.map_score(TUTORIAL002_TRUE, TUTORIAL002_SCORE, average=None)
    assert ap[0] == pytest.approx(code_1, rel=1e-12)
    assert ap[1] == pytest.approx(0.7361904761904762, rel=1e-12)
    pessimistic = srm.map_score(TUTORIAL002_TRUE, TUTORIAL002_SCORE, ties="pessimistic", average=None)
    assert pessimistic[1] == pytest.approx(code_2, rel=1e-12)


def test_tutorial002_map_code_rewards_short_lists():
    """One relevant document at rank 1 and four more at ranks 6..10: the
    code's AP@5 is 1.0 (it only sees one relevant document), the standard
    AP@5 is 1/5 = 0.2 (four of the five relevant documents were missed)."""
    labels = [1, 0, 0, 0, 0, 1, 1, 1, 1, 0]
    scores = [1 - i / 10 for i in range(10)]
    assert _article_map_at_k([labels], [scores], 5) == pytest.approx(1.0)
    assert srm.map_score(labels, scores, k=5) == pytest.approx(0.2)


def test_tutorial002_graded_example_cg_dcg_ndcg():
    """Graded labels [3, 2, 3, 0, 1]: CG@2 = 5 (3 + 2); DCG@k and NDCG@k for
    k = 1..5 (ideal order [3, 3, 2, 1, 0])."""
    y_true, y_score = [3, 2, 3, 0, 1], descending(5)
    assert srm.cg_score(y_true, y_score, k=2) == 5
    expected_dcg = [3.0, 4.261859507142915, 5.761859507142915, 5.761859507142915, 6.148712314377457]
    expected_idcg = [3.0, 4.892789260714372, 5.892789260714372, 6.323465818787765, 6.323465818787765]
    for k in range(1, 6):
        assert srm.dcg_score(y_true, y_score, k=k) == pytest.approx(expected_dcg[k - 1], rel=1e-12)
        assert srm.ndcg_score(y_true, y_score, k=k) == pytest.approx(
            expected_dcg[k - 1] / expected_idcg[k - 1], rel=1e-12
        )
    rounded = [round(srm.ndcg_score(y_true, y_score, k=k), 2) for k in range(1, 6)]
    assert rounded == [1.0, 0.87, 0.98, 0.91, 0.97]


def test_tutorial002_dcg_not_comparable_across_list_lengths():
    """A query with 5 results gets a larger DCG than one with 3, NDCG fixes it."""
    assert srm.dcg_score([3, 2, 3, 0, 1], descending(5)) > srm.dcg_score([3, 2, 3], descending(3))
    assert srm.ndcg_score([3, 3, 2], descending(3)) == pytest.approx(1.0)


# =====================================================================
# tutorial 003 (MRR@10, Recall@10, Recall_cap@10, nDCG@10; MTEB/BEIR)
# =====================================================================
# Document-retrieval scenario: Doc_A (relevance 5) at rank 2, Doc_B (4) at
# rank 4, Doc_C (4) at rank 5; the other results are not relevant.
DOC_SCENARIO = [0, 5, 0, 4, 4, 0, 0, 0, 0, 0]


def test_tutorial003_document_scenario_mrr_recall_recall_cap():
    y_score = descending(10)
    assert srm.mrr_score(DOC_SCENARIO, y_score, k=10) == pytest.approx(0.5)
    assert srm.recall_at_k_score(DOC_SCENARIO, y_score, k=10) == pytest.approx(1.0)
    assert srm.recall_cap_score(DOC_SCENARIO, y_score, k=10) == pytest.approx(1.0)


def test_tutorial003_summary_table_ndcg_0674_belongs_to_document_scenario():
    """The summary table lists nDCG@10 ~ 0.674 next to the MRR 0.5, Recall
    1.0 and R_cap 1.0 of the document scenario; the cake-shop calculation
    right above it gives 0.858, so table and text disagree. 0.674 is the
    nDCG@10 of the document scenario (0.67461, truncated)."""
    value = srm.ndcg_score(DOC_SCENARIO, descending(10), k=10)
    expected = (5 / log2(3) + 4 / log2(5) + 4 / log2(6)) / (5 + 4 / log2(3) + 4 / log2(4))
    assert value == pytest.approx(expected, rel=1e-12)
    assert value == pytest.approx(0.6746068651806827, rel=1e-12)
    assert int(value * 1000) / 1000 == 0.674


@pytest.mark.parametrize(
    "labels, expected_recall, expected_cap",
    [
        ([1] + [0] * 19, 1.0, 1.0),  # the single relevant document at rank 1
        ([0] * 14 + [1] + [0] * 5, 0.0, 0.0),  # at rank 15: outside the top 10
    ],
    ids=["rank-1", "rank-15"],
)
def test_tutorial003_single_relevant_document(labels, expected_recall, expected_cap):
    y_score = descending(len(labels))
    assert srm.recall_at_k_score(labels, y_score, k=10) == pytest.approx(expected_recall)
    assert srm.recall_cap_score(labels, y_score, k=10) == pytest.approx(expected_cap)


@pytest.mark.parametrize(
    "found, expected_recall, expected_cap", [(10, 0.5, 1.0), (5, 0.25, 0.5)]
)
def test_tutorial003_twenty_relevant(found, expected_recall, expected_cap):
    """20 relevant documents; 10 in the top 10: Recall@10 = 0.5, R_cap@10 = 1.0;
    5 in the top 10: 0.25 and 0.5."""
    # whole list: the top 10 holds `found` relevant, the other 20 - found
    # relevant ones rank after it, behind some non-relevant ones
    top = [1] * found + [0] * (10 - found)
    rest = [0] * 5 + [1] * (20 - found)
    labels = top + rest
    y_score = descending(len(labels))
    assert srm.recall_at_k_score(labels, y_score, k=10) == pytest.approx(expected_recall)
    assert srm.recall_cap_score(labels, y_score, k=10) == pytest.approx(expected_cap)
    # a retrieval run that returned only the top 10, with n_relevant = 20
    for func, expected in ((srm.recall_at_k_score, expected_recall), (srm.recall_cap_score, expected_cap)):
        value = func(top, descending(10), qid=["q"] * 10, k=10, n_relevant={"q": 20})
        assert value == pytest.approx(expected)


# Cake-shop scenario: the labels of the returned top 10, by rank.
CAKE = [1, 4, 2, 5, 1, 3, 3, 1, 5, 4]


def test_tutorial003_cake_dcg_at_10():
    """DCG@10 = 1.000 + 2.524 + 1.000 + 2.152 + 0.387 + 1.069 + 1.000 + 0.315
    + 1.505 + 1.156 ~ 12.108 (12.1094 unrounded)."""
    value = srm.dcg_score(CAKE, descending(10), k=10)
    assert value == pytest.approx(12.10945033358859, rel=1e-12)
    assert value == pytest.approx(12.108, abs=2e-3)


def test_tutorial003_cake_ndcg_at_10_standard_ideal():
    """The article's IDCG@10 uses only the six "relevant" shops (labels
    5, 5, 4, 4, 3, 3), padding with zeros: 14.105, nDCG@10 = 0.858.

    That is inconsistent: the DCG gives the shops labelled 1 and 2 (P, Q, R,
    S) their gain, but the ideal ranking drops them. The standard IDCG@k is
    the DCG@k of the same labels sorted in decreasing order -
    [5, 5, 4, 4, 3, 3, 2, 1, 1, 1] - which adds 2/log2(8) + 1/log2(9) +
    1/log2(10) + 1/log2(11) = 1.572: IDCG@10 = 15.679 and nDCG@10 = 0.7723
    (as sklearn.metrics.ndcg_score). Only with the standard ideal is NDCG
    <= 1 guaranteed. (The summary table's 0.674 is a third number, the
    document scenario's; see the test above.)"""
    from sklearn.metrics import ndcg_score as sk_ndcg

    article_idcg = dcg([5, 5, 4, 4, 3, 3])
    assert article_idcg == pytest.approx(14.105, abs=2e-3)
    article_ndcg = srm.dcg_score(CAKE, descending(10), k=10) / article_idcg
    assert round(article_ndcg, 3) == 0.858

    standard_idcg = srm.dcg_score(sorted(CAKE, reverse=True), descending(10), k=10)
    assert standard_idcg == pytest.approx(15.678761348612815, rel=1e-12)
    value = srm.ndcg_score(CAKE, descending(10), k=10)
    assert value == pytest.approx(0.7723473853793928, rel=1e-12)
    assert value == pytest.approx(sk_ndcg([CAKE], [descending(10)], k=10), rel=1e-12)
    assert round(value, 3) != 0.858 and round(value, 3) != 0.674


def test_tutorial003_cake_recall_of_relevant_shops():
    """"All 6 relevant shops were found": relevant = label >= 3."""
    y_score = descending(10)
    assert srm.recall_at_k_score(CAKE, y_score, k=10, relevance_level=3) == pytest.approx(1.0)
    assert srm.recall_cap_score(CAKE, y_score, k=10, relevance_level=3) == pytest.approx(1.0)
    assert srm.mrr_score(CAKE, y_score, k=10, relevance_level=3) == pytest.approx(0.5)


# =====================================================================
# tutorial 004 (MRR, MAP, NDCG, RC)
# =====================================================================
TUTORIAL004_LABELS = [4, 3, 2, 1, 3, 1, 2]  # true scores of the documents at ranks 1..7


def test_tutorial004_ap_13_over_30():
    """Relevant iff true score > 2 (relevance_level=3): ranks 1, 2, 5. With
    m1 = 6 relevant documents in total (three of them not in the list):
    AP = (1/1 + 2/2 + 3/5) / 6 = 13/30. Without n_relevant, R = 3 gives
    (1 + 1 + 3/5) / 3 = 13/15."""
    y_score = descending(7)
    qid = ["q"] * 7
    value = srm.map_score(TUTORIAL004_LABELS, y_score, qid=qid, relevance_level=3, n_relevant={"q": 6})
    assert value == pytest.approx(13 / 30, rel=1e-12)
    assert srm.map_score(TUTORIAL004_LABELS, y_score, relevance_level=3) == pytest.approx(13 / 15)
    # relevance_level=1 would count every document as relevant
    assert srm.map_score(TUTORIAL004_LABELS, y_score) == pytest.approx(1.0)


def test_tutorial004_mrr():
    """The most relevant document (4.0) is at rank 1: RR = 1."""
    assert srm.mrr_score(TUTORIAL004_LABELS, descending(7), relevance_level=3) == pytest.approx(1.0)
    assert srm.mrr_score(TUTORIAL004_LABELS, descending(7), relevance_level=4) == pytest.approx(1.0)


def test_tutorial004_more_ap_examples():
    """query1: relevant at ranks 1, 2, 5, 7 -> (1/1 + 2/2 + 3/5 + 4/7) / 4;
    query2: 5 relevant at ranks 2, 3, 6, 29, 58 -> (1/2 + 2/3 + 3/6 + 4/29 +
    5/58) / 5, and with a cutoff of 8: (1/2 + 2/3 + 3/6 + 0 + 0) / 5."""
    q1 = [1 if r in (1, 2, 5, 7) else 0 for r in range(1, 8)]
    q2 = [1 if r in (2, 3, 6, 29, 58) else 0 for r in range(1, 59)]
    y_true = q1 + q2
    y_score = descending(7) + descending(58)
    qid = [1] * 7 + [2] * 58
    ap1 = (1 + 1 + 3 / 5 + 4 / 7) / 4
    ap2 = (1 / 2 + 2 / 3 + 3 / 6 + 4 / 29 + 5 / 58) / 5
    ap2_at_8 = (1 / 2 + 2 / 3 + 3 / 6) / 5
    assert srm.map_score(y_true, y_score, qid=qid, average=None).tolist() == pytest.approx([ap1, ap2])
    assert srm.map_score(y_true, y_score, qid=qid) == pytest.approx((ap1 + ap2) / 2)
    assert srm.map_score(y_true, y_score, qid=qid, k=8, average=None).tolist() == pytest.approx(
        [ap1, ap2_at_8]
    )
    # the same as a run that returned only the top 8, with n_relevant
    assert srm.map_score(
        q2[:8], descending(8), qid=[2] * 8, n_relevant={2: 5}
    ) == pytest.approx(ap2_at_8)


def test_tutorial004_rank_correlation_two_thirds():
    """Documents (1, 2, 3) with labels (1, 0, 1) in that order. Ideal orders
    (1, 3, 2) and (3, 1, 2); tau_K against them is 2/3 and 1/3; RC is the
    max, 2/3."""
    from _reference import rc_literal, tau_k

    assert tau_k([1, 2, 3], [1, 3, 2]) == pytest.approx(2 / 3)
    assert tau_k([1, 2, 3], [2, 3, 1]) == pytest.approx(1 / 3)  # pi_l of order (3, 1, 2)
    assert rc_literal([1, 0, 1]) == pytest.approx(2 / 3)
    assert srm.rank_correlation_score([1, 0, 1], [3, 2, 1]) == pytest.approx(2 / 3, rel=1e-12)
    # kendall's tau-b of the same lists is 0 (one concordant, one discordant pair)
    assert srm.rank_correlation_score([1, 0, 1], [3, 2, 1], method="kendall") == pytest.approx(0.0, abs=1e-12)


def test_tutorial004_rank_correlation_seven_documents():
    """The seven-document example with binary labels (1,1,0,0,1,0,0): pairs
    agree except a non-relevant document above a relevant one: documents 3
    and 4 above 5 -> 2 of 21 pairs disagree."""
    binary = [1, 1, 0, 0, 1, 0, 0]
    assert srm.rank_correlation_score(binary, descending(7)) == pytest.approx(19 / 21, rel=1e-12)


# =====================================================================
# provenance: the quoted numbers are in the tutorials (skip if absent)
# =====================================================================
QUOTED = {
    "000": ["2、1、5", "0.57", "6.15", "6.32", "0.97", "[3, 2, 3, 0, 1]"],
    "001": ["5.76", "6.43", "0.90", "[3, 2, 3, 0, 1]"],
    "002": ["CG@2是5", "map_at_k", "true_labels[i][:k]", "[0.9, 0.8, 0.5, 0.4, 0.8, 0.2, 0.1, 0.9, 0.3, 0.0]"],
    "003": ["12.108", "14.105", "0.858", "0.674", "10 / 20 = 0.5", "5 / 10 = 0.5"],
    "004": ["13}{30}", "4.0", "2}{3}"],
}


@pytest.mark.parametrize("tutorial", sorted(QUOTED))
def test_quoted_numbers_are_in_the_tutorials(tutorial):
    if not TUTORIALS_DIR.is_dir():
        pytest.skip("the published tutorials' texts are not available in this checkout")
    matches = sorted(TUTORIALS_DIR.glob(f"{tutorial}_*.txt"))
    if not matches:
        pytest.skip(f"the text of tutorial {tutorial} is not available in this checkout")
    text = matches[0].read_text(encoding="utf-8")
    for quoted in QUOTED[tutorial]:
        assert quoted in text, quoted
