"""The definitions table: every metric the package computes, by name.

One :class:`~._definition.MetricDefinition` per metric: its family, its
computation (:mod:`._gains`, :mod:`._binary`), the parameters it declares
and what the documentation says of it. The public functions, ``evaluate``,
the scorers, the name syntaxes, the documentation's metric table and the
tests' parametrization all read :data:`METRICS`, so adding a metric means
adding its entry here, its quantity (if new) and its reference.
"""

from ..quantities import (
    HitProbability,
    Hits,
    InferredPrecisionSum,
    NonrelevantDiscountSum,
    NormalizedGainSum,
    PrecisionSum,
    PreferenceSum,
    ReciprocalRank,
    RelevantNdcgMean,
    RNdcgMean,
)
from ._binary import (
    BETA,
    COEFFICIENTS,
    MULTIPLIER,
    NUM_DOCS,
    PERSISTENCE,
    RBP_GAINS,
    RECALL,
    AtMultipleOfR,
    Binary,
    Count,
    Fallout,
    Interpolated,
    PairAgreement,
    RankBiased,
    Utility,
    as_is,
    f1,
    hits_at_r,
    items_hit,
    recommended,
    judged,
    judged_nonrelevant,
    judged_nonrelevant_retrieved,
    over_capped_total,
    over_cutoff,
    over_list,
    over_total,
    relevant_retrieved,
    set_map,
    unjudged,
    whole_list,
)
from ._definition import MetricDefinition
from ._gains import GAINS_PER_LEVEL, MAX_GRADE, Cascade, GainRatio, GainSum, LevelGainMean


def _tied(what):
    """The documentation's tie note of a measure without a closed form under ties."""
    return f"all; an error for `average` where a tie block mixes {what}"


_DEFINITIONS = (
    MetricDefinition(
        "ndcg",
        "graded",
        GainRatio(),
        parameters=(GAINS_PER_LEVEL,),
        extra_options=("label_gain",),
        function="ndcg_score",
        formula="`DCG@k / IDCG@k`, IDCG@k the DCG@k of the list sorted by decreasing label",
        matches=(
            "`sklearn.metrics.ndcg_score`; trec_eval `ndcg_cut` when the list holds every "
            "judged document (a run: `evaluate_run`)"
        ),
    ),
    MetricDefinition(
        "dcg",
        "graded",
        GainSum(discounted=True),
        parameters=(GAINS_PER_LEVEL,),
        extra_options=("label_gain",),
        function="dcg_score",
        bounded=False,
        formula="`sum_{i <= min(k, n)} g(rel_i) / log2(i + 1)`",
        matches="`sklearn.metrics.dcg_score` (log_base=2)",
    ),
    MetricDefinition(
        "cg",
        "graded",
        GainSum(discounted=False),
        parameters=(GAINS_PER_LEVEL,),
        extra_options=("label_gain",),
        function="cg_score",
        bounded=False,
        formula="`sum_{i <= min(k, n)} g(rel_i)`",
    ),
    MetricDefinition(
        "mrr",
        "binary",
        Binary(ReciprocalRank, as_is),
        function="mrr_score",
        aliases=("rr", "recip_rank"),
        formula="`1 / rank` of the first relevant document if it is in the top `k`, else 0",
        matches="trec_eval `recip_rank`, ranx `mrr`",
    ),
    MetricDefinition(
        "map",
        "binary",
        Binary(PrecisionSum, over_total, ap_denominator=True),
        function="map_score",
        extra_options=("ap_denominator",),
        aliases=("ap",),
        formula="`(1 / R) sum_{i <= k, rel_i relevant} P@i`",
        matches=(
            "trec_eval `map` / `map_cut` (R from the qrels: `n_relevant` or `evaluate_run`), "
            "ranx `map`"
        ),
    ),
    MetricDefinition(
        "precision",
        "binary",
        Binary(Hits, over_cutoff),
        function="precision_at_k_score",
        aliases=("p",),
        formula="`hits@k / k` (k even for shorter lists)",
        matches="trec_eval `P_k`, ranx `precision`",
    ),
    MetricDefinition(
        "recall",
        "binary",
        Binary(Hits, over_total),
        function="recall_at_k_score",
        formula="`hits@k / R`",
        matches=(
            "trec_eval `recall_k` (R from the qrels: `n_relevant` or `evaluate_run`), ranx "
            "`recall`"
        ),
    ),
    MetricDefinition(
        "f1",
        "binary",
        Binary(Hits, f1),
        parameters=(BETA,),
        function="f1_at_k_score",
        aliases=("f1_score",),
        formula="`2 P@k Recall@k / (P@k + Recall@k) = 2 hits@k / (k + R)`",
        matches="ranx `f1`",
    ),
    MetricDefinition(
        "recall_cap",
        "binary",
        Binary(Hits, over_capped_total),
        function="recall_cap_score",
        aliases=("r_cap",),
        formula="`hits@k / min(k, R)`",
        matches="BEIR / MTEB `R_cap@k`",
    ),
    MetricDefinition(
        "hit_rate",
        "binary",
        Binary(HitProbability, as_is),
        function="hit_rate_score",
        aliases=("hr", "hit_rate_query"),
        fixed_options={"level": "query"},
        formula="1 if `hits@k > 0` else 0",
        matches="ranx `hit_rate`",
    ),
    MetricDefinition(
        "hit_rate_item",
        "binary",
        Binary(Hits, items_hit, pool_weights=recommended),
        function="hit_rate_score",
        fixed_options={"level": "item"},
        formula="`hits@k / min(k, n)`; the mean is pooled: `sum hits@k / sum min(k, n)`",
    ),
    MetricDefinition(
        "r_precision",
        "binary",
        Binary(hits_at_r, over_total),
        function="r_precision_score",
        takes_cutoff=False,
        aliases=("rprec", "r-precision"),
        formula="`hits@R / R`",
        matches="trec_eval `Rprec` (R from the qrels: `n_relevant` or `evaluate_run`)",
    ),
    MetricDefinition(
        "rc",
        "pairs",
        PairAgreement(kendall=False),
        function="rank_correlation_score",
        takes_cutoff=False,
        aliases=("rank_correlation",),
        fixed_options={"method": "rc"},
        formula="share of document pairs ordered as the labels; pairs of equal label agree",
        matches="Liu, *Learning to Rank for IR* (RC)",
    ),
    MetricDefinition(
        "kendall",
        "pairs",
        PairAgreement(kendall=True),
        function="rank_correlation_score",
        takes_cutoff=False,
        aliases=("kendall_tau",),
        fixed_options={"method": "kendall"},
        formula="Kendall's tau-b between labels and scores",
        matches="`scipy.stats.kendalltau`",
    ),
    # ------------------------------------------------ trec_eval's measures
    MetricDefinition(
        "num_q",
        "counts",
        Count("queries"),
        takes_cutoff=False,
        bounded=False,
        aggregate="sum",
        integer=True,
        formula="1 per query; summed over queries",
        matches="trec_eval `num_q`",
    ),
    MetricDefinition(
        "num_ret",
        "counts",
        Count("retrieved"),
        takes_cutoff=False,
        bounded=False,
        aggregate="sum",
        integer=True,
        formula="documents retrieved; summed over queries",
        matches="trec_eval `num_ret`",
    ),
    MetricDefinition(
        "num_rel",
        "counts",
        Count("relevant"),
        takes_cutoff=False,
        bounded=False,
        aggregate="sum",
        integer=True,
        formula="`R`, relevant documents (judged, retrieved or not); summed over queries",
        matches="trec_eval `num_rel`",
    ),
    MetricDefinition(
        "num_rel_ret",
        "counts",
        Count(relevant_retrieved),
        takes_cutoff=False,
        bounded=False,
        aggregate="sum",
        integer=True,
        formula="relevant documents retrieved; summed over queries",
        matches="trec_eval `num_rel_ret`",
    ),
    MetricDefinition(
        "num_nonrel_judged_ret",
        "counts",
        Count(judged_nonrelevant_retrieved),
        takes_cutoff=False,
        bounded=False,
        aggregate="sum",
        integer=True,
        formula="judged non-relevant documents (0 <= label < level) retrieved; summed",
        matches="trec_eval `num_nonrel_judged_ret`",
    ),
    MetricDefinition(
        "gm_map",
        "binary",
        Binary(PrecisionSum, over_total, ap_denominator=True),
        aliases=("gm_ap",),
        extra_options=("ap_denominator",),
        aggregate="geometric",
        formula="AP per query; mean `exp(mean(log(max(AP, 1e-5))))`",
        matches="trec_eval `gm_map`",
    ),
    MetricDefinition(
        "bpref",
        "binary",
        Binary(whole_list(PreferenceSum), over_total, judged_nonrelevant),
        takes_cutoff=False,
        formula="`(1 / R) sum_{judged relevant r} (1 - min(n_r, R) / min(N, R))`, `n_r` judged "
        "non-relevant documents above `r` (the term is 1 where `n_r = 0`), N all judged "
        "non-relevant ones; unjudged documents skipped",
        matches="trec_eval `bpref`",
        ties=_tied("relevant and judged non-relevant documents"),
    ),
    MetricDefinition(
        "gm_bpref",
        "binary",
        Binary(whole_list(PreferenceSum), over_total, judged_nonrelevant),
        takes_cutoff=False,
        aggregate="geometric",
        formula="bpref per query; mean `exp(mean(log(max(bpref, 1e-5))))`",
        matches="trec_eval `gm_bpref`",
        ties=_tied("relevant and judged non-relevant documents"),
    ),
    MetricDefinition(
        "infap",
        "binary",
        Binary(whole_list(InferredPrecisionSum), over_total),
        takes_cutoff=False,
        formula="`(1 / R) sum_{judged relevant at 0-based rank j}` (1 at `j = 0`, else "
        "`1/(j+1) + j/(j+1) (r+n+u)/j (r+eps)/(r+n+2eps)`), `r, n, u` the relevant, judged "
        "non-relevant and pooled unjudged (label -2) documents above, `eps = 1e-5`",
        matches="trec_eval `infAP`",
        ties=_tied("a relevant document with any other"),
    ),
    MetricDefinition(
        "iprec_at_recall",
        "binary",
        Interpolated(eleven=False),
        parameters=(RECALL,),
        takes_cutoff=False,
        formula="highest precision at the rank of the `round(recall R)`-th relevant document or below "
        "(option `recall` in [0, 1]); 0 where the run holds fewer relevant documents",
        matches="trec_eval `iprec_at_recall` (10; 9 with `trec_eval_version='9'`)",
        ties=_tied("relevant and non-relevant documents"),
    ),
    MetricDefinition(
        "iprec_11pt_avg",
        "binary",
        Interpolated(eleven=True),
        takes_cutoff=False,
        aliases=("eleven_point_average",),
        formula="mean of iprec_at_recall at recall 0, 0.1, ..., 1",
        matches="trec_eval `11pt_avg`, versions 10 and 9",
        ties=_tied("relevant and non-relevant documents"),
    ),
    MetricDefinition(
        "rprec_mult",
        "binary",
        AtMultipleOfR(),
        parameters=(MULTIPLIER,),
        takes_cutoff=False,
        formula="`hits@c / c`, `c = floor(multiplier R + 0.9)` (option `multiplier`, default 1)",
        matches="trec_eval `Rprec_mult`",
    ),
    MetricDefinition(
        "set_map",
        "binary",
        Binary(Hits, set_map),
        takes_cutoff=False,
        formula="`hits^2 / (n R)`, `n` documents retrieved (recall times precision of the set)",
        matches="trec_eval `set_map`",
    ),
    MetricDefinition(
        "bing",
        "binary",
        Binary(whole_list(NonrelevantDiscountSum), over_total),
        takes_cutoff=False,
        formula="`(1 / R) sum_{relevant r} 1 / log2(2 + non-relevant documents above r)`",
        matches="trec_eval `binG`",
        ties=_tied("relevant and non-relevant documents"),
    ),
    # trec_eval's measures of gains per relevance level (option gains)
    MetricDefinition(
        "ndcg_rel",
        "graded",
        LevelGainMean(RelevantNdcgMean),
        parameters=(GAINS_PER_LEVEL,),
        extra_options=("label_gain",),
        takes_cutoff=False,
        formula="mean over the `P` documents of positive gain of nDCG where each is ranked "
        "(`DCG@i / IDCG@min(i, P)`, i its rank), `DCG / IDCG` for those not ranked",
        matches="trec_eval `ndcg_rel`",
        ties=_tied("different gains"),
    ),
    MetricDefinition(
        "rndcg",
        "graded",
        LevelGainMean(RNdcgMean, r_levels=True),
        parameters=(GAINS_PER_LEVEL,),
        extra_options=("label_gain",),
        takes_cutoff=False,
        formula="mean of `DCG@min(t, n) / IDCG@t` over the R levels `t` (documents of the "
        "highest 1, 2, .. positive gains), and of `DCG / IDCG` where `n >= P + 2`; 0 without "
        "relevant documents",
        matches="trec_eval `Rndcg`",
    ),
    MetricDefinition(
        "g",
        "graded",
        LevelGainMean(NormalizedGainSum, max_total=2.0**52),
        parameters=(GAINS_PER_LEVEL,),
        extra_options=("label_gain",),
        takes_cutoff=False,
        aliases=("normalized_gain",),
        formula="`sum_i g_i / log2(2 + C_i - S_i)` over the ideal's total gain: `S_i` the gains "
        "at ranks up to i, `C_i` the ideal's, each at least 1",
        matches="trec_eval `G`",
        ties=_tied("different gains"),
    ),
    MetricDefinition(
        "utility",
        "counts",
        Utility(),
        parameters=(COEFFICIENTS, NUM_DOCS),
        takes_cutoff=False,
        bounded=False,
        formula="`u1 a + u2 b + u3 c + u4 d` (option `coefficients`, default (1, -1, 0, 0); "
        "`num_docs`, default 0): a, b relevant / non-relevant retrieved, c relevant missed, "
        "d the rest of `num_docs`",
        matches="trec_eval `utility`",
    ),
    MetricDefinition(
        "err",
        "graded",
        Cascade(),
        parameters=(MAX_GRADE,),
        formula="`sum_{r <= k} (1/r) R_r prod_{i<r} (1 - R_i)`, "
        "`R = (2^label - 1) / 2^max_grade` (option `max_grade`, default 4)",
        matches="gdeval / ir_measures `ERR@k`",
        ties=_tied("different grades"),
    ),
    MetricDefinition(
        "rbp",
        "binary",
        RankBiased(residual=False),
        parameters=(PERSISTENCE, RBP_GAINS),
        formula="`(1 - p) sum_{i <= k} rel_i p^(i - 1)` (option `p`, default 0.9, ir_measures' "
        "`RBP` 0.8), `rel_i` 1 for a relevant document; trec_eval's "
        "`rbp` (`-m rbp` in rank-eval, `rbp_p=0.9` in `evaluate_run`): `rel_i` the grade over "
        "the query's largest judged grade where that is above 1, whatever the relevance level",
        matches="ir_measures `RBP(rel=level)`; trec_eval 10 `rbp` under its names",
    ),
    MetricDefinition(
        "rbp_resid",
        "counts",
        RankBiased(residual=True),
        parameters=(PERSISTENCE,),
        takes_cutoff=False,
        formula="`p^n + (1 - p) sum_{unjudged i} p^(i - 1)` where the list of `n` has an "
        "unjudged document, else 0: what RBP could still gain",
        matches="trec_eval `rbp_resid`",
    ),
    MetricDefinition(
        "judged",
        "counts",
        Binary(judged, over_list, about_relevant=False),
        formula="judged documents (label >= 0) in the top `k` over `min(k, n)`",
        matches="ir_measures `Judged@k` (a negative judgment counts as unjudged here)",
    ),
    MetricDefinition(
        "fallout",
        "counts",
        Fallout(),
        aliases=("fall_out",),
        higher_is_better=False,
        formula="non-relevant documents (label < level) in the top `k` over all `N` of them; "
        "1 where `N = 0`; lower is better",
        matches="torchmetrics `RetrievalFallOut`",
    ),
    MetricDefinition(
        "unjudged",
        "counts",
        Binary(unjudged, over_cutoff, about_relevant=False),
        aliases=("unj",),
        formula="unjudged documents (label < 0) in the top `k`, over `k`",
        matches="trec_eval `unj`",
    ),
)

METRICS = {definition.name: definition for definition in _DEFINITIONS}

ALIASES = {
    alias: definition.name for definition in METRICS.values() for alias in definition.aliases
}
