"""The API reference's list of public names, read from each public module's ``__all__``.

    python docs/api_reference.py     # print the reference page that the docs build writes

The public modules are the package and every sub-package whose name does not
start with an underscore and that has an ``__all__``; a name gets its page in
the first of them that lists it (``ndcg_score`` under
``sklearn_rank_metrics.metrics``, not again under the package that re-exports
it). A new public name, or a new public sub-package, gets its page with no
edit here. ``conf.py`` writes the page to ``docs/api/index.rst`` at every
build; ``tests/test_docs_site.py`` checks that every listed name is covered.
"""

import importlib
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the checkout's package, not an installed one

PACKAGE = "sklearn_rank_metrics"

EXTRAS = {  # the extra a module needs, said under its heading
    f"{PACKAGE}.trec": "trec",
    f"{PACKAGE}.dask": "dask",
    f"{PACKAGE}.spark": "spark",
}


# The modules most readers want come first; any other follows in alphabetical order.
FIRST = ("metrics", "model_selection", "comparison", "trec", "datasets")


def _order(name):
    return (FIRST.index(name), "") if name in FIRST else (len(FIRST), name)


def public_modules():
    """The public sub-packages that can be imported, then the package itself.

    Returns a list of ``(module name, module or None, reason)``: the module is
    None, with the ImportError's message, where an optional extra is missing.
    """
    package = importlib.import_module(PACKAGE)
    modules = []
    infos = sorted(pkgutil.iter_modules(package.__path__), key=lambda info: _order(info.name))
    for info in infos:
        if info.name.startswith("_") or not info.ispkg:
            continue
        name = f"{PACKAGE}.{info.name}"
        try:
            module = importlib.import_module(name)
        except ImportError as error:
            modules.append((name, None, str(error)))
            continue
        if hasattr(module, "__all__"):
            modules.append((name, module, ""))
    modules.append((PACKAGE, package, ""))
    return modules


def sections():
    """``[(module name, module, [public names documented there]), ...]``, each object once."""
    seen = set()
    result = []
    for name, module, _ in public_modules():
        if module is None:
            continue
        names = []
        for public in sorted(module.__all__):
            key = id(getattr(module, public))
            if key in seen:
                continue
            seen.add(key)
            names.append(public)
        if names:
            result.append((name, module, names))
    return result


def shared_names():
    """The public names documented in more than one module (``evaluate``: metrics, dask, spark).

    Their pages are titled ``module.name`` (``dask.evaluate``), so that the API
    sidebar, which lists the pages by title, tells them apart.
    """
    names = [name for _, _, module_names in sections() for name in module_names]
    return sorted({name for name in names if names.count(name) > 1})


def page_of(module_name, name):
    """The docname of the page of ``module_name.name`` (relative to docs/)."""
    return f"api/generated/{module_name}.{name}"


def rst():
    """The reference page, as reStructuredText."""
    lines = [
        ".. Written by docs/api_reference.py at each build: edit that file, not this one.",
        "",
        ".. _api_ref:",
        "",
        "API reference",
        "=============",
        "",
        "Every public name of the package, by module. The names of",
        f":mod:`{PACKAGE}.metrics`, :mod:`{PACKAGE}.model_selection` and",
        f":mod:`{PACKAGE}.comparison` can also be imported from :mod:`{PACKAGE}` itself.",
        "",
    ]
    for module_name, module, names in sections():
        title = f":mod:`{module_name}`"
        lines += [title, "-" * len(title), "", f".. automodule:: {module_name}", "   :no-members:", ""]
        if module_name in EXTRAS:
            lines += [f'Needs the ``{EXTRAS[module_name]}`` extra: '
                      f'``pip install "sklearn-rank-metrics[{EXTRAS[module_name]}]"``.', ""]
        lines += [f".. currentmodule:: {module_name}", "", ".. autosummary::",
                  "   :toctree: generated/", "   :template: api_page.rst", ""]
        lines += [f"   {name}" for name in names]
        lines.append("")
    return "\n".join(lines)


def write(path):
    """Write the page to ``path`` if its text changed (an unchanged file keeps the build incremental)."""
    path = Path(path)
    text = rst()
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    print(rst())
