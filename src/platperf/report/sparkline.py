"""A sparkline: one key's series in a table cell (Tufte, "Beautiful Evidence", 2006: small,
word-sized, many side by side), as small multiples of a history.

Each release a point (one figure or one series of two releases is still drawn, as points);
the y scale is the key's own, from its least to its greatest value, so that a step of 1% and
one of 2,400% both show, and the numbers stay in the cell's text and the tables. A step the
history flags is drawn thick and dark (it survives a grey-scale print) and labelled with its
change; every point has its release and figure as a tooltip. No scripts, every text escaped.
For terminals and Markdown, :func:`blocks` draws the same series in Unicode block characters.
"""
from __future__ import annotations

from html import escape

from ..vocab.figures import number

W, H = 180, 56
PAD_X, TOP, BOTTOM = 6, 24, 5     # room for two rows of step labels above the line
CHAR_W = 6.2                      # px a character of a 10 px label takes, at most (bold digits)
BLOCKS = "▁▂▃▄▅▆▇█"
MAX_POINTS = 24                   # a series longer than this is drawn as its line


def _scale(values: list[float]):
    lo, hi = min(values), max(values)
    span = hi - lo or 1.0
    n = len(values)

    def x(i: int) -> float:
        return PAD_X + (W - 2 * PAD_X) * (i / (n - 1) if n > 1 else 0.5)

    def y(v: float) -> float:
        return TOP + (H - TOP - BOTTOM) * (1 - (v - lo) / span) if hi > lo else (TOP + H - BOTTOM) / 2
    return x, y


def sparkline(values: list[float], labels: list[str], unit: str, steps: dict[int, str],
              flagged: set[int]) -> str:
    """The series as an inline SVG (class ``plot spark``). ``steps``: index of the point a step
    leads to -> its label (``+2,407%``), drawn over it; ``flagged``: those drawn thick."""
    x, y = _scale(values)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot spark" role="img" viewBox="0 0 {W} {H}" '
           f'width="{W}" height="{H}" font-family="sans-serif" font-size="10">',
           f'<rect x="0" y="0" width="{W}" height="{H}" fill="#fff"/>']
    if len(values) > 1:
        path = " ".join(f"{x(i):.0f},{y(v):.1f}" for i, v in _thinned(values))
        out.append(f'<polyline points="{path}" fill="none" stroke="#777" stroke-width="1.2"/>')
    for i in sorted(flagged):
        out.append(f'<line class="flagged" x1="{x(i - 1):.1f}" y1="{y(values[i - 1]):.1f}" x2="{x(i):.1f}" '
                   f'y2="{y(values[i]):.1f}" stroke="#900" stroke-width="3"/>')
    # every point of a short series; of a long one (a year of nights) its ends and the points
    # its labelled steps lead to: a page of 150 sparklines stays a few hundred KB
    marked = range(len(values)) if len(values) <= MAX_POINTS else \
        sorted({0, len(values) - 1} | set(steps) | {i - 1 for i in steps})
    for i in marked:
        v = values[i]
        tip = escape(f"{labels[i]}: {number(v)} {unit}")
        out.append(f'<circle class="point" cx="{x(i):.1f}" cy="{y(v):.1f}" r="2" fill="#222">'
                   f"<title>{tip}</title></circle>")
    right, row = -W, 0
    for i, text in sorted(steps.items()):
        # over the point the step leads to, kept inside the picture (end-anchored at the right);
        # a label that would touch the one before goes to the other row
        px, width = x(i), CHAR_W * len(text)
        anchor = "end" if px > W - 40 else "start" if px < 40 else "middle"
        left = px - width if anchor == "end" else px if anchor == "start" else px - width / 2
        row = 1 - row if left < right + 4 else 0
        right = left + width
        weight = ' font-weight="bold"' if i in flagged else ""
        out.append(f'<text class="step" x="{min(max(px, 2), W - 2):.1f}" y="{10 + 11 * row}" '
                   f'text-anchor="{anchor}"{weight}>{escape(text)}</text>')
    out.append("</svg>")
    return "".join(out)


def _thinned(values: list[float]) -> list[tuple[int, float]]:
    """(index, value) of the points the line is drawn through: all of a short series; of a
    long one, per bin of two pixels its least and greatest value in order (min-max
    decimation, the two of M4 that draw a line's extent, Jugel et al., VLDB 2014): a year of
    nights is under 170 points, not 365 x 150 numbers a page, and no spike is lost."""
    n, bins = len(values), int((W - 2 * PAD_X) / 2)
    if n <= 2 * bins:
        return list(enumerate(values))
    out = []
    for k in range(bins):
        part = range(k * n // bins, (k + 1) * n // bins)
        keep = {min(part, key=values.__getitem__), max(part, key=values.__getitem__)}
        out += [(i, values[i]) for i in sorted(keep)]
    return out


def blocks(values: list[float]) -> str:
    """``▁▁▁█``: the series in eight levels of Unicode blocks, its own scale; a series longer
    than 24 points as 24 blocks, each the median of its share (a cell stays one short line)."""
    if len(values) > MAX_POINTS:
        from .. import stats
        n = len(values)
        values = [stats.median(values[k * n // MAX_POINTS:(k + 1) * n // MAX_POINTS]) for k in range(MAX_POINTS)]
    lo, hi = min(values), max(values)
    if hi == lo:
        return BLOCKS[0] * len(values)
    return "".join(BLOCKS[min(7, int((v - lo) / (hi - lo) * 8))] for v in values)
