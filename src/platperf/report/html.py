"""HTML: one self-contained file, readable offline — inline CSS and SVG, no scripts, nothing
fetched. Every text from the store goes through ``html.escape``; plots are built escaped."""
from __future__ import annotations

import re
from html import escape

from .document import Document, Section, Table, cell_text, spans


def marked(text: str, markup: bool, whole: bool = False) -> str:
    """``text`` escaped (one line, shortened unless ``whole``), its ``literal`` spans in
    ``<code>`` when ``markup``."""
    text = cell_text(text, limit=None) if whole else cell_text(text)
    return "".join(f"<code>{escape(part)}</code>" if code else escape(part) for code, part in spans(text, markup))

STYLE = """
body{font-family:sans-serif;margin:2em auto;max-width:1100px;color:#222;line-height:1.4}
h1{border-bottom:2px solid #444}h2{border-bottom:1px solid #bbb;margin-top:2em}
table{border-collapse:collapse;margin:1em 0;font-size:13px}
caption{font-weight:bold;text-align:left;padding:4px 0}
th,td{border:1px solid #bbb;padding:3px 8px;text-align:left}th{background:#eee;text-align:center}
td.pic{font-size:11px;vertical-align:top}td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}td.bad{font-weight:bold;color:#a00}
.plot-figure{margin:1em 0}.plot-figure svg{max-width:100%;height:auto}figcaption{font-size:12px;color:#555}
nav ul{display:flex;flex-wrap:wrap;gap:2px 18px;list-style:none;padding:0;margin:0.5em 0}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}
dt{font-weight:bold}.wrap{overflow-x:auto}
#summary>p:first-of-type,#verdict>p:first-of-type{font-size:17px;font-weight:bold}
#summary>.wrap,#verdict>.wrap{display:inline-block;vertical-align:top;margin-right:2em;max-width:100%}
"""
# A figure, a change, a count: right-aligned so that digits line up (as report/terminal.py)
_NUMERIC = re.compile(r"^[-+]?[\d.,]+(e[-+]?\d+)?%?( [A-Za-zµ/]+)?$")
# A decision or a finding's level that must stand out (bold survives a grey-scale print)
_LOUD = ("bad", "REGRESSED", "regressed")


def _link(href: str, value) -> str:
    """A cell that links to another page (Table.links): the URL escaped as an attribute."""
    return f'<td><a href="{escape(href, quote=True)}">{escape(cell_text(value))}</a></td>'


def _picture(svg: str, value) -> str:
    """A cell drawn (Table.graphics): its picture over its text, the text's own Unicode
    sparkline left out."""
    text = cell_text(value).lstrip("▁▂▃▄▅▆▇█ ")
    return f'<td class="pic">{svg}<br>{escape(text)}</td>'


def _cell(value) -> str:
    text = cell_text(value)
    kind = "num" if _NUMERIC.match(text) else "bad" if text in _LOUD else ""
    return f'<td class="{kind}">{escape(text)}</td>' if kind else f"<td>{escape(text)}</td>"


def _slug(text: str, used: set) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", text.lower())[:60].strip("-") or "section"
    slug, n = base, 2
    while slug in used:
        slug, n = f"{base}-{n}", n + 1
    used.add(slug)
    return slug


def render_table(table: Table) -> str:
    out = ['<div class="wrap"><table>']
    if table.title:
        out.append(f"<caption>{marked(table.title, table.markup)}</caption>")
    out.append("<thead>" + "".join(f'<tr><th colspan="{len(table.headers)}">{escape(cell_text(text))}</th></tr>'
                                   for text in table.spans)
               + "<tr>" + "".join(f"<th>{marked(cell_text(h), table.markup)}</th>" for h in table.headers)
               + "</tr></thead><tbody>")
    for i, row in enumerate(table.rows):
        out.append("<tr>" + "".join(_picture(table.graphics[(i, j)], c) if (i, j) in table.graphics
                                    else _link(table.links[(i, j)], c) if (i, j) in table.links else _cell(c)
                                    for j, c in enumerate(row)) + "</tr>")
    out.append("</tbody></table></div>")
    if table.caption:
        out.append(f"<p>{escape(table.caption)}</p>")
    return "\n".join(out)


def _section(section: Section, level: int, used: set, out: list[str]):
    h = min(level, 6)
    out.append(f'<section id="{_slug(section.title, used)}"><h{h}>{marked(section.title, section.markup)}</h{h}>')
    for block in re.split(r"\n\s*\n", section.text or ""):
        if block.strip():
            out.append(f"<p>{marked(' '.join(block.split()), section.markup, whole=True)}</p>")
    if section.items:
        out.append("<dl>" + "".join(f"<dt>{escape(cell_text(n))}</dt><dd>{escape(cell_text(v))}</dd>"
                                    for n, v in section.items) + "</dl>")
    for plot in section.plots:
        caption = f"<figcaption>{escape(plot.caption)}</figcaption>" if plot.caption else ""
        numbers = f"<details><summary>The numbers</summary>{render_table(plot.data)}</details>" \
            if plot.data is not None else ""
        out.append(f'<figure class="plot-figure">{plot.svg}{caption}{numbers}</figure>')
    for t in section.tables:
        out.append(render_table(t))
    for sub in section.subsections:
        _section(sub, level + 1, used, out)
    out.append("</section>")


def render(doc: Document) -> str:
    used: set = set()
    body: list[str] = []
    for s in doc.sections:
        _section(s, 2, used, body)
    toc = "".join(f'<li><a href="#{slug}">{escape(cell_text(s.title))}</a></li>'
                  for s, slug in zip(doc.sections, _top_slugs(doc)))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(cell_text(doc.title))}</title><style>{STYLE}</style></head><body>"
            f"<h1>{escape(cell_text(doc.title))}</h1><nav><ul>{toc}</ul></nav>\n" + "\n".join(body)
            + "\n</body></html>\n")


def _top_slugs(doc: Document) -> list[str]:
    """The ids the walk above gives the top-level sections (same order, same rule)."""
    used: set = set()
    slugs = []

    def walk(section, top):
        slug = _slug(section.title, used)
        if top:
            slugs.append(slug)
        for sub in section.subsections:
            walk(sub, False)
    for s in doc.sections:
        walk(s, True)
    return slugs
