"""The reference documents as published (TF-A's PSCI page, TI's performance guide, the Agilex
5 cluster-latency study), read from ``../shared/reference`` beside the checkout.

A page copied out of a browser or a mail is the same page: its titles wrapped at any word
and continued without indentation, its table bodies not indented, tabs for spaces, its
non-ASCII letters (the µ of a unit) lost or turned into ``?``. Each importer reads such a
copy to the same results as the page, or refuses it with one line: never fewer tables, never
other keys, in silence.
"""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from platperf.ingest import FORMATS, IngestError, Skipped
from platperf.records import Result

from reference_tables import AGILEX, TFA, TI, reference

PAGES = {"tfa-rst": TFA, "rst-csv-table": TI, "latency-table": AGILEX}
_DIRECTIVE = re.compile(r"^(\s*)(\.\. (?:csv-)?table::) (.*)$")


def wrap_titles(text: str, at: int, indent: str) -> str:
    """Every directive title broken after its ``at``-th word (counted round), the rest on a
    line of its own, indented by ``indent``."""
    out = []
    for line in text.splitlines():
        m = _DIRECTIVE.match(line)
        words = m.group(3).split() if m else []
        if len(words) < 2:
            out.append(line)
            continue
        cut = at % (len(words) - 1) + 1
        out.append(f"{m.group(1)}{m.group(2)} {' '.join(words[:cut])}")
        out.append(f"{m.group(1)}{indent}{' '.join(words[cut:])}")
    return "\n".join(out) + "\n"


def unindent(text: str) -> str:
    return "\n".join(line.lstrip() for line in text.splitlines()) + "\n"


def lose_non_ascii(text: str, into: str) -> str:
    return re.sub(r"[^\x00-\x7f]", into, text)


def tabs(text: str) -> str:
    return re.sub(r" {2,}", "\t", text)


def everything(fmt: str):
    """The format's parser giving all it reads: results and the cells it keeps as words."""
    module = FORMATS[fmt].module
    return lambda text, name: [item for item in module.read(text.splitlines(), name) if not isinstance(item, Skipped)]


@st.composite
def copies(draw, text: str) -> tuple[str, list[str]]:
    """``text`` as a copy may make it: some of the four changes, in any order."""
    steps = draw(st.lists(st.sampled_from(["wrap", "unindent", "ascii", "tabs"]), min_size=1, max_size=4,
                          unique=True))
    done = []
    for step in steps:
        if step == "wrap":
            at, indent = draw(st.integers(0, 12)), draw(st.sampled_from(["", "        ", "\t"]))
            text = wrap_titles(text, at, indent)
            done.append(f"wrap after word {at}, indent {indent!r}")
        elif step == "unindent":
            text = unindent(text)
            done.append("unindent")
        elif step == "ascii":
            into = draw(st.sampled_from(["", "?", "\ufffd"]))
            text = lose_non_ascii(text, into)
            done.append(f"non-ASCII -> {into!r}")
        else:
            text = tabs(text)
            done.append("tabs")
    return text, done


LINES = ("source", "table", "where")     # where a copy moves them


def figures(items) -> list:
    """What an import keeps, where it was read left out: its results, and the cells it keeps
    as words (``n/a``, the boards' descriptions)."""
    def kept(fields: dict) -> tuple:
        return tuple(sorted((k, repr(v)) for k, v in fields.items() if k not in LINES))
    def words(fields: dict) -> tuple:
        # a cell of words keeps what the copy says: one that lost a non-ASCII character (the
        # study's non-breaking space in "DDR4 with ECC", into nothing, "?" or U+FFFD) has lost
        # it; the rest of its words are the same
        return kept({k: re.sub(r"[\s?\ufffd]|[^\x00-\x7f]", "", v) if isinstance(v, str) else v
                     for k, v in fields.items()})
    return sorted([(r.key, tuple(r.samples), kept(r.extra)) if isinstance(r, Result) else ((), (), words(vars(r)))
                   for r in items], key=repr)


@pytest.mark.parametrize("fmt", sorted(PAGES))
def test_a_copied_page_reads_as_the_page_or_is_refused(fmt):
    page = reference(PAGES[fmt]).read_text()
    parse = everything(fmt)
    want = figures(parse(page, "page"))
    assert want

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                     HealthCheck.data_too_large])
    @given(copies(page))
    def check(copy):
        text, done = copy
        try:
            got = figures(parse(text, "copy"))
        except IngestError:
            return
        assert got == want, f"{fmt} after {done}: {len(got)} figures instead of {len(want)}"
    check()


@pytest.mark.parametrize("fmt", sorted(PAGES))
def test_the_copy_the_issue_names_reads_whole(fmt):
    """Titles wrapped and continued flush left, bodies flush left, the µ lost: the same
    figures as the page (the TF-A page used to give 42 per release instead of 96)."""
    page = reference(PAGES[fmt]).read_text()
    copy = lose_non_ascii(unindent(wrap_titles(page, 3, "")), "")
    parse = everything(fmt)
    assert figures(parse(copy, "copy")) == figures(parse(page, "page"))
