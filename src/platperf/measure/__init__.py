"""The measuring sequence, owned by the library so that every command runs it the same way;
``cli/`` parses options, calls these, and prints.

    description   what a board is, as its run stores it: the probe's meta, the topology, the
                  fingerprint and the doctor's findings, each file of its /sys and /proc read once
    requests      what is measured on each board: a suite (SuiteRequest), checked once
                  (interference's matrix is a request of its own: platperf.interference)
    boards        a measuring command's boards (Session): each opened, described and planned at
                  once with no database touched, then measured into the store at once, then closed
    until         the rounds of --repeat auto / --against: runs asked for and looked at
                  (platperf.compare.gate judges them) until every key is settled or decided
    goal          one board measured to such a goal: described, checked against the baseline's
                  machine, then measured in those rounds
    streams       a probe stream that came another way (a saved file, a LAVA job's log) stored
                  as one run, as a measured run is stored

A command checks its whole input against the description before it opens the store: bad
input leaves no database behind.
"""
