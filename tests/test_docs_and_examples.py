"""The documentation's code and the examples run, with real boosters, as written.

``docs/model_selection.md``'s Python blocks run in order in one namespace
(later blocks use the names of earlier ones), as a reader would paste them.
"""

import re
import runpy
import sys
from pathlib import Path

import pytest
import sklearn

ROOT = Path(__file__).resolve().parents[1]


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def test_model_selection_docs_run(tmp_path, monkeypatch):
    for booster in ("lightgbm", "xgboost", "catboost"):
        pytest.importorskip(booster)
    blocks = python_blocks(ROOT / "docs" / "model_selection.md")
    assert len(blocks) >= 10
    monkeypatch.chdir(tmp_path)  # whatever a snippet writes stays out of the repository
    namespace = {}
    with sklearn.config_context():  # the snippets switch routing on and off globally
        for number, block in enumerate(blocks, start=1):
            code = compile(block, f"docs/model_selection.md, python block {number}", "exec")
            exec(code, namespace)
    assert list(tmp_path.iterdir()) == []
    # What the blocks state in comments, checked on the values they computed.
    assert namespace["lgbm"].best_iteration_ + 1 < 500
    assert namespace["nested"]["test_score"].shape == (5,)
    assert 0 < namespace["ndcg_score"](
        namespace["y"], namespace["out_of_fold"], qid=namespace["qid"], k=10
    ) < 1


def test_early_stopping_example(capsys, monkeypatch):
    pytest.importorskip("lightgbm")
    monkeypatch.setattr(sys, "argv", ["early_stopping_lightgbm.py"])
    with sklearn.config_context():  # the example switches routing on globally
        runpy.run_path(str(ROOT / "examples" / "early_stopping_lightgbm.py"), run_name="__main__")
    output = capsys.readouterr().out
    trees = int(re.search(r"early stopping kept (\d+) trees of at most 1000", output).group(1))
    assert 1 <= trees < 1000
    test_line = re.search(r"Held-out test NDCG@10 \(50 queries\): ([0-9.]+)", output)
    test_ndcg = float(test_line.group(1))
    assert 0.5 < test_ndcg < 1


def test_evaluate_trec_run_example(capsys, monkeypatch):
    pytest.importorskip("pandas")
    monkeypatch.setattr(sys, "argv", ["evaluate_trec_run.py"])
    runpy.run_path(str(ROOT / "examples" / "evaluate_trec_run.py"), run_name="__main__")
    output = capsys.readouterr().out
    naive, full = map(float, re.search(
        r"MAP on the retrieved documents alone: ([0-9.]+), against ([0-9.]+)", output
    ).groups())  # fmt: skip
    assert naive > full  # R counted over the retrieved documents only is too small
    told = float(re.search(r"MAP with n_relevant from the qrels: ([0-9.]+)", output).group(1))
    assert told == full
    judged, retrieved = map(int, re.search(r"(\d+) judged, (\d+) retrieved", output).groups())
    assert judged > retrieved
    assert re.search(r"^408 ", output, flags=re.M)  # the per-topic table
    # The trec_eval column is trec_eval's own numbers (through pytrec_eval).
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from sklearn_rank_metrics.datasets import load_trec_example

    qrels_path, run_path = load_trec_example()
    with open(qrels_path) as qrels, open(run_path) as run:
        qrels, run = pytrec_eval.parse_qrel(qrels), pytrec_eval.parse_run(run)
    names = {"map": "map", "ndcg@10": "ndcg_cut_10", "precision@5": "P_5",
             "recall@10": "recall_10", "mrr": "recip_rank", "r_precision": "Rprec"}  # fmt: skip
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5", "recall.10",
                                                       "recip_rank", "Rprec"})  # fmt: skip
    values = evaluator.evaluate(run)
    for ours, theirs in names.items():
        line = re.search(rf"^{re.escape(ours)} +([0-9.]+) +([0-9.]+)$", output, flags=re.M)
        expected = sum(v[theirs] for v in values.values()) / len(values)
        assert float(line.group(2)) == pytest.approx(expected, abs=5.01e-5)  # printed to 4 places
