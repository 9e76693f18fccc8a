"""The run layer: plan, the chunk run, the judged and curve front-ends, finalize.

``_run.evaluate_plain``, ``_judged.evaluate_judged`` and
``_curve.curve_results`` take checked requests, the call's data
(:class:`~..prepare._prepare.Inputs`) and options
(:class:`~.._options.Options`), and return plain per-metric results
(:class:`~._finalize.RunResults`), which the public layer wraps.
"""
