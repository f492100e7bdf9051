"""Small self-contained SVG plots (no scripts, no fonts or styles from outside).

``line_plot``: latency vs size (log-2 x axis, cache sizes as vertical lines), bandwidth per
kernel vs size. ``histogram_plot``: bucket counts on a log-count axis. Every text is escaped.
A plot is as wide as its legend needs: no series name is cut or runs out of the picture.
"""
from __future__ import annotations

import math
from html import escape

from ..vocab.sizes import size_label
from .document import shorten, shorten_middle

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
# a dash per series too: the lines stay apart on a grey-scale print, where colours do not
DASHES = ("", "6 3", "2 3", "8 3 2 3", "4 2 1 2", "10 4")
W, H = 760, 380
LEFT, RIGHT, TOP, BOTTOM = 70, 170, 34, 50   # plot area margins; legend on the right
CHAR_W = 6.6          # px a character of the 11 px sans-serif legend takes, at most (digits, a-z)
LEGEND_MAX = 48       # characters of a legend entry; longer ones lose their middle


def _nice_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    return [start + i * step for i in range(int((hi - start) / step) + 2) if start + i * step <= hi + step * 1e-9]


def _num(v: float) -> str:
    return f"{v:.0f}" if abs(v) >= 100 or v == int(v) else f"{v:.3g}"


class _Axes:
    def __init__(self, xs, ys, log_x, log_y, y_zero, right: int = RIGHT):
        self.log_x, self.log_y = log_x, log_y
        self.right, self.w = right, W - RIGHT + right     # the plot area keeps its width
        fx = math.log2 if log_x else float
        fy = math.log10 if log_y else float
        self.fx, self.fy = fx, fy
        self.x0, self.x1 = fx(min(xs)), fx(max(xs))
        lo_y = min(ys)
        self.y0 = (0.0 if y_zero and not log_y and lo_y >= 0 else fy(lo_y))
        self.y1 = fy(max(ys))
        if self.x1 == self.x0:
            self.x0, self.x1 = self.x0 - 1, self.x1 + 1
        if self.y1 == self.y0:
            self.y0, self.y1 = self.y0 - 1, self.y1 + 1
        if not log_y:
            self.y1 += 0.05 * (self.y1 - self.y0)      # headroom: the top point clears the frame
            ticks = _nice_ticks(self.y0, self.y1)
            self.y0, self.y1 = min(self.y0, ticks[0]), max(self.y1, ticks[-1])
        else:
            self.y0, self.y1 = math.floor(self.y0), math.ceil(self.y1)
            if self.y1 == self.y0:
                self.y1 += 1

    def px(self, x):
        return LEFT + (self.fx(x) - self.x0) / (self.x1 - self.x0) * (W - LEFT - RIGHT)

    def py(self, y):
        return H - BOTTOM - (self.fy(y) - self.y0) / (self.y1 - self.y0) * (H - TOP - BOTTOM)


def _frame(title, x_label, y_label, w: int = W) -> list[str]:
    title = shorten(title, 100)   # one line across the plot; the tables carry the whole names
    return [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" '
            f'viewBox="0 0 {w} {H}" width="{w}" height="{H}" font-family="sans-serif" font-size="11">',
            f"<title>{escape(title)}</title>",
            f'<rect x="0" y="0" width="{w}" height="{H}" fill="#fff"/>',
            f'<text x="{(LEFT + W - RIGHT) / 2:.0f}" y="18" text-anchor="middle" font-size="13" '
            f'font-weight="bold">{escape(title)}</text>',
            f'<text x="{(LEFT + W - RIGHT) / 2:.0f}" y="{H - 10}" text-anchor="middle">{escape(x_label)}</text>',
            f'<text transform="translate(16 {(TOP + H - BOTTOM) / 2:.0f}) rotate(-90)" '
            f'text-anchor="middle">{escape(y_label)}</text>']


def _axes_lines(ax: _Axes, x_ticks, x_format, y_ticks, y_format) -> list[str]:
    out = [f'<rect x="{LEFT}" y="{TOP}" width="{W - LEFT - RIGHT}" height="{H - TOP - BOTTOM}" '
           f'fill="none" stroke="#444"/>']
    for x in x_ticks:
        p = ax.px(x)
        out.append(f'<line x1="{p:.1f}" y1="{H - BOTTOM}" x2="{p:.1f}" y2="{H - BOTTOM + 4}" stroke="#444"/>'
                   f'<text x="{p:.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{escape(x_format(x))}</text>')
    for y in y_ticks:
        p = ax.py(y)
        out.append(f'<line x1="{LEFT}" y1="{p:.1f}" x2="{W - RIGHT}" y2="{p:.1f}" stroke="#ddd"/>'
                   f'<text x="{LEFT - 6}" y="{p + 4:.1f}" text-anchor="end">{escape(y_format(y))}</text>')
    return out


def _x_ticks(ax: _Axes, xs) -> list[float]:
    if not ax.log_x:
        return _nice_ticks(min(xs), max(xs))
    lo, hi = math.ceil(ax.x0), math.floor(ax.x1)
    step = max(1, math.ceil((hi - lo + 1) / 10))
    return [2.0 ** e for e in range(lo, hi + 1, step)]


def _y_ticks(ax: _Axes) -> list[float]:
    if ax.log_y:
        # a decade or two (latency from an L1 hit to DRAM): 1, 2, 5, 10, 20, 50 ... so that
        # the caches' levels can be read off the axis
        steps = (1, 2, 5) if ax.y1 - ax.y0 <= 3 else (1,)
        return [m * 10.0 ** e for e in range(int(ax.y0), int(ax.y1) + 1) for m in steps
                if m * 10.0 ** e <= 10.0 ** ax.y1 * 1.0001]
    return [t for t in _nice_ticks(ax.y0, ax.y1) if ax.y0 <= t <= ax.y1]


def legend_text(name: str) -> str:
    """A legend entry whole, or with its middle cut when longer than LEGEND_MAX: the end of
    a series name (the pattern, the kernel) tells the lines apart."""
    return shorten_middle(name, LEGEND_MAX)


def _segments(points: list[tuple[float, float]], grid: list[float] | None) -> list[list[tuple]]:
    """Runs of points a line may join: all of them, or (with ``grid``, the x values any series
    measured) only neighbours with no grid value between them: no line through a size this
    series never measured."""
    if grid is None:
        return [points]
    index = {x: i for i, x in enumerate(grid)}
    runs: list[list[tuple]] = []
    for pt in points:
        if runs and index[pt[0]] == index[runs[-1][-1][0]] + 1:
            runs[-1].append(pt)
        else:
            runs.append([pt])
    return runs


def line_plot(title: str, series: list[tuple[str, list[tuple[float, float]]]], *,
              x_label: str, y_label: str, log_x: bool = True, log_y: bool = False,
              vlines: list[tuple[float, str]] = (), x_format=size_label, sweep: bool = False) -> str:
    """Lines with point markers, one colour per series, legend on the right.

    ``vlines`` mark x positions (cache sizes) with a dashed line and a label. ``sweep``: the
    x values are sizes of one sweep, so a line joins only sizes next to each other in it; a
    series of one or two sizes, or with no two such neighbours, is drawn as points, set side
    by side where several fall on one size (STREAM's four kernels at one array size).
    """
    pts = [(x, y) for _, s in series for x, y in s if y is not None and (y > 0 or not log_y)]
    if not pts:
        raise ValueError(f"plot '{title}' has no points")
    xs = [x for x, _ in pts]
    names = [legend_text(name) for name, _ in series]
    right = max(RIGHT, round(40 + CHAR_W * max(map(len, names))))
    ax = _Axes(xs, [y for _, y in pts], log_x, log_y, y_zero=True, right=right)
    grid = sorted(set(xs)) if sweep else None
    if sweep:       # points at the ends stay off the frame
        pad = 0.04 * (ax.x1 - ax.x0)
        ax.x0, ax.x1 = ax.x0 - pad, ax.x1 + pad
    shown = [sorted((x, y) for x, y in s if y is not None and (y > 0 or not log_y)) for _, s in series]
    alone = [sweep and (len(s) <= 2 or all(len(run) == 1 for run in _segments(s, grid))) for s in shown]
    # several point-only series on one size: side by side, 8 px apart
    dodge: dict[tuple, float] = {}
    for x in set(xs):
        at = [i for i, s in enumerate(shown) if alone[i] and any(px == x for px, _ in s)]
        dodge.update({(i, x): (k - (len(at) - 1) / 2) * 8 for k, i in enumerate(at)})
    # A cache larger than every buffer measured has no place on this axis.
    vlines = [(x, label) for x, label in vlines if min(xs) <= x <= max(xs)]
    out = _frame(title, x_label, y_label, ax.w)
    out += _axes_lines(ax, _x_ticks(ax, xs), x_format, _y_ticks(ax), _num)
    for i, (x, label) in enumerate(vlines):
        p = ax.px(x)
        out.append(f'<line class="marker" x1="{p:.1f}" y1="{TOP}" x2="{p:.1f}" y2="{H - BOTTOM}" '
                   f'stroke="#888" stroke-dasharray="4 3"/>'
                   f'<text x="{p + 3:.1f}" y="{TOP + 12 + 12 * (i % 3)}" fill="#555">{escape(label)}</text>')
    for i, (s, name) in enumerate(zip(shown, names)):
        colour = PALETTE[i % len(PALETTE)]
        dash = DASHES[i % len(DASHES)]
        dash = f' stroke-dasharray="{dash}"' if dash else ""
        if not s:
            continue
        joined = False
        for run in ([] if alone[i] else _segments(s, grid)):
            if len(run) > 1:
                path = " ".join(f"{ax.px(x):.1f},{ax.py(y):.1f}" for x, y in run)
                out.append(f'<polyline class="series" fill="none" stroke="{colour}" stroke-width="1.8"{dash} '
                           f'points="{path}"/>')
                joined = True
        r = 2.2 if joined else 4.0      # points alone must be seen
        # each point says its figure when the pointer rests on it
        out += [f'<circle class="point" cx="{ax.px(x) + dodge.get((i, x), 0):.1f}" cy="{ax.py(y):.1f}" '
                f'r="{r}" fill="{colour}"><title>{escape(f"{name}: {x_format(x)}, {_num(y)}")}</title></circle>'
                for x, y in s]
        ly, lx = TOP + 8 + 16 * i, W - RIGHT + 10
        key = (f'<line x1="{lx}" y1="{ly}" x2="{lx + 18}" y2="{ly}" stroke="{colour}" stroke-width="2"{dash}/>'
               if joined else f'<circle cx="{lx + 9}" cy="{ly}" r="4" fill="{colour}"/>')
        out.append(f'{key}<text class="legend" x="{lx + 22}" y="{ly + 4}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def histogram_plot(title: str, buckets: list[tuple[float, float, int]], *, x_label: str,
                   log_x: bool = False) -> str:
    """Bucket counts as bars on a log-count axis: the rare long excursions stay visible."""
    buckets = [(lo, hi, c) for lo, hi, c in buckets if c > 0 and hi > lo and (lo > 0 or not log_x)]
    if not buckets:
        raise ValueError(f"histogram '{title}' has no counts")
    xs = [b[0] for b in buckets] + [b[1] for b in buckets]
    ax = _Axes(xs, [0.5] + [c for *_, c in buckets], log_x, True, y_zero=False)
    out = _frame(title, x_label, "count (log)")
    out += _axes_lines(ax, _x_ticks(ax, xs), _num, _y_ticks(ax), _num)
    base = ax.py(10.0 ** ax.y0)
    for lo, hi, c in buckets:
        x0, x1, top = ax.px(lo), ax.px(hi), ax.py(c)
        out.append(f'<rect class="bar" x="{x0:.1f}" y="{top:.1f}" width="{max(x1 - x0, 1.0):.1f}" '
                   f'height="{max(base - top, 0.5):.1f}" fill="{PALETTE[0]}"/>')
    out.append("</svg>")
    return "\n".join(out)


def _shade(t: float) -> str:
    """Light (t = 0) to dark blue (t = 1): low values pale, high values dark."""
    lo, hi = (0xf7, 0xfb, 0xff), (0x08, 0x30, 0x6b)
    return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(lo, hi))


def heatmap(title: str, labels: list[str], values: list[list[float | None]], *, unit: str,
            boundaries: list[int] = (), minor_boundaries: list[int] = (),
            groups: list[tuple[str, int, int]] = ()) -> str:
    """A square matrix as coloured cells: row i, column j is ``values[i][j]`` (None: blank,
    grey), pale for the lowest value and dark for the highest, each written in its cell when
    the cells are large enough.

    ``boundaries`` are indexes where a new group (a cluster) starts: a thick line is drawn
    before that row and that column. ``minor_boundaries`` are drawn dashed (a change of core
    type inside a cluster). ``groups`` (name, first, last index) are named above the columns.
    """
    n = len(labels)
    filled = [v for row in values for v in row if v is not None]
    if n == 0 or not filled:
        raise ValueError(f"heatmap '{title}' has no values")
    lo, hi = min(filled), max(filled)
    cell = max(12, min(48, 560 // n))
    left, top = 70, 70
    width, height = max(480, left + n * cell + 130), top + n * cell + 40
    size = n * cell
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot heatmap" role="img" '
           f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" font-family="sans-serif" '
           f'font-size="11">',
           f"<title>{escape(shorten(title, 100))}</title>",
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{width / 2:.0f}" y="18" text-anchor="middle" font-size="13" font-weight="bold">'
           f"{escape(shorten(title, 100))}</text>"]
    for name, first, last in groups:
        x = left + (first + last + 1) * cell / 2
        out.append(f'<text class="group" x="{x:.1f}" y="{top - 24}" text-anchor="middle">{escape(name)}</text>')
    font = min(11, max(7, cell // 4))
    every = 1 if cell >= 16 else 4     # many CPUs: label every fourth, the cells still show all
    for i, label in enumerate(labels):
        c = left + i * cell + cell / 2
        if i % every == 0:
            out.append(f'<text x="{c:.1f}" y="{top - 6}" text-anchor="middle">{escape(label)}</text>'
                       f'<text x="{left - 6}" y="{top + i * cell + cell / 2 + 4:.1f}" text-anchor="end">'
                       f"{escape(label)}</text>")
        for j in range(n):
            v = values[i][j]
            x, y = left + j * cell, top + i * cell
            t = (v - lo) / (hi - lo) if v is not None and hi > lo else 0.0
            fill = "#e0e0e0" if v is None else _shade(t)
            out.append(f'<rect class="cell" x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" '
                       f'stroke="#fff" stroke-width="0.5"><title>{escape(labels[i])} - {escape(labels[j])}: '
                       f'{"" if v is None else _num(v)} {escape(unit)}</title></rect>')
            if v is not None and cell >= 28:
                colour = "#fff" if t > 0.55 else "#000"
                out.append(f'<text x="{x + cell / 2:.1f}" y="{y + cell / 2 + font / 3:.1f}" '
                           f'text-anchor="middle" font-size="{font}" fill="{colour}">{_num(v)}</text>')
    for k in minor_boundaries:
        p = k * cell
        out.append(f'<path class="core-type-boundary" d="M{left + p} {top}v{size}M{left} {top + p}h{size}" '
                   f'stroke="#555" stroke-width="1.5" stroke-dasharray="4 3" fill="none"/>')
    for k in boundaries:
        p = k * cell
        out.append(f'<path class="cluster-boundary" d="M{left + p} {top - 14}v{size + 14}M{left - 14} {top + p}'
                   f'h{size + 14}" stroke="#000" stroke-width="3" fill="none"/>')
    out.append(f'<rect x="{left}" y="{top}" width="{size}" height="{size}" fill="none" stroke="#444"/>')
    # legend: five swatches from the lowest to the highest value
    lx = left + size + 24
    for s in range(5):
        v = lo + (hi - lo) * s / 4
        y = top + s * 22
        out.append(f'<rect x="{lx}" y="{y}" width="16" height="16" fill="{_shade(s / 4)}" stroke="#444"/>'
                   f'<text x="{lx + 22}" y="{y + 12}">{_num(v)} {escape(unit)}</text>')
    out.append("</svg>")
    return "\n".join(out)
