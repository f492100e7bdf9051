"""A published new side's own deltas (TF-A's ``(+x.xx%)``) beside platperf's, in a compare:
one line, and the keys where they disagree."""
from __future__ import annotations

from ...compare import annotations, keyed as compare
from ...records import key_text

MAX_LISTED = 40     # as the compare section (report.sections.compare)


def page_text(cmp: compare.Comparison) -> str:
    """What a published new side's own deltas say beside platperf's, in one line ("" when
    it prints none)."""
    judged = [r for r in cmp.rows if r.page]
    if not judged:
        return ""
    wrong = [r for r in judged if r.page.disagrees]
    if not wrong:
        return (f"The page's own deltas: all {len(judged)} agree with the change platperf finds "
                "for the same key.")
    counts = ", ".join(f"{sum(r.page.verdict == v for r in wrong)} {v}" for v in annotations.VERDICTS[1:]
                       if any(r.page.verdict == v for r in wrong))
    return (f"The page's own deltas disagree with platperf's for {len(wrong)} of {len(judged)} keys "
            f"({counts}; column Page): a page's delta that does not follow from its previous release "
            "(TF-A's script pairs rows by their position, platperf by key).")


def page_items(cmp: compare.Comparison) -> list[tuple[str, str]]:
    return [(key_text(r.key), r.page.said) for r in cmp.rows if r.page and r.page.disagrees][:MAX_LISTED]
