"""Check the built documentation site in a real headless browser.

    sphinx-build -W -b html docs docs/_build/html
    python docs/check_site.py [--site docs/_build/html] [--browser /usr/bin/chromium]

Serves the built site on a localhost port and loads its pages in Chromium,
driven by playwright (the ``docs`` extra installs it; the browser is the
system's Chromium, ``apt-get install chromium`` on Debian). It asserts what a
reader must see:

- the home page, with its navigation to the user guide, the gallery and the
  API reference;
- ``ndcg_score``'s API page: its signature, its Parameters and Examples
  sections, and its formula typeset by MathJax;
- the formula page of the user guide: every display formula typeset, none
  with a TeX error;
- gallery pages: the output an example printed, and its figure loaded (an
  image whose natural width is above 0); the performance page's figure;
- the search page, which finds ``ndcg_score``;
- wide tables: on the pages with tables, none wider than the article unless it
  scrolls in a wrapper of its own; on the metrics page every table fits the
  article whole (no column cut off) with no column squeezed: no
  cell narrower than ``MIN_COLUMN_PX`` whose text takes 3 lines or more at
  under 1.5 words a line (a formula a word a line);
- the API sidebar: no two entries with the same label (``evaluate`` of the
  metrics, dask and spark modules are told apart by their module);
- a page for every public name of every public module's ``__all__``;
- no request of any page failed or got an error status, and no page
  reached outside the local server (MathJax and the theme's fonts are
  served with the site).

Screenshots of each page go to ``docs/_build/screenshots`` (ignored by git).
Exits 0 when every check passes, 1 with the list of failures otherwise.
"""

import argparse
import functools
import http.server
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def serve(directory):
    """A localhost HTTP server of ``directory`` in a daemon thread; returns (server, base URL)."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class Checker:
    """Loads pages, records failed and outside requests, collects failed assertions."""

    def __init__(self, context, base, screenshots):
        self.context, self.base, self.screenshots = context, base, screenshots
        self.failures, self.passed = [], 0
        self.bad_requests = []
        context.on("requestfailed", lambda r: self.bad_requests.append(f"failed: {r.url}"))
        context.on("response", self._response)
        context.on("request", self._request)

    def _response(self, response):
        if response.status >= 400:
            self.bad_requests.append(f"HTTP {response.status}: {response.url}")

    def _request(self, request):
        if not request.url.startswith((self.base, "data:", "blob:", "about:")):
            self.bad_requests.append(f"outside the site: {request.url}")

    def check(self, condition, what):
        if condition:
            self.passed += 1
        else:
            self.failures.append(what)
        print(("ok    " if condition else "FAIL  ") + what)

    def open(self, path, wait_for=None, timeout=30_000):
        page = self.context.new_page()
        page.goto(self.base + path, wait_until="load", timeout=timeout)
        if wait_for:
            try:
                page.wait_for_function(wait_for, timeout=timeout)
            except Exception as error:  # noqa: BLE001 - a timeout is one failed check
                self.check(False, f"{path}: waited for {wait_for!r}: {type(error).__name__}")
        name = path.split("?")[0].replace("/", "_").removesuffix(".html") or "index"
        page.screenshot(path=str(self.screenshots / f"{name}.png"), full_page=True)
        return page


MATH_DONE = "() => document.querySelectorAll('mjx-container').length > 0"


def _images_loaded(page, selector):
    """Natural widths of the images matching ``selector``, once each has finished loading."""
    page.wait_for_function(
        f"() => Array.from(document.querySelectorAll({selector!r})).every(i => i.complete)"
    )
    return page.eval_on_selector_all(selector, "images => images.map(i => i.naturalWidth)")


def check_api_pages(checker, site):
    """Every public name of every public module's ``__all__`` has its page in the built site."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import api_reference

    pages = [api_reference.page_of(module, name)
             for module, _, names in api_reference.sections() for name in names]  # fmt: skip
    missing = [page for page in pages if not (site / f"{page}.html").exists()]
    checker.check(not missing and len(pages) >= 30,
                  f"API reference: {len(pages) - len(missing)} of {len(pages)} public names have "
                  f"their page{' (missing: ' + ', '.join(missing) + ')' if missing else ''}")  # fmt: skip


# Pages with tables (a viewport 1280 px wide), and whether each table must fit the article whole
# with no column squeezed (the metrics page's tables of definitions); elsewhere a table may scroll
# in its wrapper.
TABLE_PAGES = {
    "metrics.html": True, "conventions.html": False, "command_line.html": False,
    "comparing_models.html": False, "model_selection.html": False, "scaling_out.html": False,
    "benchmarks.html": False, "architecture.html": False, "recommender_systems.html": False,
    "dense_retrieval.html": False, "sampled_metrics.html": False,
}  # fmt: skip
MIN_COLUMN_PX = 120

# Per table of the article: its width, the room it has, whether its wrapper scrolls, its columns.
TABLES = """MIN => Array.from(document.querySelectorAll('article table')).map(table => {
  const wrapper = table.parentElement;
  const first = table.rows.length ? Array.from(table.rows[0].cells) : [];
  return {
    width: table.scrollWidth,
    room: wrapper.clientWidth,
    scrolls: ['auto', 'scroll'].includes(getComputedStyle(wrapper).overflowX),
    columns: first.map(cell => Math.round(cell.getBoundingClientRect().width)),
    head: first.map(cell => cell.innerText.trim().slice(0, 20)),
    squeezed: Array.from(table.rows).flatMap(row => Array.from(row.cells)).filter(cell => {
      // A cell narrower than the minimum, its text on 3 lines or more, under 1.5 words a line.
      const tops = new Set();
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const rect of range.getClientRects()) if (rect.width > 0) tops.add(Math.round(rect.top / 4));
      }
      const words = cell.innerText.trim().split(/\s+/).length;
      return cell.getBoundingClientRect().width < MIN && tops.size >= 3 && words / tops.size < 1.5;
    }).map(cell => `${cell.innerText.trim().replace(/\s+/g, ' ').slice(0, 30)} (${Math.round(cell.getBoundingClientRect().width)} px)`),
  };
})"""


def check_tables(checker):
    """No table overflows its page, and no column of one is squeezed."""
    for path, must_fit in TABLE_PAGES.items():
        page = checker.open(path)
        tables = page.evaluate(TABLES, MIN_COLUMN_PX)
        checker.check(len(tables) >= 1, f"{path}: {len(tables)} tables")
        for number, table in enumerate(tables, start=1):
            fits = table["width"] <= table["room"] + 1
            what = f"{path}, table {number} ({', '.join(table['head'])})"
            if not must_fit:
                checker.check(fits or table["scrolls"], f"{what}: {table['width']} px fit the "
                              f"article's {table['room']} px, or scroll in a wrapper")  # fmt: skip
                continue
            checker.check(fits, f"{what}: {table['width']} px fit the article's {table['room']} px")
            squeezed = table["squeezed"]
            checker.check(not squeezed, f"{what}: no cell under {MIN_COLUMN_PX} px a word a line "
                          f"(columns {table['columns']} px; {'; '.join(squeezed[:3]) or 'none'})")  # fmt: skip
        page.close()


def check_sidebar_labels(checker):
    """The API sidebar's entries have different labels (a page title each)."""
    page = checker.open("api/index.html")
    labels = page.eval_on_selector_all(
        ".bd-sidebar-primary nav a", "anchors => anchors.map(a => a.textContent.trim())"
    )
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    checker.check(len(labels) >= 30 and not repeated,
                  f"API sidebar: {len(labels)} entries, repeated labels: {repeated or 'none'}")  # fmt: skip
    page.close()


def run_checks(checker):
    check = checker.check

    page = checker.open("index.html")
    check("sklearn-rank-metrics" in page.title(), "index: the title names the package")
    nav = page.inner_text("body")
    for entry in ("Getting started", "User guide", "Examples", "API reference"):
        check(entry in nav, f"index: the navigation shows {entry!r}")
    page.close()

    page = checker.open("api/generated/sklearn_rank_metrics.metrics.ndcg_score.html", MATH_DONE)
    text = page.inner_text("article")
    check("ndcg_score" in page.inner_text("h1"), "ndcg_score page: its heading")
    check("y_true, y_score" in text, "ndcg_score page: its signature")
    for section in ("Parameters", "Returns", "See also", "References", "Examples"):
        check(section.lower() in text.lower(), f"ndcg_score page: the {section} section")
    check(page.locator("mjx-container").count() >= 1, "ndcg_score page: the formula typeset by MathJax")
    check("\\frac" not in page.inner_text("article"), "ndcg_score page: no raw TeX left in the text")
    page.close()

    page = checker.open("formulas.html", MATH_DONE)
    displays = page.locator("div.math").count()
    typeset = page.locator("div.math mjx-container, mjx-container[display='true']").count()
    check(displays >= 25, f"formula page: {displays} display formulas (at least 25)")
    check(typeset >= displays, f"formula page: {typeset} of {displays} display formulas typeset")
    check(page.locator("mjx-merror").count() == 0, "formula page: no TeX error in any formula")
    check(page.locator("mjx-container").count() > displays, "formula page: inline math typeset too")
    page.close()

    page = checker.open("auto_examples/quickstart.html")
    output = page.inner_text("article")
    check("ndcg@3" in output and "kendall" in output, "quickstart example: the printed table")
    page.close()

    page = checker.open("auto_examples/compare_models.html")
    output = page.inner_text("article")
    check("p_adjusted" in output or "p-value" in output or "holm" in output.lower(),
          "compare_models example: the printed comparison")  # fmt: skip
    widths = _images_loaded(page, "img.sphx-glr-single-img, img.sphx-glr-multi-img")
    check(len(widths) >= 1 and all(w > 0 for w in widths),
          f"compare_models example: its figure loaded (natural widths {widths})")  # fmt: skip
    page.close()

    page = checker.open("auto_examples/recommender_beyond_accuracy.html")
    output = page.inner_text("article")
    check("coverage@10" in output and "novelty@10" in output and "W/T/L" in output,
          "recommender_beyond_accuracy example: its table and its paired comparison")  # fmt: skip
    widths = _images_loaded(page, "img.sphx-glr-single-img, img.sphx-glr-multi-img")
    check(len(widths) >= 1 and all(w > 0 for w in widths),
          f"recommender_beyond_accuracy example: its figure loaded (natural widths {widths})")  # fmt: skip
    page.close()

    page = checker.open("auto_examples/tune_lightgbm_ranker.html")
    check("NDCG@10" in page.inner_text("article"), "tune_lightgbm_ranker example: its output")
    page.close()

    page = checker.open("auto_examples/index.html")
    widths = _images_loaded(page, ".sphx-glr-thumbcontainer img")
    check(len(widths) >= 7 and all(w > 0 for w in widths),
          f"gallery index: {len(widths)} thumbnails loaded")  # fmt: skip
    page.close()

    page = checker.open("performance.html")
    widths = _images_loaded(page, "article img")
    check(len(widths) >= 1 and all(w > 0 for w in widths),
          f"performance page: the time-against-rows figure loaded ({widths})")  # fmt: skip
    page.close()

    page = checker.open(
        "search.html?q=ndcg_score",
        "() => document.querySelectorAll('#search-results li a, ul.search li a').length > 0",
    )
    links = page.eval_on_selector_all(
        "#search-results li a, ul.search li a", "anchors => anchors.map(a => a.href)"
    )
    check(any("sklearn_rank_metrics.metrics.ndcg_score.html" in link for link in links),
          f"search: 'ndcg_score' finds its API page ({len(links)} results)")  # fmt: skip
    page.close()

    check_tables(checker)
    check_sidebar_labels(checker)

    check(not checker.bad_requests, "no failed, erroneous or outside request: "
          + ("; ".join(sorted(set(checker.bad_requests))[:10]) or "none"))  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default=str(ROOT / "docs" / "_build" / "html"))
    parser.add_argument("--browser", default="/usr/bin/chromium")
    args = parser.parse_args(argv)
    site = Path(args.site)
    if not (site / "index.html").exists():
        print(f"no built site at {site}: run sphinx-build -W -b html docs docs/_build/html first")
        return 1
    from playwright.sync_api import sync_playwright

    screenshots = site.parent / "screenshots"
    screenshots.mkdir(parents=True, exist_ok=True)
    server, base = serve(site)
    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=args.browser, headless=True, args=FLAGS,
                viewport={"width": 1280, "height": 900},
            )  # fmt: skip
            checker = Checker(context, base, screenshots)
            try:
                check_api_pages(checker, site)
                run_checks(checker)
            finally:
                context.close()
    finally:
        server.shutdown()
    seconds = time.perf_counter() - start
    print(f"{checker.passed} passed, {len(checker.failures)} failed ({seconds:.1f} s; "
          f"screenshots in {screenshots})")  # fmt: skip
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main())
