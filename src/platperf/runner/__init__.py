"""One target's steps into its runs: a suite becomes probe invocations (and tool steps) on a
target, and their records go into runs already begun, as they arrive. It knows no boards,
descriptions, goals or commands: :mod:`platperf.measure` opens and describes the boards, begins
their runs, hands them here and closes them. One module per concern:

    suite      suites (TOML ``[[bench]]`` and ``[[tool]]`` entries) and their plan of steps
    probe      the probe's protocol: ``list --json``, ``info``, a command's records, a feed
    sink       one run's records on their way into the store: placed, written, counted;
               its findings held in memory and written once when the run ends
    executor   the steps run one after the other (probe steps and tool steps alike) into
               one or several runs (execute_runs), Ctrl-C and SIGTERM heard between records

The outcome of a run:
  complete  every entry ended with the probe's ``end`` record;
  partial   Ctrl-C (forwarded to the probe, which finishes its sample and writes ``end``),
            or a probe that stopped without ``end``: everything that arrived is kept;
  failed    a malformed record (the error names the stream and line) or a probe that
            reported an error: everything before it is kept.
"""
