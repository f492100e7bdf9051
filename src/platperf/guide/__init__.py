"""Published performance-guide tables and platperf keys: one key space for both.

A guide table family is one module in ``platperf.guide.tables`` (found here with pkgutil, so
a new family is one file) with ``TITLES``, ``to_key(title, row, column)`` and
``to_cell(key)`` (see ``keys.py``), inverse of each other for every cell and key it knows.
Optional attributes the report reads:

* ``SECTIONS``: ``{title: (section, subsection, ...)}``, the guide's headings over the table;
* ``SORTED``: titles whose rows the guide prints sorted by name (LMBench, Stream);
* ``ROW_HEADER``: ``{title: header}`` of the row-name column (``"Benchmarks"``), or a tuple
  of headers when the row is named by several columns (OpenSSL's algorithm and buffer size);
* ``PER_BOARD``: titles the guide prints once per board (its storage tables), not one
  column per board in one table;
* ``SPREAD``: titles whose cell is ``avg (min, max)`` over the samples of one run (TI's boot
  time over its boot cycles), not one figure;
* ``also(key) -> tuple[Cell, ...]``: other rows printing the same figure (TI's aliases);
* ``count(title, row) -> int | None`` and ``counted(cell, n) -> Cell``: a row that names its
  sample count (TI's boot row, ``(20 boot cycles)``) -- the count is the result's n, not part
  of the key: the importer keeps what ``count`` reads, the report prints it with ``counted``.

A row named by several leading columns (OpenSSL: ``"Algorithm","Buffer Size (in bytes)"``)
reaches ``to_key`` as their cells joined by ``", "`` (``"aes-128-cbc, 1024"``); ``column``
is the header without its board prefix (``"perf"``, ``"CPU Load (%)"``).

A column that says which row it is rather than what was measured (a buffer or message size
in bytes, :mod:`platperf.guide.parameters`) is a parameter: its cells join the row's name
(``"aes-128-cbc, 16"``) and reach ``to_key`` as ``params`` too (``(("size", 16),)``), which a
table no family claims keeps as parameters of its key beside ``row``.

What no family claims goes to :mod:`platperf.guide.fallback`: a cell of an unknown table is
keyed by its own title, row and column; a measured key no guide table prints goes to the
``platperf Benchmarks`` tables under its own benchmark, parameters and metric. So
:func:`to_key` and :func:`to_cell` always answer, and ``to_key(*to_cell(k), params) == k``
with ``params`` the key's parameter columns (:func:`row_params`, empty for most keys).
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from . import fallback, tables
from .fallback import row_params
from .keys import Cell, Key
from .parameters import Parameter, parameter

__all__ = ["Cell", "Key", "Parameter", "families", "to_key", "to_cell", "also", "count", "sections",
           "row_header", "sorted_rows", "make_key", "per_board", "spread", "parameter", "row_params"]


@lru_cache(maxsize=1)
def families() -> tuple:
    """Every module of ``platperf.guide.tables``, by name."""
    names = sorted(m.name for m in pkgutil.iter_modules(tables.__path__))
    return tuple(importlib.import_module(f"{tables.__name__}.{name}") for name in names)


@lru_cache(maxsize=None)
def _family(title: str):
    for module in families():
        if title in module.TITLES:
            return module
    return None


def make_key(benchmark: str, params: dict, metric: str, unit: str, direction: str) -> Key:
    """A Key from a result's fields (params sorted into a tuple)."""
    return Key(benchmark, tuple(sorted(params.items())), metric, unit, direction)


def to_key(title: str, row: str, column: str, params: tuple = ()) -> Key:
    """The key of a guide cell: its family's, else one named by the table itself (with the
    ``params`` of the row's parameter columns, whose values ``row`` ends with)."""
    module = _family(title)
    key = module.to_key(title, row, column) if module else None
    return key if key is not None else fallback.to_key(title, row, column, params)


def to_cell(key: Key, n: int | None = None) -> Cell:
    """Where the guide prints ``key``: its family's cell, else the fallback's. A row that names
    its sample count names ``n`` (None: no count)."""
    for module in families():
        cell = module.to_cell(key)
        if cell is not None:
            return module.counted(cell, n) if n is not None and hasattr(module, "counted") else cell
    return fallback.to_cell(key)


def count(title: str, row: str) -> int | None:
    """The sample count a guide row names (``(20 boot cycles)``), None if it names none."""
    module = _family(title)
    return module.count(title, row) if module and hasattr(module, "count") else None


def also(key: Key) -> tuple[Cell, ...]:
    """Other cells of the guide that print the same figure (TI's summary aliases)."""
    module = _family(to_cell(key).title)
    return tuple(module.also(key)) if module and hasattr(module, "also") else ()


def sections(title: str) -> tuple[str, ...] | None:
    """The headings the guide puts over table ``title`` (None: not known)."""
    module = _family(title)
    return getattr(module, "SECTIONS", {}).get(title) if module else fallback.sections(title)


def row_header(title: str) -> tuple[str, ...]:
    """The headers of the row-name columns of table ``title`` (empty: not known)."""
    module = _family(title)
    header = getattr(module, "ROW_HEADER", {}).get(title) if module else fallback.row_header(title)
    return (header,) if isinstance(header, str) else tuple(header or ())


def per_board(title: str) -> bool:
    """The guide prints table ``title`` once per board."""
    module = _family(title)
    return bool(module) and title in getattr(module, "PER_BOARD", ())


def spread(title: str) -> bool:
    """A cell of table ``title`` is ``avg (min, max)`` over one run's samples."""
    module = _family(title)
    return bool(module) and title in getattr(module, "SPREAD", ())


def sorted_rows(title: str) -> bool:
    module = _family(title)
    return title in getattr(module, "SORTED", ()) if module else fallback.sorted_rows(title)
