"""Brute-force reference implementations of every ranking metric.

Written in plain Python from the textbook definitions, independently of the
package; metrics are named as in the package's ``evaluate``:

* a query's ranked list is a sequence of labels in rank order;
* ``ties="average"`` ENUMERATES every ordering of the documents inside each
  block of tied scores (``itertools.permutations`` within a block, product
  over blocks) and averages the metric over them; ``"optimistic"`` /
  ``"pessimistic"`` sort higher / lower labels first inside each tie;
  ``"first"`` keeps the input order inside each tie: the order of
  ``np.lexsort((row, -score, qid))``;
* queries are the sorted unique query ids (row order for 2-D input).

Nothing here is fast; keep tie blocks at 7 documents or fewer.
"""

import itertools
import math
from collections import Counter
import functools
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

GAIN_METRICS = ("dcg", "ndcg", "cg")
BINARY_METRICS = (
    "mrr",
    "map",
    "precision",
    "recall",
    "f1",
    "recall_cap",
    "hit_rate",
    "hit_rate_item",
    "r_precision",
)
PAIR_METRICS = ("rc", "kendall")
# trec_eval's measures and the other IR measures; those without a no_relevant
# convention (counts, utility, the judged shares) are the NO_CONVENTION ones.
TREC_METRICS = (
    "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "gm_map", "bpref",
    "gm_bpref", "infap", "iprec_at_recall", "iprec_11pt_avg", "rprec_mult", "set_map", "bing",
    "utility", "err", "rbp", "rbp_resid", "judged", "unjudged", "ndcg_rel", "rndcg", "g",
    "fallout",
)  # fmt: skip
SUMMED = ("num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")
GEOMETRIC = ("gm_map", "gm_bpref")  # exp(mean(log(max(v, 1e-5)))), as trec_eval
NO_CONVENTION = (
    "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "utility",
    "rbp_resid", "judged", "unjudged", "fallout",
)  # fmt: skip
ALL_METRICS = GAIN_METRICS + BINARY_METRICS + PAIR_METRICS + TREC_METRICS
MAX_TIE_BLOCK = 7


# ---------------------------------------------------------------- orderings
def tie_blocks(labels, scores):
    """Labels grouped by equal score, blocks in decreasing score order."""
    blocks = {}
    for label, score in zip(labels, scores):
        blocks.setdefault(score, []).append(label)
    return [blocks[s] for s in sorted(blocks, reverse=True)]


@lru_cache(maxsize=None)
def ranked_orderings(labels, scores, ties):
    """All ranked label sequences with their probabilities.

    ``labels`` and ``scores`` are tuples (one query). For ``"average"`` every
    permutation of every tie block is enumerated (equally likely); identical
    label sequences are merged, adding their probabilities.
    """
    if ties == "first":
        rows = np.lexsort((np.arange(len(scores)), -np.array(scores, dtype=float)))
        return ((tuple(labels[i] for i in rows), 1.0),)
    blocks = tie_blocks(labels, scores)
    if ties == "optimistic":
        return (((tuple(x for b in blocks for x in sorted(b, reverse=True))), 1.0),)
    if ties == "pessimistic":
        return (((tuple(x for b in blocks for x in sorted(b))), 1.0),)
    assert ties == "average"
    assert all(len(b) <= MAX_TIE_BLOCK for b in blocks), "tie block too large for brute force"
    counts = Counter()
    total = 0
    for combo in itertools.product(*(itertools.permutations(b) for b in blocks)):
        counts[tuple(itertools.chain.from_iterable(combo))] += 1
        total += 1
    return tuple((order, c / total) for order, c in counts.items())


# ---------------------------------------------- metrics of one ranked list
def gain_of(label, gain):
    return label if gain == "linear" else 2.0**label - 1.0


def cutoff(k, n):
    return n if k is None else k


def dcg_of(ranked, k, gain):
    top = ranked[: cutoff(k, len(ranked))]
    return sum(gain_of(x, gain) / math.log2(i + 2) for i, x in enumerate(top))


def cg_of(ranked, k, gain):
    return sum(gain_of(x, gain) for x in ranked[: cutoff(k, len(ranked))])


def hits_of(ranked, k, level):
    return sum(1 for x in ranked[: cutoff(k, len(ranked))] if x >= level)


def rr_of(ranked, k, level):
    for i, x in enumerate(ranked[: cutoff(k, len(ranked))]):
        if x >= level:
            return 1.0 / (i + 1)
    return 0.0


def ap_of(ranked, k, level, R):
    """trec_eval map_cut: sum of P@i over relevant ranks i <= k, over R."""
    hits = 0
    total = 0.0
    for i, x in enumerate(ranked[: cutoff(k, len(ranked))]):
        if x >= level:
            hits += 1
            total += hits / (i + 1)
    return total / R


def precision_of(ranked, k, level):
    """Divides by k even when the list is shorter (trec_eval P_k)."""
    return hits_of(ranked, k, level) / cutoff(k, len(ranked))


def recall_of(ranked, k, level, R):
    return hits_of(ranked, k, level) / R


def f1_of(ranked, k, level, R):
    p = precision_of(ranked, k, level)
    r = recall_of(ranked, k, level, R)
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def recall_cap_of(ranked, k, level, R):
    return hits_of(ranked, k, level) / min(cutoff(k, len(ranked)), R)


def r_precision_of(ranked, level, R):
    return hits_of(ranked, R, level) / R


def hit_of(ranked, k, level):
    return 1.0 if hits_of(ranked, k, level) > 0 else 0.0


def hit_item_of(ranked, k, level):
    return hits_of(ranked, k, level) / min(cutoff(k, len(ranked)), len(ranked))


def agreement_of(ranked):
    """RC of one ranked list: share of pairs (i above j) with label_i >= label_j."""
    n = len(ranked)
    if n < 2:
        return math.nan
    agree = sum(1 for i in range(n) for j in range(i + 1, n) if ranked[i] >= ranked[j])
    return agree / (n * (n - 1) / 2)


# ------------------------------------ trec_eval's loops, transcribed from its C source
# Labels: >= 0 judged, -1 not in the qrels, -2 in the qrels with a negative judgment.
def bpref_of(ranked, level, R, N):
    """m_bpref.c: N is the number of judged non-relevant documents of the query."""
    nonrel_so_far, total = 0, 0.0
    for x in ranked:
        if x < 0:
            continue
        if x < level:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            total += 1.0 - min(nonrel_so_far, R) / min(N, R)
        else:
            total += 1.0
    return total / R


def infap_of(ranked, level, R):
    """m_infap.c."""
    nonrel = rel = unjudged = 0
    total = 0.0
    for j, x in enumerate(ranked):
        if x == -1:
            continue
        if x < 0:
            unjudged += 1
            continue
        if x < level:
            nonrel += 1
            continue
        rel += 1
        if j == 0:
            total += 1.0
        else:
            fj = float(j)
            total += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + unjudged) / fj) * (
                (rel - 1 + 0.00001) / (rel - 1 + nonrel + 2 * 0.00001)
            )
    return total / R


def c_lround(x):
    whole = math.floor(x)
    return whole + (1 if x - whole >= 0.5 else 0)


def trec_v9_cut(x):
    """trec_eval 9's cutoff of a recall level: ``(long) (x + 0.9)``."""
    return int(x + 0.9)


def iprec_of(ranked, level, R, recalls, cut=c_lround):
    """m_iprec_at_recall.c (trec_eval 10; ``cut=trec_v9_cut`` for trec_eval 9): one value per level."""
    cutoffs = [cut(r * R) for r in recalls]
    num_ret = len(ranked)
    num_rel_ret = sum(1 for x in ranked if x >= level)
    values = [0.0] * len(recalls)
    current = len(recalls) - 1
    while current >= 0 and cutoffs[current] > num_rel_ret:
        current -= 1
    int_precis = num_rel_ret / num_ret if num_ret else 0.0
    rel_so_far = num_rel_ret
    i = num_ret
    while i > 0 and rel_so_far > 0:
        int_precis = max(int_precis, rel_so_far / i)
        if ranked[i - 1] >= level:
            while current >= 0 and rel_so_far == cutoffs[current]:
                values[current] = int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = int_precis
        current -= 1
    return values


def rprec_mult_of(ranked, level, R, multiplier):
    """m_Rprec_mult.c, one multiplier."""
    c = int(multiplier * R + 0.9)
    if c == 0:
        return 0.0
    return sum(1 for x in ranked[:c] if x >= level) / c


def bing_of(ranked, level, R):
    """m_binG.c."""
    rel_so_far, total = 0, 0.0
    for i, x in enumerate(ranked):
        if x >= level:
            rel_so_far += 1
            total += 1.0 / math.log2(3 + i - rel_so_far)
    return total / R


def err_of(ranked, k, max_grade=4):
    """Chapelle et al. 2009: a user stops at each document with probability R(grade)."""
    going_on, total = 1.0, 0.0
    for r, x in enumerate(ranked[: cutoff(k, len(ranked))], start=1):
        stop = (2.0 ** max(x, 0) - 1) / 2.0**max_grade
        total += going_on * stop / r
        going_on *= 1 - stop
    return total


def rbp_of(ranked, k, level, p=0.9):
    return (1 - p) * sum(p**i for i, x in enumerate(ranked[: cutoff(k, len(ranked))]) if x >= level)


def rbp_resid_of(ranked, p=0.9):
    """m_rbp_resid.c."""
    if not any(x < 0 for x in ranked):
        return 0.0
    return p ** len(ranked) + (1 - p) * sum(p**i for i, x in enumerate(ranked) if x < 0)


def judged_of(ranked, k):
    """ir_measures' Judged@k: judged documents of the top min(k, n), over min(k, n)."""
    top = ranked[: cutoff(k, len(ranked))]
    return sum(1 for x in top if x >= 0) / len(top)


def unjudged_of(ranked, k):
    """m_unjudged.c: unjudged documents of the top k, over k."""
    return sum(1 for x in ranked[: cutoff(k, len(ranked))] if x < 0) / cutoff(k, len(ranked))


def fallout_of(ranked, k, level, N):
    """torchmetrics' RetrievalFallOut: non-relevant (judged, label < level) documents of the
    top k over N, all the query's; 1 where N = 0 (its empty_target_action="pos")."""
    if N == 0:
        return 1.0
    return sum(1 for x in ranked[: cutoff(k, len(ranked))] if 0 <= x < level) / N


def utility_of(ranked, level, R, coefficients=(1.0, -1.0, 0.0, 0.0), num_docs=0):
    a = sum(1 for x in ranked if x >= level)
    n = len(ranked)
    u1, u2, u3, u4 = coefficients
    return u1 * a + u2 * (n - a) + u3 * (R - a) + u4 * (num_docs + a - n - R)


# ------------------------------- trec_eval's gains per level (gain_init.c)
def trec_gains(judged, gains=None, gain="linear"):
    """setup_gains: ``[level, gain, count]`` sorted as trec_eval sorts them.

    ``judged``: the query's judged labels (negative ones are not judged);
    ``gains``: {level: gain} (trec_eval's ``-m ndcg.1=3.5``). trec_eval's
    comparison casts the difference of two gains to an int.
    """
    counts = Counter(x for x in judged if x >= 0)
    named = {float(level): float(value) for level, value in (gains or {}).items()}
    table = [[level, value, counts.get(level, 0)] for level, value in named.items()]
    table += [[level, gain_of(level, gain), n] for level, n in sorted(counts.items())
              if level not in named]  # fmt: skip
    return sorted(table, key=functools.cmp_to_key(lambda a, b: int(a[1] - b[1])))


def trec_get_gain(label, table):
    for level, value, _ in table:
        if label == level:
            return value
    return 0.0


class _IdealWalk:
    """The ideal ranking as trec_eval walks it: ``cur_level``, ``num_at_level``, ``ideal_gain``."""

    def __init__(self, table):
        self.table = table
        self.cur_level = len(table) - 1
        self.gain = table[self.cur_level][1] if self.cur_level >= 0 else 0.0
        self.num_at_level = 0

    def step(self):
        self.num_at_level += 1
        while self.cur_level >= 0 and self.num_at_level > self.table[self.cur_level][2]:
            self.num_at_level = 1
            self.cur_level -= 1
            self.gain = self.table[self.cur_level][1] if self.cur_level >= 0 else 0.0
        return max(self.gain, 0.0)  # what the ideal gains here: only positive gains count


def _discounted(gain, i):
    """``gain / log2(i + 2)``, the DCG term of 0-based rank i (0 for no gain, as trec_eval skips it)."""
    return gain / math.log2(i + 2) if gain != 0 else 0.0


def trec_ndcg_of(ranked, judged, gains=None, gain="linear"):
    """m_ndcg.c: (dcg, ideal dcg) of the whole list."""
    table = trec_gains(judged, gains, gain)
    ideal = _IdealWalk(table)
    results_dcg = ideal_dcg = 0.0
    i = 0
    while i < len(ranked) and ideal.gain > 0.0:
        g = trec_get_gain(ranked[i], table)
        results_dcg += _discounted(g, i)
        ideal_dcg += _discounted(ideal.step(), i)
        i += 1
    while i < len(ranked):
        g = trec_get_gain(ranked[i], table)
        results_dcg += _discounted(g, i)
        i += 1
    while ideal.gain > 0.0:
        ideal_dcg += _discounted(ideal.step(), i)
        i += 1
    return results_dcg, ideal_dcg


def trec_ndcg_rel_of(ranked, judged, gains=None, gain="linear"):
    """m_ndcg_rel.c."""
    table = trec_gains(judged, gains, gain)
    ideal = _IdealWalk(table)
    results_dcg = ideal_dcg = total = 0.0
    num_rel_ret = num_rel = 0
    i = 0
    while i < len(ranked) and ideal.gain > 0.0:
        g = trec_get_gain(ranked[i], table)
        results_dcg += _discounted(g, i)
        ideal.step()
        if ideal.gain > 0.0:
            num_rel += 1
            ideal_dcg += ideal.gain / math.log2(i + 2)
        if g > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while i < len(ranked):
        g = trec_get_gain(ranked[i], table)
        results_dcg += _discounted(g, i)
        if g > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while ideal.gain > 0.0:
        ideal.step()
        if ideal.gain > 0.0:
            num_rel += 1
            ideal_dcg += ideal.gain / math.log2(i + 2)
        i += 1
    if num_rel - num_rel_ret:
        total += (num_rel - num_rel_ret) * results_dcg / ideal_dcg
    return total / num_rel if total > 0.0 else 0.0


def trec_rndcg_of(ranked, judged, level, gains=None, gain="linear"):
    """m_Rndcg.c (0 without relevant documents, nan where none has a positive gain)."""
    if not any(x >= level for x in judged):
        return 0.0
    table = trec_gains(judged, gains, gain)
    ideal = _IdealWalk(table)
    results_dcg = ideal_dcg = total = 0.0
    old_gain = ideal.gain
    changes = 0
    i = 0

    def at_change():
        # ndcg here joins the mean where the ideal gain changed (from a positive ideal dcg)
        nonlocal total, changes, old_gain
        if old_gain != ideal.gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old_gain = ideal.gain

    while i < len(ranked) and ideal.gain > 0.0:
        g = trec_get_gain(ranked[i], table)
        ideal.step()
        at_change()
        results_dcg += _discounted(g, i)
        ideal_dcg += _discounted(max(ideal.gain, 0.0), i)
        i += 1
    if i < len(ranked):
        while i < len(ranked):
            g = trec_get_gain(ranked[i], table)
            results_dcg += _discounted(g, i)
            i += 1
        if ideal_dcg > 0.0:
            total += results_dcg / ideal_dcg
            changes += 1
    while ideal.gain > 0.0:
        ideal.step()
        at_change()
        ideal_dcg += _discounted(max(ideal.gain, 0.0), i)
        i += 1
    return total / changes if changes else math.nan


def trec_g_of(ranked, judged, gains=None, gain="linear"):
    """m_G.c."""
    table = trec_gains(judged, gains, gain)
    ideal = _IdealWalk(table)
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    i = 0
    while i < len(ranked) and ideal.gain > 0.0:
        g = trec_get_gain(ranked[i], table)
        sum_results += g
        ideal.step()
        if ideal.gain > 0.0:
            sum_ideal += ideal.gain
        sum_cost += ideal.gain if ideal.gain >= 1.0 else 1.0
        if g != 0:
            results_g += g / math.log2(2 + sum_cost - sum_results)
        i += 1
    while i < len(ranked):
        g = trec_get_gain(ranked[i], table)
        sum_results += g
        sum_cost += 1.0
        if g != 0:
            results_g += g / math.log2(2 + sum_cost - sum_results)
        i += 1
    while ideal.gain > 0.0:
        ideal.step()
        if ideal.gain > 0.0:
            sum_ideal += ideal.gain
        i += 1
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0

# ------------------------------------------------ rank correlation, directly
def rc_pairs(labels, scores, ties="average"):
    """RC from the pair rule: equal labels agree; tied scores with different
    labels count 1/2 (average), 1 (optimistic), 0 (pessimistic), or under
    "first" 1 when the earlier row has the higher label."""
    n = len(labels)
    if n < 2:
        return math.nan
    tie_value = {"average": 0.5, "optimistic": 1.0, "pessimistic": 0.0}
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            if labels[i] == labels[j]:
                total += 1.0
            elif scores[i] == scores[j]:
                total += float(labels[i] > labels[j]) if ties == "first" else tie_value[ties]
            elif (labels[i] - labels[j]) * (scores[i] - scores[j]) > 0:
                total += 1.0
    return total / (n * (n - 1) / 2)


def tau_k(pi, pi_l):
    """The published tutorial's tau_K with unit weights.

    ``pi`` and ``pi_l`` map document -> position (1-based lists indexed by
    document)."""
    n = len(pi)
    num = 0.0
    pairs = 0
    for u in range(n):
        for v in range(u + 1, n):
            s = (pi[u] - pi[v]) * (pi_l[u] - pi_l[v])
            num += 1 + (s > 0) - (s < 0)
            pairs += 1
    return num / (2 * pairs)


def rc_literal(ranked_labels):
    """RC as the tutorial defines it: max over all ideal orderings pi_l of tau_K(pi, pi_l).

    Document d sits at position d + 1 of the model's list. Exponential in n:
    tiny lists only."""
    n = len(ranked_labels)
    pi = list(range(1, n + 1))
    best = -math.inf
    for perm in itertools.permutations(range(n)):
        labels_in_order = [ranked_labels[d] for d in perm]
        if any(labels_in_order[i] < labels_in_order[i + 1] for i in range(n - 1)):
            continue  # not an ideal ordering
        pi_l = [0] * n
        for position, d in enumerate(perm, start=1):
            pi_l[d] = position
        best = max(best, tau_k(pi, pi_l))
    return best


def kendall_tau_b(labels, scores):
    """Kendall's tau-b by counting pairs."""
    n = len(labels)
    n0 = n * (n - 1) / 2
    concordant = discordant = tied_x = tied_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = labels[i] - labels[j]
            dy = scores[i] - scores[j]
            if dx == 0:
                tied_x += 1
            if dy == 0:
                tied_y += 1
            if dx * dy > 0:
                concordant += 1
            elif dx * dy < 0:
                discordant += 1
    denominator = math.sqrt((n0 - tied_x) * (n0 - tied_y))
    if denominator == 0:
        return math.nan
    return (concordant - discordant) / denominator


# --------------------------------------------------------- one query value
@dataclass
class Query:
    """What a metric of one query reads besides its ranked labels.

    ``R``: relevant documents (listed or not), ``N``: judged non-relevant ones
    of the list, ``judged``: the list's labels and, below them, the relevant
    documents it left out. ``recall`` and ``multiplier``: the options of
    iprec_at_recall and rprec_mult.
    """

    k: int | None
    gain: str
    level: float
    R: int
    N: int
    judged: tuple
    recall: float
    multiplier: float

    @cached_property
    def ideal_dcg(self):
        return dcg_of(tuple(sorted(self.judged, reverse=True)), self.k, self.gain)


# Each metric: its value on one ranked list of labels (r) of the query (q).
METRIC_OF = {
    # Counts and shares without a no_relevant convention (NO_CONVENTION).
    "num_q": lambda r, q: 1.0,
    "num_ret": lambda r, q: float(len(r)),
    "num_rel": lambda r, q: float(q.R),
    "num_rel_ret": lambda r, q: float(hits_of(r, None, q.level)),
    "num_nonrel_judged_ret": lambda r, q: float(q.N),
    "utility": lambda r, q: utility_of(r, q.level, q.R),
    "rbp_resid": lambda r, q: rbp_resid_of(r),
    "judged": lambda r, q: judged_of(r, q.k),
    "unjudged": lambda r, q: unjudged_of(r, q.k),
    "fallout": lambda r, q: fallout_of(r, q.k, q.level, q.N),
    # The others: no_relevant decides a query without a relevant document.
    "dcg": lambda r, q: dcg_of(r, q.k, q.gain),
    "ndcg": lambda r, q: dcg_of(r, q.k, q.gain) / q.ideal_dcg,
    "cg": lambda r, q: cg_of(r, q.k, q.gain),
    "mrr": lambda r, q: rr_of(r, q.k, q.level),
    "map": lambda r, q: ap_of(r, q.k, q.level, q.R),
    "precision": lambda r, q: precision_of(r, q.k, q.level),
    "recall": lambda r, q: recall_of(r, q.k, q.level, q.R),
    "f1": lambda r, q: f1_of(r, q.k, q.level, q.R),
    "recall_cap": lambda r, q: recall_cap_of(r, q.k, q.level, q.R),
    "hit_rate": lambda r, q: hit_of(r, q.k, q.level),
    "hit_rate_item": lambda r, q: hit_item_of(r, q.k, q.level),
    "r_precision": lambda r, q: r_precision_of(r, q.level, q.R),
    "gm_map": lambda r, q: ap_of(r, q.k, q.level, q.R),
    "bpref": lambda r, q: bpref_of(r, q.level, q.R, q.N),
    "gm_bpref": lambda r, q: bpref_of(r, q.level, q.R, q.N),
    "infap": lambda r, q: infap_of(r, q.level, q.R),
    "iprec_at_recall": lambda r, q: iprec_of(r, q.level, q.R, [q.recall])[0],
    "iprec_11pt_avg": lambda r, q: sum(iprec_of(r, q.level, q.R, [i / 10 for i in range(11)])) / 11,
    "rprec_mult": lambda r, q: rprec_mult_of(r, q.level, q.R, q.multiplier),
    "set_map": lambda r, q: hits_of(r, None, q.level) ** 2 / (len(r) * q.R),
    "bing": lambda r, q: bing_of(r, q.level, q.R),
    "err": lambda r, q: err_of(r, q.k),
    "rbp": lambda r, q: rbp_of(r, q.k, q.level),
    "ndcg_rel": lambda r, q: trec_ndcg_rel_of(r, q.judged, gain=q.gain),
    "rndcg": lambda r, q: trec_rndcg_of(r, q.judged, q.level, gain=q.gain),
    "g": lambda r, q: trec_g_of(r, q.judged, gain=q.gain),
}
# Graded measures: a query has no relevant document when no label is above 0.
GRADED_NO_RELEVANT = GAIN_METRICS + ("err", "ndcg_rel", "g")


def query_value(
    metric,
    labels,
    scores,
    *,
    k=None,
    ties="average",
    gain="linear",
    relevance_level=1,
    R_given=None,
    no_relevant="zero",
    recall=0.5,
    multiplier=1.0,
):
    """Value of one query (labels/scores in any order), NaN if skipped/undefined.

    ``recall`` and ``multiplier``: the options of iprec_at_recall and rprec_mult.
    """
    labels = tuple(float(x) for x in labels)
    scores = tuple(float(x) for x in scores)

    if metric == "kendall":
        return kendall_tau_b(labels, scores)
    if metric == "rc":
        return _expect(labels, scores, ties, agreement_of)
    if metric not in METRIC_OF:
        raise ValueError(metric)

    lv = relevance_level
    R_in = sum(1 for x in labels if x >= lv)
    R = R_in if R_given is None else R_given
    # The full materialized ranking's judged documents: the list, and below it the
    # relevant documents it left out (R_given counts them), of the lowest relevant
    # label (1 for labels 0 and 1). They count in totals and ideals, never as ranked.
    judged = labels + (max(1.0, lv),) * (R - R_in)
    N = sum(1 for x in labels if 0 <= x < lv)
    query = Query(k, gain, lv, R, N, judged, recall, multiplier)
    if metric not in NO_CONVENTION:
        if metric in GRADED_NO_RELEVANT:
            no_rel = all(x <= 0 for x in judged)
        else:
            assert R >= R_in
            no_rel = R == 0
        if no_rel:
            return {"zero": 0.0, "one": 1.0, "skip": math.nan}[no_relevant]
    value_of = METRIC_OF[metric]
    return _expect(labels, scores, ties, lambda ranked: value_of(ranked, query))


def _expect(labels, scores, ties, f):
    return sum(p * f(r) for r, p in ranked_orderings(labels, scores, ties))


# ------------------------------------------------------------- whole input
def group_queries(y_true, y_score, qid=None, sample_weight=None):
    """[(query id, labels, scores, weight)] in numpy.unique(qid) / row order."""
    y_true = np.asarray(y_true, dtype=float)
    y_score = np.asarray(y_score, dtype=float)
    if y_true.ndim == 2:
        out = []
        for i in range(y_true.shape[0]):
            w = 1.0 if sample_weight is None else float(sample_weight[i])
            out.append((i, list(y_true[i]), list(y_score[i]), w))
        return out
    if qid is None:
        qid = [0] * len(y_true)
    qid = list(qid)
    groups = {}
    for i, q in enumerate(qid):
        groups.setdefault(q, []).append(i)
    out = []
    for q in sorted(groups):
        rows = groups[q]
        w = 1.0 if sample_weight is None else float(sample_weight[rows[0]])
        out.append((q, [float(y_true[i]) for i in rows], [float(y_score[i]) for i in rows], w))
    return out


def reference(
    metric,
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    ties="average",
    gain="linear",
    relevance_level=1,
    n_relevant=None,
    no_relevant="zero",
    sample_weight=None,
    average="mean",
    **options,
):
    """Brute-force value of ``metric`` on the whole input, as the package returns it.

    ``options``: the measure's parameters (``recall``, ``multiplier``).
    Counts are summed and ``gm_*`` averaged geometrically, as trec_eval does.
    """
    values, weights = [], []
    for q, labels, scores, w in group_queries(y_true, y_score, qid, sample_weight):
        R_given = None if n_relevant is None else n_relevant.get(q)
        v = query_value(
            metric,
            labels,
            scores,
            k=k,
            ties=ties,
            gain=gain,
            relevance_level=relevance_level,
            R_given=R_given,
            no_relevant=no_relevant,
            **options,
        )
        if metric == "hit_rate_item":
            w = w * min(cutoff(k, len(labels)), len(labels))  # pooled mean
        values.append(v)
        weights.append(w)
    if average is None:
        return np.array(values, dtype=float)
    num = den = 0.0
    for v, w in zip(values, weights):
        if not math.isnan(v) and w > 0:
            num += w * (math.log(max(v, 1e-5)) if metric in GEOMETRIC else v)
            den += w
    if den == 0:
        return math.nan
    if metric in SUMMED:
        return num
    return math.exp(num / den) if metric in GEOMETRIC else num / den


# --------------------------------------------------------- random inputs
def random_case(
    seed,
    *,
    max_queries=5,
    max_docs=7,
    score_values=(0, 1, 2),
    label_values=(0, 0, 1, 2, 3),
    string_qids=None,
):
    """A small random flat ranking with heavy ties, shuffled (interleaved) rows.

    Returns ``(y_true, y_score, qid)`` as Python lists.
    """
    import random

    rng = random.Random(seed)
    n_queries = rng.randint(1, max_queries)
    if string_qids is None:
        string_qids = rng.random() < 0.5
    ids = rng.sample(range(100), n_queries)
    rows = []
    for q in ids:
        n = rng.randint(1, max_docs)
        all_zero = rng.random() < 0.15
        for _ in range(n):
            label = 0 if all_zero else rng.choice(label_values)
            rows.append((f"q{q:02d}" if string_qids else q, label, rng.choice(score_values)))
    rng.shuffle(rows)
    qid = [r[0] for r in rows]
    y_true = [r[1] for r in rows]
    y_score = [r[2] for r in rows]
    return y_true, y_score, qid


def trec_dict(frame, value):
    """A run or qrels DataFrame as pytrec_eval and ranx take it: ``{query: {doc: value}}``."""
    nested = {}
    for query, doc, v in zip(frame["query_id"], frame["doc_id"], frame[value]):
        nested.setdefault(query, {})[doc] = v
    return nested
