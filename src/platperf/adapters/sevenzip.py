"""7-Zip's built-in benchmark (``7z b``): compression and decompression ratings in MIPS.

The ratings are those of the ``Avr:`` line (averaged over the dictionary sizes tested, up to
``2^dictionary`` bytes) and the ``Tot:`` line; ``passes`` is 7-Zip's own iteration count.
"""
from __future__ import annotations

from . import ToolFailed, number, result, run

TOOL = "7z"
BENCHMARK = "7zip"
PARAMS = {"dictionary": 22, "threads": 1, "passes": 1, "runs": 1, "binary": None}


def title(entry: dict) -> str:
    return f"7z b -md{entry['dictionary']} -mmt{entry['threads']}"


def measure(target, entry: dict, path: str) -> list:
    ratings: dict[str, list] = {}
    for _ in range(int(entry["runs"])):
        text = run(target, [path, "b", str(entry["passes"]), f"-md{entry['dictionary']}",
                            f"-mmt{entry['threads']}"], entry)
        for metric, value in parse(text).items():
            ratings.setdefault(metric, []).append(value)
    params = {"dictionary": int(entry["dictionary"]), "threads": int(entry["threads"])}
    return [result(BENCHMARK, params, metric, "MIPS", "higher", values)
            for metric, values in ratings.items()]


def parse(text: str) -> dict[str, float]:
    """{compress_rating, decompress_rating, total_rating} of ``7z b``'s Avr:/Tot: lines."""
    out = {}
    for line in text.splitlines():
        if line.startswith("Avr:") and "|" in line:
            left, right = (part.split() for part in line[4:].split("|"))
            if len(left) >= 4 and len(right) >= 4:
                out["compress_rating"] = number(left[3], "7-Zip's compression rating")
                out["decompress_rating"] = number(right[3], "7-Zip's decompression rating")
        elif line.startswith("Tot:"):
            fields = line[4:].split()
            if len(fields) >= 3:
                out["total_rating"] = number(fields[2], "7-Zip's total rating")
    if len(out) != 3:
        raise ToolFailed("7z b printed no Avr:/Tot: rating lines")
    return out
