"""The documentation's code and the examples run, with real boosters, as written.

``docs/model_selection.md``'s and ``README.md``'s Python blocks run in order
in one namespace (later blocks use the names of earlier ones), as a reader
would paste them.
"""

import ast
import importlib.util
import re
import runpy
import sys
from pathlib import Path

import pytest
import sklearn

ROOT = Path(__file__).resolve().parents[1]


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def test_readme_code_fences_are_balanced_and_close_on_their_own_line():
    """Text after a closing fence (```` ``` See ...````) opens a new block that swallows the
    rest of the page on GitHub."""
    fences = [
        (number, line)
        for number, line in enumerate((ROOT / "README.md").read_text(encoding="utf-8").splitlines(), 1)
        if line.lstrip().startswith("```")
    ]
    assert fences
    for position, (number, line) in enumerate(fences):
        if position % 2 == 0:  # an opening fence: ``` and a language
            assert re.fullmatch(r"```[a-z]+", line), f"README.md line {number}: {line!r}"
        else:  # a closing fence: ``` alone
            assert line == "```", f"README.md line {number} should close a block alone: {line!r}"
    assert len(fences) % 2 == 0, f"README.md: the block opened on line {fences[-1][0]} never closes"


def _missing_imports(block):
    """The top-level modules a block imports that are not installed (an optional extra)."""
    roots = set()
    for node in ast.walk(ast.parse(block)):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            roots.add(node.module.split(".")[0])
    return sorted(root for root in roots if importlib.util.find_spec(root) is None)


def test_readme_python_blocks_run_as_written(tmp_path, monkeypatch):
    blocks = python_blocks(ROOT / "README.md")
    assert len(blocks) >= 4
    if importlib.util.find_spec("matplotlib") is not None:
        import matplotlib

        matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)  # whatever a snippet writes stays out of the repository
    namespace, skipped = {}, []
    with sklearn.config_context():  # a snippet switches metadata routing on globally
        for number, block in enumerate(blocks, start=1):
            missing = _missing_imports(block)
            if missing:  # an optional extra: later blocks do not use its names
                skipped.append(f"block {number} needs {', '.join(missing)}")
                continue
            exec(compile(block, f"README.md, python block {number}", "exec"), namespace)
    if "display" in namespace:
        import matplotlib.pyplot as plt

        assert [t.get_text() for t in namespace["display"].ax_.get_legend().get_texts()] == ["a", "b"]
        plt.close("all")
    if skipped:
        pytest.skip("; ".join(skipped))


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
    fallout = namespace["fallout_search"].cv_results_["mean_test_neg_fallout@5"]
    assert (fallout < 0).all() and namespace["fallout_search"].best_score_ == fallout.max()
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
