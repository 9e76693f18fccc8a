"""Write the docs' benchmark tables from the results files in ``benchmarks/results/``.

    python benchmarks/render_tables.py            # rewrite the tables in the docs pages
    python benchmarks/render_tables.py --check    # exit 1, showing the difference, where a page is stale

Every benchmark script writes its run to one JSON file in
``benchmarks/results/`` (``_common.write_results``): the run's date, command,
commit and machine, its raw numbers, and its tables, each a title, a header
and rows of cells. A docs page shows a table by naming the file and the
table between two markers, and the lines between them are this script's::

    <!-- results: bench_compare_ties.json ties -->
    (the table's title, if it has one, and the table)
    <!-- end results -->

The text around the markers (what a run shows, the machine's caveats) is
written by hand. Running this script twice changes nothing the second time;
``tests/test_benchmark_tables.py`` checks that the pages equal what it
renders from the committed files, so that a table cannot drift from its
results.
"""

import argparse
import difflib
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import RESULTS, markdown_table  # noqa: E402

ROOT = HERE.parent
PAGES = tuple(
    ROOT / "docs" / page
    for page in (
        "benchmarks.md", "performance.md", "recommender_systems.md", "dense_retrieval.md",
        "sampled_metrics.md",
    )
)
MARKED = re.compile(
    r"^<!-- results: (?P<file>\S+) (?P<table>\S+) -->\n(?:.*?\n)??<!-- end results -->$",
    re.MULTILINE | re.DOTALL,
)


def load(name, results=RESULTS):
    """The results file ``name`` (a file name in ``results``)."""
    path = Path(results) / name
    if not path.is_file():
        raise FileNotFoundError(f"a docs table names {name}, which is not in {results}")
    return json.loads(path.read_text())


def render_table(table):
    """A results file's table as markdown: its title (when it has one), then the table."""
    body = markdown_table(table["header"], table["rows"])
    return f"{table['title']}\n\n{body}" if table.get("title") else body


def render(text, results=RESULTS):
    """``text`` with the lines between every pair of markers written from the results files."""

    def fill(match):
        run = load(match["file"], results)
        if match["table"] not in run["tables"]:
            raise KeyError(
                f"{match['file']} has no table {match['table']!r}; its tables: {sorted(run['tables'])}"
            )
        table = render_table(run["tables"][match["table"]])
        return f"<!-- results: {match['file']} {match['table']} -->\n{table}\n<!-- end results -->"

    return MARKED.sub(fill, text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a page is stale")
    parser.add_argument("pages", nargs="*", type=Path, default=list(PAGES), help="default: the docs pages")
    args = parser.parse_args(argv)
    stale = []
    for page in args.pages:
        text = page.read_text()
        rendered = render(text)
        if rendered == text:
            continue
        stale.append(page)
        if args.check:
            sys.stdout.writelines(
                difflib.unified_diff(
                    text.splitlines(True), rendered.splitlines(True), str(page), "rendered"
                )
            )
        else:
            page.write_text(rendered)
            print(f"rewrote the tables of {page}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
