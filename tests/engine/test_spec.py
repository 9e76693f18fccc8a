"""The spec layer: definitions declare their parameters once, plans read no data.

A definition's measure parameters (RBP's ``p``, ERR's ``max_grade``, ...)
are declared in one place, with their default, check and doc: the name
parsers check the parameters a name gives through these declarations, and
the computations read their defaults there. A computation's ``needs`` is a
function of the request and the call's :class:`PlanContext` alone, so a
call's plan is made before any data is read.
"""

import subprocess
import sys

import numpy as np
import pytest
from _cases import MEASURE_OPTIONS

from sklearn_rank_metrics import evaluate
from sklearn_rank_metrics._engine.spec import (
    METRICS,
    PlanContext,
    Request,
    name_requests,
    parse_name,
    parse_names,
)


def test_the_spec_layer_imports_nothing_of_the_run():
    code = (
        "import sys; import sklearn_rank_metrics._engine.spec; "
        "print(*sorted(m for m in sys.modules if m.startswith('sklearn_rank_metrics._engine.')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = loaded.stdout.split()
    assert "sklearn_rank_metrics._engine.spec._table" in modules
    assert not [m for m in modules if m.startswith("sklearn_rank_metrics._engine.run")]
    for run_module in ("_validation", "_judgments"):
        assert not [m for m in modules if m.endswith(f".{run_module}")]


def test_each_definition_declares_each_parameter_once():
    for definition in METRICS.values():
        names = [parameter.name for parameter in definition.parameters]
        assert len(names) == len(set(names)), definition.name
        assert definition.higher_is_better is (definition.name != "fallout")
    # One p, one default, shared by RBP and its residual.
    p = METRICS["rbp"].parameter("p")
    assert p is METRICS["rbp_resid"].parameter("p")
    assert p.default == 0.9
    # ir_measures' RBP is p=0.8 where its name does not say, from the same declaration.
    assert dict(parse_name("RBP").options)["p"] == p.syntax_default("ir_measures") == 0.8
    assert Request("rbp", METRICS["rbp"]).option("p") == 0.9
    assert Request("err", METRICS["err"]).parameter("max_grade") == 4.0


def test_trec_eval_rbp_takes_the_declared_default():
    rng = np.random.default_rng(3)
    y_true, y_score, qid = rng.integers(0, 3, 40), rng.random(40), np.repeat(np.arange(4), 10)
    with pytest.warns(UserWarning, match="relstring"):
        requests = name_requests(["all_trec"])
    (bare,) = [r for r in requests if r.definition.name == "rbp"]
    assert bare.name == "rbp_p=0.9"
    values = evaluate(y_true, y_score, qid=qid, metrics=["rbp_p=0.9", "rbp_p=0.8"])
    assert values["rbp_p=0.9"] != values["rbp_p=0.8"]
    assert [s.options for s in parse_names(["rbp.p=0.9"])] != [()]


@pytest.mark.parametrize(
    "name, message",
    [
        ("RBP(p=1.5)", r"p must be a persistence in \(0, 1\), got 1.5"),
        ("RBP(p=True)", "p must be a persistence"),
        ("rbp_p=0", r"p must be a persistence in \(0, 1\)"),
        ("rbp_resid_p=1", r"p must be a persistence in \(0, 1\)"),
        ("iprec_at_recall_1.5", r"recall must be a recall level in \[0, 1\]"),
        ("IPrec@2", r"recall must be a recall level in \[0, 1\]"),
        ("Rprec_mult_-1", "multiplier must be a number above 0"),
        ("utility_1,2", "coefficients must be 4 numbers"),
        ("nDCG(gains={1.5: 2})@10", "gains must be finite gains of distinct relevance levels"),
        ("P(rel='2')@5", "rel must be a number"),
    ],
)
def test_names_check_parameters_through_their_declarations(name, message):
    with pytest.raises(ValueError, match=message):
        parse_name(name)


def _requests():
    for name, definition in METRICS.items():
        k = 5 if definition.takes_cutoff else None
        yield Request(name, definition, k, None, tuple(MEASURE_OPTIONS.get(name, {}).items()))


@pytest.mark.parametrize(
    "plan",
    [
        PlanContext(),
        PlanContext(gain="exponential", relevance_level=2, n_relevant_given=True),
        PlanContext(judged_top=3.0, trec_eval_version="9"),
    ],
)
def test_needs_is_a_function_of_the_request_and_the_plan(plan):
    for request in _requests():
        needs = request.definition.computation.needs(request, plan)
        assert needs == request.definition.computation.needs(request, plan)
        hash(needs)  # quantities are keys of values, computed once per call
        if plan.n_relevant_given and request.definition.family == "graded":
            assert any(type(q).__name__ == "RelevantInList" for q in needs)


def test_ndcg_refuses_scaled_gains_of_judged_documents_in_its_plan():
    request = Request("ndcg", METRICS["ndcg"], 10)
    plan = PlanContext(gain="exponential", judged_top=2000.0, scaled_gains=True)
    with pytest.raises(ValueError, match="grades up to 2000 have gains too large"):
        METRICS["ndcg"].computation.needs(request, plan)
    scaled = METRICS["ndcg"].computation.needs(request, PlanContext(scaled_gains=True))
    assert all(q.scaled for q in scaled[:2])
