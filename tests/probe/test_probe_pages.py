"""--pages: what backs the memory kernels' buffers, and the record of what each result got.

auto (the default) and huge ask the kernel for transparent huge pages, 4k asks for none
(LMBench's malloc'd buffers). Every mem-latency and mem-bandwidth result says what it got
in ``pages`` (docs/results-format.md), read from the probe's own /proc/self/smaps; the
tests check it against smaps read from outside while the probe runs. No timing asserted.
"""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from test_probe_functional import SMALL, command

BACKINGS = ("huge", "4k", "mixed", "unknown")
MIB = 1 << 20


def thp_mode() -> str:
    """This kernel's THP setting: always, madvise or never ('never' when absent)."""
    path = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if not path.exists():
        return "never"
    return re.search(r"\[(\w+)\]", path.read_text()).group(1)


def results(stdout: str) -> list[dict]:
    return [r for r in map(json.loads, stdout.splitlines()) if r["type"] == "result"]


def run(build: str, *args: str) -> list[dict]:
    proc = subprocess.run([*command(build), "run", *args, *SMALL], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return results(proc.stdout)


def largest_huge_mapping(pid: int) -> int:
    """AnonHugePages of the process's mapping that has the most, bytes (0 once it exited)."""
    try:
        text = Path(f"/proc/{pid}/smaps").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return 0
    return max((int(kb) * 1024 for kb in re.findall(r"^AnonHugePages:\s+(\d+) kB", text, re.M)), default=0)


@pytest.mark.parametrize("pages", ["auto", "huge", "4k"])
def test_the_recorded_backing_is_what_smaps_shows_from_outside(pages):
    """An 8 MiB ring measured for about a second while this test reads the probe's smaps:
    the huge pages the record claims are there, and 4k gets none."""
    if pages == "huge" and thp_mode() == "never":
        pytest.skip("this kernel offers no transparent huge pages: --pages huge is refused (tested below)")
    proc = subprocess.Popen([*command("native"), "run", "mem-latency", "--size", "8m", "--cpus", "0",
                             "--samples", "4", "--min-time", "0.2", "--pages", pages],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = 0
    while proc.poll() is None:
        seen = max(seen, largest_huge_mapping(proc.pid))
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    found = results(stdout)
    assert found
    for res in found:
        got = res["pages"]
        assert got["asked"] == pages
        assert got["bytes"] >= 8 * MIB
        if pages == "4k" or thp_mode() == "never":
            assert (got["backing"], got["huge_bytes"]) == ("4k", 0)
            assert seen == 0
        else:
            # fragmented memory may leave part of the ring in 4 KiB pages; what was got is
            # recorded, and it is what smaps showed
            assert got["backing"] in ("huge", "mixed")
            assert 0 < got["huge_bytes"] <= seen


def test_mem_bandwidth_records_the_backing_of_all_its_buffers():
    found = run("native", "mem-bandwidth", "--kernel", "rd,cp", "--size", "4m", "--pages", "4k")
    assert {r["params"]["kernel"] for r in found} == {"rd", "cp"}
    for res in found:
        assert res["pages"]["backing"] == "4k"
        # cp has two buffers, each skewed: they span more than twice the size
        nbuf = 2 if res["params"]["kernel"] == "cp" else 1
        assert res["pages"]["bytes"] > nbuf * 4 * MIB


def test_huge_pages_are_counted_whole_against_the_memory_cap():
    """A 4 KiB ring takes a whole 2 MiB page unless --pages 4k: the cap says so up front."""
    cmd = [*command("native"), "run", "mem-latency", "--size", "4k", "--max-memory", "1m", *SMALL]
    refused = subprocess.run([*cmd, "--pages", "auto"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stdout == ""
    assert "--max-memory '1m'" in refused.stderr and "2.0 MiB" in refused.stderr
    assert subprocess.run([*cmd, "--pages", "4k"], capture_output=True, text=True, timeout=60).returncode == 0


@pytest.mark.parametrize("value", ["", "2m", "HUGE", "auto,4k"])
def test_a_bad_pages_value_is_refused_with_the_valid_ones(value):
    proc = subprocess.run([*command("native"), "run", "mem-latency", "--pages", value, *SMALL],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip() == f"platperf-probe: --pages '{value}' is not valid (valid: auto|4k|huge)"


def test_pages_is_named_in_the_usage_and_among_the_valid_options():
    usage = subprocess.run([*command("native"), "run", "--help"], capture_output=True, text=True).stdout
    assert "--pages auto|4k|huge" in usage
    proc = subprocess.run([*command("native"), "run", "mem-latency", "--page", "4k"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--pages" in proc.stderr


@pytest.mark.parametrize("build", ["aarch64", "armv7"])
@pytest.mark.parametrize("pages", ["auto", "4k"])
def test_pages_under_qemu_user(build, pages):
    """Functional on the cross builds: the option parses and every result says what it got
    (qemu-user passes no huge page through, so auto falls back to 4 KiB pages, and says so)."""
    found = run(build, "mem-latency", "--size", "8k,64k", "--cpus", "0", "--pages", pages)
    assert len(found) == 4   # two sizes, ns and cycles
    for res in found:
        assert res["pages"]["asked"] == pages
        assert res["pages"]["backing"] in BACKINGS
        if pages == "4k":
            assert res["pages"]["backing"] in ("4k", "unknown")
