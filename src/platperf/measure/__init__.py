"""A command's boards measured: each opened, described, planned, measured and closed one way
(:class:`boards.Session`), owned by the library so that every command runs it the same way;
``cli/`` parses options, calls these, and prints. One board's steps become probe processes and
stored records through :mod:`platperf.runner`, which knows no boards, descriptions or commands.

    description   what a board is, as its run stores it: the probe's meta, the topology, the
                  fingerprint and the doctor's findings, each file of its /sys and /proc read once
    requests      what is measured on each board: a suite (SuiteRequest), checked once
                  (interference's matrix is a request of its own: platperf.interference)
    boards        a measuring command's boards (Session.run, the one lifecycle): each opened,
                  described and planned (or refused) with no database touched, measured into the
                  store (a fixed number of runs, or until a goal), closed; all boards at once
    until         the rounds of --repeat auto / --against: runs asked for and looked at
                  (platperf.compare.gate judges them) until every key is settled or decided
    streams       a probe stream that came another way (a saved file, a LAVA job's log) stored
                  as one run, as a measured run is stored

A command checks its whole input against the description before it opens the store: bad
input leaves no database behind.
"""
