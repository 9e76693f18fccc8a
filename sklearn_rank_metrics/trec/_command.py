"""``rank-eval``: trec_eval's command line, its text line for line.

``python -m sklearn_rank_metrics [-q] [-c] [-l N] [-M N] [-J] [-n] [-m MEASURE]... QRELS RUN``
reads the two files, evaluates the run as trec_eval does (:func:`evaluate_run`
with ``ties="trec_eval"``) and prints trec_eval's three columns: the measure
left-justified to 22 characters, a tab, the query id or ``all``, a tab, the
value (``%6.4f``, or ``%ld`` for a count). The measures come in trec_eval's
own order (its measure table's, not the order of ``-m``), per-query lines
(``-q``) query by query in trec_eval's order (query ids sorted as bytes),
then the ``all`` lines. ``--format csv`` and ``--format json`` write the
same values, unrounded, for scripts.
"""

import argparse
import json
import math
import os
import sys
import warnings
from dataclasses import dataclass, replace

_PROGRAM = "rank-eval"
# The engine (NumPy and the measures' tables) is imported by the functions
# that need it, after the arguments are parsed: ``rank-eval --help`` and a
# usage error answer at once.


# Exit statuses, trec_eval's (trec_eval.c) where it has one for the case.
EXIT_USAGE = 1  # a bad option or measure: trec_eval's usage message, "illegal measure"
EXIT_INPUT = 2  # a file cannot be read or is malformed, an option value is refused: "Quit in file"
EXIT_MEMORY = 3  # out of memory: trec_eval's status when it cannot allocate its values
EXIT_NO_QUERIES = 7  # no query evaluated (none of the run judged): trec_eval's "No queries ..."
# The output cannot be written (a full disk): trec_eval's status for a measure it cannot
# print (it does not check its writes, and exits 0 with its output lost).
EXIT_OUTPUT = 8
# The reader of the output went away (``rank-eval ... | head``): no message, the status a
# shell gives trec_eval, which SIGPIPE ends (128 + 13).
EXIT_BROKEN_PIPE = 141
EXIT_INTERRUPTED = 130  # Ctrl-C: no traceback, the shell's status for SIGINT (128 + 2)


class CommandError(Exception):
    """A bad argument, file or measure: one line on stderr and the exit status ``status``."""

    def __init__(self, message, status=EXIT_USAGE):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Column:
    """One printed measure: the name printed, the name evaluated, how it prints.

    ``evaluated`` (the key of :func:`evaluate_run`'s results) differs from
    ``printed`` where trec_eval's printed name rounds its parameter
    (``iprec_at_recall.0.333`` prints as ``iprec_at_recall_0.33``), and
    where trec_eval's bare name names another measure of the package:
    trec_eval's ``rbp`` is evaluated as ``rbp_p=0.9``.
    """

    printed: str
    evaluated: str
    integer: bool
    per_query: bool
    request: object = None  # the Request evaluated, named ``evaluated``


def _column(spec, evaluated=None):
    from .._engine.spec import resolve_request
    from .._engine.spec._trec_names import TREC_MEASURES

    # Evaluated from the spec itself, not its name: trec_eval's bare ``rbp``
    # is not the package's ``rbp``.
    request = resolve_request(replace(spec, name=evaluated or spec.name))
    # trec_eval prints the measures that are not per_query only in the ``all`` lines.
    summary_only = {measure.definition for measure in TREC_MEASURES if not measure.per_query}
    return Column(
        printed=spec.name,
        evaluated=request.name,
        integer=bool(getattr(request.definition, "integer", False)),
        per_query=request.definition.name not in summary_only,
        request=request,
    )


def trec_columns(measure_args):
    """The measures of the ``-m`` arguments, as trec_eval marks and orders them.

    Returns ``(columns, runid, left_out)``: the columns in trec_eval's
    order, then the names that are not trec_eval's (``ndcg@10``,
    ``P(rel=2)@5``) in the order given; whether ``runid`` is printed; and
    the measures of trec_eval's sets this package does not offer.

    trec_eval reads ``-m name.params`` by cutting at the first ``.``: a set
    (``official``, ``all_trec``) marks its measures, a measure name marks
    it with the parameters of the first ``-m`` that gives it some (else its
    defaults). Any other argument is one measure name in any syntax.
    """
    from .._engine.spec._names import expand_trec, parse_name, trec_key
    from .._engine.spec._trec_names import TREC, TREC_MEASURES, TREC_SETS, offered

    marked, explicit, params, extras = set(), set(), {}, []
    for argument in measure_args or ["official"]:
        base, dot, given = argument.partition(".")
        if base in TREC_SETS:
            marked.update(TREC_SETS[base])
        elif base in TREC:
            marked.add(base)
            explicit.add(base)
            if dot:
                params.setdefault(base, given)
        else:
            extras.append(argument)
    columns, left_out = [], []
    for measure in TREC_MEASURES:
        if measure.name not in marked or measure.name == "runid":
            continue
        if not offered(measure) and measure.name not in explicit:
            left_out.append(measure.name)  # in a set; asked for alone, it raises
            continue
        for spec in expand_trec(measure, params.get(measure.name), printed=True):
            # evaluate_run's key: rbp_p=0.9 for rbp, iprec_at_recall_0.333 for
            # iprec_at_recall_0.33 of -m iprec_at_recall.0.333.
            columns.append(_column(spec, trec_key(measure, spec)))
    seen = {column.printed for column in columns}
    for name in extras:
        if name not in seen:
            seen.add(name)
            columns.append(_column(parse_name(name)))
    return columns, "runid" in marked, left_out


# ------------------------------------------------------------ output


def _trec_number(value, integer):
    """A value as trec_eval prints it: ``%ld`` of the truncated value, else ``%6.4f``.

    trec_eval's NaNs are those of x86's ``0.0 / 0.0``, whose sign bit is
    set: C prints them ``-nan``.
    """
    if integer and math.isfinite(value):
        return str(int(value))
    if math.isnan(value):
        return "  -nan"
    return f"{value:6.4f}"


def _line(name, query, value):
    return f"{name:<22}\t{query}\t{value}\n"


@dataclass(frozen=True)
class Report:
    """The numbers a command prints: per-query values and the ``all`` values.

    ``queries`` are the query ids in trec_eval's order; ``values[name]``
    the per-query values in that order; ``summary[name]`` the ``all``
    value; ``run_id`` the run's name as trec_eval prints it (that of the
    run file's last line), None when ``runid`` is not printed.
    """

    columns: list
    queries: list
    values: dict
    summary: dict
    run_id: str | None


def build_report(columns, results, run_id, all_overrides=None):
    """A :class:`Report` from per-query :class:`QueryResults` (``evaluate_run(..., average=None)``).

    The ``all`` value of each column is computed as trec_eval computes it:
    the per-query values added left to right in trec_eval's query order, then divided
    by their number; counts are summed and ``gm_`` measures take the
    geometric mean, as the definitions say. ``all_overrides`` gives other
    ``all`` values.
    """
    import numpy as np

    from ..metrics._means import trec_aggregate, trec_order

    ids = [str(query) for query in results.query_ids]
    order = trec_order(ids)
    values, summary = {}, {}
    for column in columns:
        in_order = np.asarray(results[column.evaluated], dtype=np.float64)[order]
        values[column.printed] = in_order.tolist()
        summary[column.printed] = trec_aggregate(results, column.evaluated, in_order)
    summary.update(all_overrides or {})
    return Report(columns, [ids[i] for i in order], values, summary, run_id)


def format_text(report, per_query, summary):
    """trec_eval's text: per-query lines (``per_query``), then the ``all`` lines (``summary``)."""
    lines = []
    if per_query:
        for index, query in enumerate(report.queries):
            for column in report.columns:
                if column.per_query:
                    value = report.values[column.printed][index]
                    lines.append(_line(column.printed, query, _trec_number(value, column.integer)))
    if summary:
        if report.run_id is not None:
            lines.append(_line("runid", "all", report.run_id))
        for column in report.columns:
            value = report.summary[column.printed]
            lines.append(_line(column.printed, "all", _trec_number(value, column.integer)))
    return "".join(lines)


def _plain(value, integer):
    if integer and math.isfinite(value):
        return int(value)
    return value


def format_csv(report, per_query, summary):
    """CSV with columns ``measure,query_id,value``: the rows of the text output, unrounded."""
    rows = ["measure,query_id,value\n"]
    for name, query, value in _records(report, per_query, summary):
        rows.append(f"{_csv_field(name)},{_csv_field(query)},{_csv_field(str(value))}\n")
    return "".join(rows)


def _csv_field(text):
    if any(character in text for character in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _records(report, per_query, summary):
    if per_query:
        for index, query in enumerate(report.queries):
            for column in report.columns:
                if column.per_query:
                    value = report.values[column.printed][index]
                    yield column.printed, query, _plain(value, column.integer)
    if summary:
        if report.run_id is not None:
            yield "runid", "all", report.run_id
        for column in report.columns:
            yield column.printed, "all", _plain(report.summary[column.printed], column.integer)


def format_json(report, per_query, summary):
    """JSON: ``{"run_id", "measures", "all": {measure: value}, "queries": {id: {measure: value}}}``."""
    document = {"run_id": report.run_id, "measures": [c.printed for c in report.columns]}
    if summary:
        document["all"] = {
            c.printed: _plain(report.summary[c.printed], c.integer) for c in report.columns
        }
    if per_query:
        document["queries"] = {
            query: {
                c.printed: _plain(report.values[c.printed][index], c.integer)
                for c in report.columns
                if c.per_query
            }
            for index, query in enumerate(report.queries)
        }
    return json.dumps(document, indent=2, allow_nan=True) + "\n"


_FORMATS = {"text": format_text, "csv": format_csv, "json": format_json}


# ------------------------------------------------------------ command


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CommandError(message)


def _parser():
    parser = _Parser(
        prog=_PROGRAM,
        description="Evaluate a TREC run against qrels, printing trec_eval's output.",
        epilog="Measures: trec_eval's names and sets (official, all_trec, P.5,10), "
        "ir_measures' (nDCG@10, P(rel=2)@5) and the package's (ndcg@10).",
    )
    parser.add_argument("-q", action="store_true", help="also print each query's values")
    parser.add_argument(
        "-c", action="store_true", help="queries of the qrels the run misses score 0 (averaged in)"
    )
    parser.add_argument(
        "-l", type=int, default=1, metavar="N", help="relevance level: relevant iff grade >= N"
    )
    parser.add_argument(
        "-M", type=int, default=None, metavar="N", help="evaluate only the top N of each query"
    )
    parser.add_argument(
        "-J", action="store_true", help="evaluate only the judged documents of the run"
    )
    parser.add_argument("-n", action="store_true", help="no summary: leave out the 'all' lines")
    parser.add_argument(
        "-m", action="append", metavar="MEASURE", help="a measure or set (default: official)"
    )
    parser.add_argument(
        "--trec-eval-version",
        choices=("10", "9"),
        default="10",
        help="whose numbers where trec_eval's versions differ: 10 (scores in double precision, "
        "iprec_at_recall cut at round(recall R)) or 9 (single precision, floor(recall R + 0.9); "
        "also pytrec_eval's, and ir_measures' for its measures pytrec_eval computes)",
    )
    parser.add_argument("--format", choices=tuple(_FORMATS), default="text")
    parser.add_argument("qrels")
    parser.add_argument("run")
    return parser


def _evaluate(arguments, columns):
    """The run's per-query results, the run id and the ``all`` values trec_eval computes apart."""
    from .._engine._warnings import is_undefined_metric_warning
    from ._evaluate import COMMAND, NoJudgedQueriesError, RunOptions, evaluate_joined, join_run

    options = RunOptions.checked(
        ties="trec_eval",
        relevance_level=arguments.l,
        missing_queries="zero" if arguments.c else "ignore",
        max_docs=arguments.M,
        judged_only=arguments.J,
        trec_eval_version=arguments.trec_eval_version,
    )
    requests = {column.evaluated: column.request for column in columns}
    joined = join_run(
        arguments.qrels, arguments.run, max_docs=arguments.M,
        trec_eval_version=arguments.trec_eval_version,
    )  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            results = evaluate_joined(joined, list(requests.values()), options, COMMAND)
        except NoJudgedQueriesError as error:  # trec_eval: no query evaluated
            raise CommandError(str(error), EXIT_NO_QUERIES) from None
    for warning in caught:
        # Undefined values are not left out of the means here: see _warn_nan.
        if not is_undefined_metric_warning(warning.category):
            warnings.warn(warning.message, warning.category, stacklevel=1)
    if results.n_queries == 0:  # -c with a qrels file of no judgment
        raise CommandError(
            "no queries with both results and relevance judgments", EXIT_NO_QUERIES
        )
    overrides = {}
    if arguments.c:
        # trec_eval -c sums num_rel over the whole qrels as judgments > 0,
        # whatever -l says (m_num_rel.c).
        total = int((joined.grades > 0).sum())
        overrides = {c.printed: total for c in columns if c.printed == "num_rel"}
    _warn_nan(columns, results)
    return results, joined.run_name, overrides


def _warn_nan(columns, results):
    """One warning per measure with NaN values: printed ``-nan``, and so is its ``all`` line."""
    import numpy as np

    for column in columns:
        values = results[column.evaluated]
        undefined = int(np.isnan(values).sum())
        if undefined:
            warnings.warn(
                f"{column.printed}: {undefined} of {values.shape[0]} queries have no value "
                "(0 / 0), printed -nan as trec_eval prints them, and so is the 'all' value.",
                stacklevel=1,
            )


def main(argv=None, stdout=None):
    """Run the command with ``argv`` (default ``sys.argv[1:]``); return its exit status.

    Every error is one line on stderr, ``rank-eval: error: ...``, never a
    traceback, and an exit status of trec_eval's where it has one.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments, as on the command line.
    stdout : file-like, default=None
        Where the output goes (default ``sys.stdout``).

    Returns
    -------
    status : int
        0; 1 for a bad option or measure; 2 for a file that cannot be read or
        is malformed (a truncated or corrupt gzip included) or an option value
        refused; 3 when memory runs out; 7 when no query is evaluated (no
        query of the run is judged, without ``-c``); 8 when the output cannot be written (a full disk); 141,
        without a message, when the reader of the output closes it early
        (``rank-eval ... | head``, where SIGPIPE ends trec_eval); 130 on
        Ctrl-C.

    See Also
    --------
    sklearn_rank_metrics.trec.evaluate_run : The same numbers in Python.

    References
    ----------
    .. [1] trec_eval, ``trec_eval.c``: https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from sklearn_rank_metrics.trec._command import main
    >>> main(["--help"])  # doctest: +ELLIPSIS
    usage: rank-eval ...
    0
    >>> main(["-m", "map", "no-such-qrels.txt", "no-such-run.txt"])
    2
    """
    stdout = sys.stdout if stdout is None else stdout
    try:
        text = _output(argv)
    except SystemExit as exit_:  # --help
        return exit_.code or 0
    except CommandError as error:
        return _error(error, error.status)
    except (ValueError, TypeError, OSError, ImportError) as error:
        return _error(error, EXIT_INPUT)
    except MemoryError as error:  # its message, where it has one, names the file
        return _error(str(error) or "out of memory reading or evaluating the files", EXIT_MEMORY)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    try:
        stdout.write(text)
        stdout.flush()
    except BrokenPipeError:  # the reader stopped early (| head): not an error of ours
        _discard_output(stdout)
        return EXIT_BROKEN_PIPE
    except OSError as error:  # a full disk, an I/O error
        _discard_output(stdout)
        return _error(f"cannot write the output: {error.strerror or error}", EXIT_OUTPUT)
    return 0


def _output(argv):
    """The command's output for ``argv``; raises what :func:`main` reports."""
    arguments = _parser().parse_args(argv)
    try:
        columns, prints_runid, left_out = trec_columns(arguments.m)
    except ValueError as error:  # an unknown measure, a bad parameter list
        raise CommandError(str(error), EXIT_USAGE) from None
    if left_out:
        print(
            f"{_PROGRAM}: note: left out trec_eval's {', '.join(left_out)}, which this "
            "package does not offer",
            file=sys.stderr,
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results, run_id, overrides = _evaluate(arguments, columns)
    for warning in caught:  # one line each, without Python's file and line
        print(f"{_PROGRAM}: warning: {warning.message}", file=sys.stderr)
    report = build_report(columns, results, run_id if prints_runid else None, overrides)
    return _FORMATS[arguments.format](report, arguments.q, not arguments.n)


def _error(error, status):
    """Print ``error`` as one line on stderr; return ``status``."""
    message = " ".join(str(error).split()) or type(error).__name__
    print(f"{_PROGRAM}: error: {message}", file=sys.stderr)
    return status


def _discard_output(stdout):
    """After a failed write to the process's stdout, send what is left of it nowhere.

    Python flushes ``sys.stdout`` again at exit, which would fail again and
    print a traceback-like "Exception ignored" (Python's own advice for a
    broken pipe).
    """
    if stdout is sys.stdout:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):  # no file descriptor behind it
            pass
