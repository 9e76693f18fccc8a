"""The TREC layer's modules: one-way imports, a leaf format module, sizes; a join reused.

The modules of ``sklearn_rank_metrics.trec`` import each other at the top of
the module only, never inside a function (which would hide a cycle), and
their graph has no cycle; ``_format`` (what a run or qrels line holds) is a
leaf every other one may import. A :class:`JoinedRun` is the join's outcome,
left as it is by the evaluation: evaluating it twice gives the same numbers.
"""

import ast
import dataclasses
import pathlib
import warnings

import numpy as np
import pytest

import sklearn_rank_metrics.trec

FOLDER = pathlib.Path(sklearn_rank_metrics.trec.__file__).parent
MODULES = sorted(path.stem for path in FOLDER.glob("*.py"))


def _sibling_imports(path):
    """``(top-level, in-function)`` sets of the package's TREC modules ``path`` imports."""
    tree = ast.parse(path.read_text())
    top, nested = set(), set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level != 1:
            continue
        names = {node.module} if node.module else {alias.name for alias in node.names}
        (top if node in tree.body else nested).update(names & set(MODULES))
    return top, nested


# The rank-eval command starts without the engine and pandas: it imports the
# evaluation when it evaluates (no cycle: the graph below counts that import).
STARTS_LIGHT = {"_command": {"_evaluate"}}


@pytest.mark.parametrize("module", MODULES)
def test_no_module_imports_a_sibling_inside_a_function(module):
    _, nested = _sibling_imports(FOLDER / f"{module}.py")
    nested -= STARTS_LIGHT.get(module, set())
    assert not nested, f"{module} imports {sorted(nested)} inside a function"


def test_the_modules_import_one_way_and_the_format_is_a_leaf():
    graph = {module: set.union(*_sibling_imports(FOLDER / f"{module}.py")) for module in MODULES}
    assert graph["_format"] == set()
    # Depth-first search for a cycle.
    state = {}

    def visit(module, path):
        if state.get(module) == "open":
            raise AssertionError(f"import cycle: {' -> '.join(path + [module])}")
        if state.get(module) == "done":
            return
        state[module] = "open"
        for other in sorted(graph[module]):
            visit(other, path + [module])
        state[module] = "done"

    for module in MODULES:
        visit(module, [])


@pytest.mark.parametrize("module", MODULES)
def test_modules_stay_under_600_lines(module):
    assert len((FOLDER / f"{module}.py").read_text().splitlines()) <= 600


def test_a_joined_run_is_read_by_field_name_and_left_as_it_is(tmp_path):
    pytest.importorskip("pandas")
    from sklearn_rank_metrics.metrics._evaluate import requests_for
    from sklearn_rank_metrics.trec._evaluate import RunOptions, evaluate_joined, join_run
    from sklearn_rank_metrics.trec._joined import JoinedRun

    assert dataclasses.is_dataclass(JoinedRun)
    # A run in trec_eval's order (grouped, scores descending) with ties of
    # judged and unjudged documents, whose labels trec_eval's order moves.
    run_lines, qrels_lines = [], []
    for q in range(5):
        for d in range(12):
            run_lines.append(f"q{q} Q0 doc{d:02d} {d + 1} {3 - d // 4} run\n")
            if d % 3 == 0:
                qrels_lines.append(f"q{q} 0 doc{d:02d} {d % 4}\n")
    (tmp_path / "run.txt").write_text("".join(run_lines))
    (tmp_path / "qrels.txt").write_text("".join(qrels_lines))
    joined = join_run(tmp_path / "qrels.txt", tmp_path / "run.txt", max_docs=10)
    labels = joined.labels.copy()
    options = RunOptions.checked(ties="trec_eval", relevance_level=1, missing_queries="ignore",
                                 max_docs=10, judged_only=False, trec_eval_version="10")  # fmt: skip
    requests = requests_for(["map", "ndcg@5", "precision@3", "mrr"], "evaluate_run")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = evaluate_joined(joined, requests, options)
        again = evaluate_joined(joined, requests, options)
    np.testing.assert_array_equal(joined.labels, labels)
    for measure in first.metrics:
        np.testing.assert_array_equal(again[measure], first[measure])
