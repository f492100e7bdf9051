"""LAVA: labs schedule their boards with LAVA, and platperf runs there as a LAVA job.

* :mod:`.job`       ``platperf lava job``: a job (the suite's probe commands, the board
                    description script) whose deploy and boot sections come from a
                    per-device-type template;
* :mod:`.delivery`  how the probe and platperf's device scripts reach the board: the lab's file
                    server (``--probe-url``), its git test-definition repository
                    (``--definitions-repo``; both written by ``platperf lava definitions``), or
                    inline in the job's secrets, the fallback;
* :mod:`.server`    LAVA's REST API with the token of a lavacli identity: submit, follow,
                    fetch a job's log.

The job reports every result twice: ``lava-test-case NAME --result pass --measurement V
--units U`` for LAVA's own results pages, and the probe's whole JSON Lines stream between
``PLATPERF-JSONL-BEGIN n`` / ``PLATPERF-JSONL-END n exit=CODE`` lines of the log, which
``platperf ingest lava`` reads back (:mod:`platperf.ingest.lava_log`, a foreign format's reader
among the others, below this folder) and stores as ``platperf run`` would have (docs/lava.md).
"""


class LavaError(ValueError):
    """A template, option or LAVA answer a person must fix: one line, exit 2."""
