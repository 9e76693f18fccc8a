"""Sphinx configuration of the documentation site.

    pip install -e ".[docs]" && sphinx-build -W -b html docs docs/_build/html

The markdown pages of docs/ (and CHANGELOG.md) are read by MyST, the API
reference is written from each public module's ``__all__`` by
``api_reference.py``, and sphinx-gallery runs every script of ``examples/``.
"""

import os
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # the checkout's package, as the tests import it
sys.path.insert(0, str(HERE))

import api_reference  # noqa: E402

import sklearn_rank_metrics  # noqa: E402

project = "sklearn-rank-metrics"
author = "The sklearn-rank-metrics developers"
copyright = "The sklearn-rank-metrics developers"  # noqa: A001 - Sphinx's name
release = sklearn_rank_metrics.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**/README.md", "api_reference.py"]
templates_path = ["_templates"]

# The API reference: one page per public name, from the modules' __all__.
api_reference.write(HERE / "api" / "index.rst")
autosummary_generate = True
# The template titles a page ``module.name`` where the name is public in several modules.
autosummary_context = {"shared_names": api_reference.shared_names()}
autodoc_default_options = {"member-order": "groupwise"}
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types

numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False
numpydoc_xref_param_type = False
# Every public docstring has these sections in numpydoc's form; -W makes a failure an error.
numpydoc_validation_checks = {
    "GL06",  # unknown section
    "GL08",  # no docstring
    "GL07",  # sections in the wrong order
    "PR01",  # a parameter not documented
    "PR02",  # a documented parameter the signature lacks
    "RT01",  # no Returns section (functions)
    "SA01",  # no See Also section
    "EX01",  # no Examples section
}
# The public names themselves; their methods and properties are documented in prose.
numpydoc_validation_exclude = {
    r"\.[A-Z]\w*\.\w+$",  # members of a class
    r"\.[A-Z][A-Z0-9_]+$",  # constants (a tuple's docstring is the tuple type's)
    *(f"^{re.escape(name)}$" for name, _, _ in api_reference.public_modules()),  # modules
}

# MyST: the markdown pages, with $...$ and $$...$$ math and amsmath environments.
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True
suppress_warnings = ["myst.header"]  # pages included below their own level start at "##"

# MathJax served with the site, not fetched from a CDN, where the docs extra installed it.
try:
    import mathjax as _mathjax_package

    MATHJAX_ES5 = Path(_mathjax_package.__file__).parent / "static" / "mathjax" / "es5"
except ImportError:
    MATHJAX_ES5 = None
if MATHJAX_ES5 is not None and MATHJAX_ES5.is_dir():
    mathjax_path = "mathjax/tex-chtml.js"

# The gallery: every script of examples/ is run, its output and figures kept. Spark needs a
# Java runtime: without one its example is shown without being run.
RUN_EXAMPLES = r".*\.py$" if shutil.which("java") else r"^(?!.*evaluate_on_spark\.py$).*\.py$"
if not shutil.which("java"):
    print("no Java runtime: examples/evaluate_on_spark.py is shown, not run")
sphinx_gallery_conf = {
    "examples_dirs": [str(ROOT / "examples")],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": RUN_EXAMPLES,  # every example, not only plot_*.py
    "ignore_pattern": r"__init__\.py",
    "within_subsection_order": "ExampleTitleSortKey",
    "doc_module": ("sklearn_rank_metrics",),
    "backreferences_dir": "api/generated/backreferences",
    "reference_url": {"sklearn_rank_metrics": None},
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "matplotlib_animations": False,
    "min_reported_time": 1,
    "capture_repr": (),  # the examples print what they show
}

# The plot directive (the performance page's figure): a PNG only, the source shown apart.
plot_formats = [("png", 100)]
plot_html_show_formats = False
plot_html_show_source_link = False
plot_include_source = False

html_theme = "pydata_sphinx_theme"
html_title = f"sklearn-rank-metrics {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
    "header_links_before_dropdown": 7,
}
html_context = {"default_mode": "light"}
html_static_path = ["_static"]
html_css_files = ["tables.css"]  # wide tables: no squeezed column, a visible scroll bar
html_show_sourcelink = True


def _copy_mathjax(app, exception):
    """Put MathJax's browser files under _static/mathjax of the built site."""
    if exception is None and app.builder.format == "html" and MATHJAX_ES5 is not None:
        target = Path(app.outdir) / "_static" / "mathjax"
        if not (target / "tex-chtml.js").exists():
            shutil.copytree(MATHJAX_ES5, target, dirs_exist_ok=True)


def _skip_routing_requests(app, what, name, obj, skip, options):
    """Leave out the ``set_*_request`` methods that scikit-learn's metadata routing generates."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def _unlink_metric_names(app, doctree):
    """``NDCG@10`` in reStructuredText is a metric's name, not the e-mail address docutils sees."""
    from docutils import nodes

    for reference in list(doctree.findall(nodes.reference)):
        if reference.get("refuri", "").startswith("mailto:") and "." not in reference.astext():
            reference.replace_self(nodes.Text(reference.astext()))


def _warn_unimported_modules(app):
    """A public module the docs environment cannot import would miss from the reference: warn (-W: fail)."""
    from sphinx.util import logging

    for name, module, reason in api_reference.public_modules():
        if module is None:
            logging.getLogger(__name__).warning(
                "%s is left out of the API reference: %s (the docs extra should install it)",
                name, reason,
            )


def setup(app):
    app.connect("builder-inited", _warn_unimported_modules)
    app.connect("doctree-read", _unlink_metric_names)
    app.connect("autodoc-skip-member", _skip_routing_requests)
    app.connect("build-finished", _copy_mathjax)
    os.environ.setdefault("MPLBACKEND", "Agg")
