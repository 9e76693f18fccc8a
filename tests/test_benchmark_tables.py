"""The benchmark tables of the docs are the results files' tables, written by render_tables.

No benchmark runs here: the tests read the committed files in
``benchmarks/results/`` and the docs pages, and render the one from the
other, so that a table in the docs cannot drift from the run it reports.
"""

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
RESULTS = BENCHMARKS / "results"
RESULT_FILES = sorted(RESULTS.glob("*.json"))


def load_script(name):
    """A script of benchmarks/ as a module (it imports its sibling ``_common``)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.fixture(scope="module")
def render_tables():
    return load_script("render_tables")


@pytest.mark.parametrize("page", ["benchmarks.md", "performance.md", "sampled_metrics.md"])
def test_docs_tables_equal_the_rendered_results(render_tables, page):
    text = (ROOT / "docs" / page).read_text()
    assert render_tables.render(text) == text, (
        f"docs/{page} differs from its results files: run python benchmarks/render_tables.py"
    )


def test_rendering_is_idempotent_and_restores_an_edited_table(render_tables):
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    cell = "| 10 score values, int64 ids, contiguous | 1e+07 | 7.316 | 1.781 |"
    assert cell in text
    edited = text.replace(cell, "| 10 score values, int64 ids, contiguous | 1e+07 | 7.316 | 0.781 |")
    rendered = render_tables.render(edited)
    assert rendered == text
    assert render_tables.render(rendered) == rendered


def test_every_figure_table_of_the_benchmarks_page_is_rendered(render_tables):
    """Tables of figures sit between markers; only the two tables of names stay hand-written."""
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    lines = render_tables.MARKED.sub("", text).splitlines()
    headers = [line for before, line in zip(["", *lines], lines) if line.startswith("|") and not before.startswith("|")]
    assert [header.split(" | ")[0] for header in headers] == ["| script", "| package"]


def test_a_marker_naming_a_missing_file_or_table_is_an_error(render_tables):
    with pytest.raises(FileNotFoundError, match="no_such_run.json"):
        render_tables.render("<!-- results: no_such_run.json speed -->\n<!-- end results -->")
    with pytest.raises(KeyError, match="no table 'nothing'"):
        render_tables.render("<!-- results: bench_compare_ties.json nothing -->\n<!-- end results -->")


@pytest.mark.parametrize("path", RESULT_FILES, ids=[path.name for path in RESULT_FILES])
def test_results_files_say_when_where_and_what(path):
    run = json.loads(path.read_text())
    assert run["script"] and (BENCHMARKS / run["script"]).is_file()
    assert re.fullmatch(r"20\d\d-\d\d-\d\d( \d\d:\d\d UTC)?", run["date"])
    assert run["command"].startswith("python benchmarks/" + run["script"])
    assert run["commit"]
    machine = run["machine"]
    assert machine["cpu_count"] >= 1 and machine["python"] and machine["numpy"]
    assert run["tables"]
    for table in run["tables"].values():
        assert all(len(row) == len(table["header"]) for row in table["rows"])
    assert run["raw"] is not None or "transcribed" in run["source"]


@pytest.mark.parametrize("name", ["bench_compare_ties.json", "bench_compare_hardening.json"])
def test_bench_compare_tables_follow_from_the_raw_numbers(name):
    """Where a run kept its raw numbers, its tables are computed from them."""
    bench_compare = load_script("bench_compare")
    run = json.loads((RESULTS / name).read_text())
    sections = [section for section in bench_compare.SECTIONS if section != "shapes"]
    tables, mismatches = bench_compare.tables_from_raw(run["raw"], sections)
    assert tables == run["tables"] and mismatches == []
