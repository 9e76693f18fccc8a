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


def _run_blocks(page, namespace):
    for number, block in enumerate(python_blocks(ROOT / "docs" / page), start=1):
        exec(compile(block, f"docs/{page}, python block {number}", "exec"), namespace)
    return namespace


def _rounded(values):
    return {name: round(float(value), 4) for name, value in values.items()}


def test_recommender_page_code_runs_as_commented():
    import numpy as np

    ns = _run_blocks("recommender_systems.md", {})
    evaluate, test, train, metrics = ns["evaluate"], ns["test"], ns["train"], ns["metrics"]
    assert _rounded(evaluate(test, ns["scores"], exclude=train, metrics=metrics)) == {
        "ndcg@3": 0.7311, "recall@3": 1.0, "mrr@3": 0.6111}  # fmt: skip
    assert _rounded(evaluate(test, ns["scores"], metrics=metrics)) == {
        "ndcg@3": 0.3066, "recall@3": 0.3333, "mrr@3": 0.4444}  # fmt: skip
    first = evaluate(test, ns["constant"], exclude=train, metrics=metrics, ties="first")
    assert _rounded(first) == {"ndcg@3": 0.7421, "recall@3": 0.8333, "mrr@3": 0.7778}
    average = evaluate(test, ns["constant"], exclude=train, metrics=metrics)
    assert _rounded(average) == {"ndcg@3": 0.5695, "recall@3": 0.7, "mrr@3": 0.5991}
    lists = ns["evaluate_top_k"](test, np.array([[0, 4, 5], [2, 3, 1], [5, 3, 2]]),
                                 exclude=train, metrics=metrics)  # fmt: skip
    assert _rounded(lists) == {"ndcg@3": 0.8333, "recall@3": 1.0, "mrr@3": 0.7778}
    assert _rounded(ns["results"]) == {"ndcg@3": 0.5436, "recall@3": 0.6667, "mrr@3": 0.5}
    assert ns["top_items"].tolist() == [[0, 4, 5, 3], [3, 1, 2, 4], [4, 2, 1, 5]]
    again = ns["evaluate_top_k"](test, ns["top_items"], top_scores=ns["top_scores"],
                                 exclude=train, metrics=metrics)  # fmt: skip
    assert again == ns["results"]


def test_recommender_page_beyond_accuracy_runs_as_commented():
    ns = _run_blocks("recommender_systems.md", {})
    kwargs = dict(exclude=ns["train"], metrics=ns["beyond"], item_popularity=ns["popularity"],
                  item_categories=ns["genres"])  # fmt: skip
    assert _rounded(ns["evaluate_top_k"](ns["test"], ns["lists"], **kwargs)) == {
        "recall@3": 1.0, "coverage@3": 1.0, "gini@3": 0.1667, "entropy@3": 2.5033,
        "arp@3": 0.7778, "aplt@3": 0.5556, "ild@3": 0.6667}  # fmt: skip
    per_user = ns["per_user"]
    assert per_user["aplt@3"].round(4).tolist() == [0.6667, 0.3333, 0.6667]
    assert _rounded(per_user.catalogue) == {"coverage@3": 1.0, "gini@3": 0.1667, "entropy@3": 2.5033}


def test_dense_retrieval_page_code_runs_as_commented(tmp_path, monkeypatch):
    import numpy as np

    pytest.importorskip("pandas")  # write_trec_run
    monkeypatch.setattr("tempfile.mkdtemp", lambda: str(tmp_path))
    ns = _run_blocks("dense_retrieval.md", {})
    assert _rounded(ns["results"]) == {
        "ndcg@3": 0.754, "mrr@3": 0.6667, "recall@3": 1.0, "recall_cap@3": 1.0}  # fmt: skip
    assert ns["top_items"].tolist() == [[0, 1, 5, 3], [4, 5, 3, 2], [2, 3, 1, 4]]
    assert ns["top_scores"].dtype == np.float32
    lists = ns["evaluate_top_k"](ns["qrels"], ns["top_items"], top_scores=ns["top_scores"],
                                 metrics=ns["metrics"])  # fmt: skip
    assert lists == ns["results"]
    lines = (tmp_path / "dense.run").read_text().splitlines()
    assert len(lines) == 12 and lines[0].split()[:4] == ["q1", "Q0", "d1", "1"]


def _table(output, header):
    """The rows of the printed table under ``header``: {label: [numbers]}."""
    lines = output[output.index(header):].splitlines()[1:]
    rows = {}
    for line in lines:
        cells = re.findall(r"-?\d+\.\d{4}|(?<!\S)-(?!\S)", line)  # a number, or "-" alone
        if not line.strip() or not cells:
            break
        label = line[: re.search(r"\s-?\d+\.\d{4}|\s-(?!\S)", line).start()].strip()
        rows[label] = cells
    return rows


def test_recommender_example(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["recommender_matrix_factorization.py"])
    runpy.run_path(str(ROOT / "examples" / "recommender_matrix_factorization.py"), run_name="__main__")
    output = capsys.readouterr().out
    values = {label: list(map(float, cells)) for label, cells in _table(output, "ndcg@10").items()}
    excluded, naive = values["SVD factors, exclude=train"], values["SVD factors, no exclude"]
    popularity = values["popularity, top-100 lists"]
    assert all(e > n for e, n in zip(excluded, naive))  # training items ranked: false positives
    assert excluded[0] > popularity[0]  # the factor model beats popularity on NDCG@10
    ties = {}
    for line in output[output.index("scores             ties"):].splitlines()[1:]:
        *label, tie, ndcg, recall, mrr = line.split()
        ties[(" ".join(label), tie)] = (float(ndcg), float(recall), float(mrr))
    for scorer in ("popularity counts", "popularity tiers", "constant"):
        low, high = ties[(scorer, "pessimistic")], ties[(scorer, "optimistic")]
        for tie in ("average", "first"):
            assert all(a <= b <= c for a, b, c in zip(low, ties[(scorer, tie)], high))
    # The constant scorer: its bounds are 0 and 1; in id (popularity) order it looks like the
    # popularity model; its expected value is that of a random ranking.
    assert ties[("constant", "optimistic")][0] == 1 and ties[("constant", "pessimistic")][0] == 0
    assert ties[("constant", "first")][0] > 5 * ties[("constant", "average")][0]


def test_dense_retrieval_example(capsys, monkeypatch):
    pytest.importorskip("pandas")
    monkeypatch.setattr(sys, "argv", ["dense_retrieval_embeddings.py"])
    runpy.run_path(str(ROOT / "examples" / "dense_retrieval_embeddings.py"), run_name="__main__")
    output = capsys.readouterr().out
    rows = _table(output, "measure          vectors")
    assert set(rows) == {"ndcg@10", "mrr@10", "recall@100", "recall_cap@10", "map@100"}
    for name, cells in rows.items():
        assert len(set(cell for cell in cells if cell != "-")) == 1, (name, cells)  # all equal
    assert sum(cell != "-" for cells in rows.values() for cell in cells) == 3 * 3 + 2 * 2  # three measures from the file too
    quantized = {line.split()[0]: list(map(float, line.split()[1:]))
                 for line in output[output.index("ties "):].splitlines()[1:5]}  # fmt: skip
    for low, mid, high in zip(quantized["pessimistic"], quantized["average"], quantized["optimistic"]):
        assert low < mid < high  # the binarised scores tie at the cut
