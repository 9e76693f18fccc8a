"""What a result left out, said once: the messages behind every UndefinedMetricWarning.

A query left out of a metric (no relevant document under
``no_relevant="skip"``, or an undefined value) is data in its
:class:`~.._engine.run._finalize.MetricResult`; these functions turn it into
the messages the public functions warn with, once per call.
"""

import numpy as np

from .._engine._warnings import undefined_metric_warning, warn_caller


def _queries(count):
    return f"{count} quer{'y' if count == 1 else 'ies'}"


def skipped_message(shown, skipped, n_queries):
    """What ``no_relevant="skip"`` left out of the metric ``shown``: ``skipped`` of ``n_queries``."""
    return (
        f"{shown}: {skipped} of {n_queries} queries have no relevant document and were "
        "left out (no_relevant='skip'); their per-query value is NaN."
    )


def left_out_messages(results, *, label=None, query_names=None):
    """One message per metric of ``results`` for each kind of query left out of it.

    ``label`` names every metric in the messages (a curve's
    ``"ndcg@k (every k)"``); ``query_names`` (evaluate_run's, one per query
    of ``results``): an undefined value is then trec_eval's ``-nan``, whose
    mean evaluate_run gives as NaN, and the message says so.
    """
    messages = []
    for name in results.metrics:
        result = results._results[name]
        shown, n_queries = name if label is None else label, results.n_queries
        skipped, undefined = int(result.skipped.sum()), int(result.undefined.sum())
        if skipped:
            messages.append(skipped_message(shown, skipped, n_queries))
        if undefined and query_names is not None:
            ids = query_names[np.flatnonzero(result.undefined)[:5]]
            messages.append(
                f"evaluate_run: {shown}: {undefined} of {n_queries} queries are undefined "
                f"({result.undefined_reason}; {', '.join(repr(str(query)) for query in ids)}"
                f"{', ...' if undefined > 5 else ''}): NaN, printed -nan by trec_eval, and so "
                "is evaluate_run's mean, as trec_eval's (QueryResults.mean leaves them out)."
            )
        elif undefined:
            reason = f" ({result.undefined_reason})" if result.undefined_reason else ""
            messages.append(
                f"{shown}: {undefined} of {n_queries} queries are undefined{reason} and were "
                "left out of the mean; their per-query value is NaN."
            )
    return messages


def warn_left_out(results, **how):
    """Warn (``UndefinedMetricWarning``) once per message of :func:`left_out_messages`."""
    for message in left_out_messages(results, **how):
        warn_caller(message, undefined_metric_warning())
