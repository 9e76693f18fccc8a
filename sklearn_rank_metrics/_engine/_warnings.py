"""Warnings attributed to the caller's line, not to the package's internals."""

import os
import sys
import warnings

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_caller(message, category):
    """Issue ``message`` as a warning located at the first frame outside this package.

    A fixed ``stacklevel`` would point at a different frame for each entry
    point (a metric function, :func:`evaluate`, a scorer); walking the stack
    finds the user's line, or scikit-learn's inside a search.
    """
    frame = sys._getframe(1)
    level = 2  # stacklevel 2 is the frame that called this function
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


def undefined_metric_warning():
    """scikit-learn's ``UndefinedMetricWarning``, imported when a warning needs it.

    Importing scikit-learn takes a second or more: the modules that only may
    warn (the ``rank-eval`` command's among them) do not pay it at start-up.
    """
    from sklearn.exceptions import UndefinedMetricWarning

    return UndefinedMetricWarning


def is_undefined_metric_warning(category):
    """Whether ``category`` is scikit-learn's ``UndefinedMetricWarning`` (or a subclass).

    Without importing scikit-learn: no such warning can have been issued
    before it was imported.
    """
    exceptions = sys.modules.get("sklearn.exceptions")
    return exceptions is not None and issubclass(category, exceptions.UndefinedMetricWarning)
