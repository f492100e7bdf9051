"""Tables in TF-A's layout (``tf-a-psci-performance-juno-v2.10.rst``): one grid table per
(benchmark, params, mode), ``Cluster | Core | <metric>...``, one row per (cluster, core),
titled as TF-A titles them, with their ``literal`` markup (:mod:`platperf.vocab.tfa`). A
machine whose cluster numbers restart in each package (several sockets) has a ``Package``
column first; a one-package board none.

``compare`` fills the cells with ``NEW (+x.xx%)`` across two releases; the report's
``tfa_tables`` section with each release's figures, a published page's as the page printed
them (its precision, its annotations, its release in its own spelling, its caption rows).
Both build their tables here.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..events import is_counter, is_counter_metric
from ..records import ResultKey, key_order
from ..vocab.tfa import metric_of, metric_title, table_rank, table_title
from .document import Table, literal_safe


def place(value) -> str:
    """A package, cluster or core number; ``-`` when the figure has none."""
    return "-" if value is None else str(value)


def grid_tables(figures: Iterable[tuple[tuple, str, object]], label: str, cell: Callable[[object], str],
                metric_order: list[str] = (),
                caption: Callable[[list], str] = lambda values: "",
                published: Callable[[list], dict] = lambda values: {}) -> list[Table]:
    """One TF-A table per (benchmark, params, mode) of ``figures``; see :func:`keyed_tables`."""
    return [table for _, table in keyed_tables(figures, label, cell, metric_order, caption, published)]


def keyed_tables(figures: Iterable[tuple[tuple, str, object]], label: str, cell: Callable[[object], str],
                 metric_order: list[str] = (),
                 caption: Callable[[list], str] = lambda values: "",
                 published: Callable[[list], dict] = lambda values: {}) -> list[tuple[tuple, Table]]:
    """((benchmark, params, mode), table) for each TF-A table of ``figures``: (key, unit,
    value) with key (benchmark, params, mode, package, cluster, core, metric) as
    :attr:`platperf.records.Result.key`. ``cell(value)`` writes a cell; ``caption(values)`` a table's caption from its values; ``published(values)`` what a page
    printed with them: its ``release`` as spelt there (``2.9``), the ``title`` of a table
    that is no TFTF test's, the ``caption`` row over its header. Tables come in the TF-A
    document's order, rows by (cluster, core), columns in ``metric_order`` then by name."""
    groups: dict[tuple, list] = {}
    ordered = sorted(figures, key=lambda f: key_order(f[0]))
    for fig in sorted(ordered, key=lambda f: table_rank(f[0][0], f[0][1])):   # stable
        groups.setdefault(tuple(fig[0][:3]), []).append(fig)
    order = {m: i for i, m in enumerate(metric_order)}
    tables = []
    for (benchmark, params_key, mode), figs in groups.items():
        keys = [ResultKey._make(f[0]) for f in figs]
        # a kernel's figures, then the events counted with them (events.is_counter_metric)
        metrics = sorted({k.metric for k in keys}, key=lambda m: (is_counter_metric(m), order.get(m, len(order)), m))
        packages = any(k.package is not None for k in keys)
        places: dict[tuple, dict] = {}
        for key, (_, _unit, value) in zip(keys, figs):
            places.setdefault(key[3:6] if packages else key[4:6], {})[key.metric] = value
        units = sorted({f[1] for f in figs if not is_counter(f[0][6], f[1])}) or sorted({f[1] for f in figs})
        rows = [[place(p) for p in where] + [cell(by[m]) if m in by else "" for m in metrics]
                for where, by in places.items()]
        page = published([f[2] for f in figs])
        if page.get("headers") and page.get("title"):
            tables.append(((benchmark, params_key, mode), _per_cpu(page, places, cell)))
            continue
        release = literal_safe(page.get("release") or label)
        title = f"{page['title']} ({release})" if page.get("title") else \
            table_title(benchmark, params_key, mode, "/".join(units), release)
        tables.append(((benchmark, params_key, mode), Table(
            title, ["Package"] * packages + ["Cluster", "Core"] + [metric_title(m) for m in metrics], rows,
            layout="grid", caption=caption([f[2] for f in figs]), markup=True,
            spans=[page["caption"]] if page.get("caption") else [])))
    return tables


def _per_cpu(page: dict, places: dict, cell: Callable[[object], str]) -> Table:
    """A historic per-CPU table as the page printed it: its heading, its header, a row a CPU."""
    headers = list(page["headers"])
    metrics = [metric_of(h)[0] for h in headers[1:]]
    rows = [[place(where[-1])] + [cell(by[m]) if m in by else "" for m in metrics] for where, by in places.items()]
    return Table(page["title"], headers, rows, layout="grid", markup=True)
