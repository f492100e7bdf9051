"""One board measured to a goal (``platperf run --repeat auto``, ``--against REF``): the
sequence, owned here so that ``cli/`` only parses and prints.

The board is opened and described with no database touched; against a baseline from another
machine (another CPU model or architecture, :func:`platperf.compare.gate.refused`) nothing more
happens; then the store is opened and the board measured in rounds until its keys are
settled or decided (:func:`platperf.measure.until.measure_until`, through
:class:`platperf.measure.boards.Session`), and its target closed.
"""
from __future__ import annotations

import contextlib

from ..compare.gate import refused
from .boards import Board, Session


class NotMeasured(Exception):
    """Nothing was measured and no database opened: why, in one line."""


def measure_to_goal(names: list[str], request, *, store_for, on_ready=lambda board: None,
                    progress_for=lambda board: None, display=None, **target_options):
    """(the board, the store, the stop request) of ``request`` (its ``goal`` set) on the one
    board ``names`` holds. ``store_for()`` opens the store once the board may be measured;
    ``on_ready(board)`` is told of it then; ``display`` (a context, e.g. a progress bar) is
    entered while it is measured. NotMeasured when the board cannot be reached or described,
    or its machine is not the baseline's."""
    with Session(names, request, **target_options) as session:
        board: Board = session.boards[0]
        if board.error is not None:
            raise NotMeasured(board.error)
        why = refused(request.goal, board.description)
        if why:
            raise NotMeasured(f"--against {request.goal.baseline_ref} ran on another machine ({why})")
        store = store_for()
        on_ready(board)
        with display if display is not None else contextlib.nullcontext():
            stop = session.measure(store, progress_for=progress_for)
    return board, store, stop
