"""Comparison: two sides of one machine, key by key, and what each key's runs decide.

    pools         a key's samples on one side, run by run, and the session of each run
                  (Pool; a Side: a ref, its stored runs and their pools, loaded once)
    board_level   how a per-CPU measurement meets a published whole-board row
    annotations   a published page's own deltas beside platperf's
    shared_cache  which keys a VM's last-level cache, shared with other tenants, moves
    decisions     a key's Decision and the one rule that sets it, one look or many; worse()
    keyed         the keyed comparison (Row, Comparison): one look at two sides (compare)
    gate          run --repeat auto / --against: the goal, each look's judgement, and the
                  gate's comparison from the pools its looks loaded

``platperf compare`` loads both sides (pools.load_side), pairs whole-board rows
(board_level), tests each key and decides it (keyed, decisions.rule). The gate reads its
baseline once (gate.Goal.against), judges the new runs look after look (gate.judge,
decisions.decide) while ``platperf.measure.until`` asks for runs, then builds the same
comparison from the pools already loaded (gate.comparison), each key's decision its own.
Statistics come from :mod:`platperf.stats`; the tables from :mod:`platperf.report`.
"""
