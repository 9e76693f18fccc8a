"""Packages whose public names are imported when first used (:pep:`562`)."""

import importlib


def lazy_names(package, namespace, module_of, submodules=()):
    """``(__getattr__, __dir__)`` of a package that imports each name on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    namespace : dict
        The package's ``globals()``, where each name is kept once imported
        (the next lookup is then a plain attribute).
    module_of : dict
        ``{name: module}``, the module relative to the package.
    submodules : tuple of str
        Sub-packages also reachable as attributes, as after ``from . import x``.
    """

    def __getattr__(name):
        if name in module_of:
            value = getattr(importlib.import_module(module_of[name], package), name)
        elif name in submodules:
            value = importlib.import_module(f".{name}", package)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__():
        return sorted({*namespace, *module_of, *submodules})

    return __getattr__, __dir__
