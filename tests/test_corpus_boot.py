"""Boot times as boards and machines printed them (tests/fixtures/corpus/boot): a board's whole
journal of one boot, the journal `Startup finished` lines and the systemd-analyze outputs of the
same 100 boots of an i.MX8MM board, and systemd-analyze outputs with minutes, with firmware and
loader, with an initrd and from a container.

Each file: how many boots it holds and some of them, written by hand from the file (seconds);
the system's boots only, one sample a boot, user managers' and containers' startups said and
left out; and the boots keyed by the media the import names, "not-reported" otherwise."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from platperf.cli import app
from platperf.ingest import Skipped

from corpus import by_key, entry, imported, said

NOT_REPORTED = {"media": "not-reported"}
PHASES = {"kernel", "userspace", "boot_time"}

# file, {metric: boots}, [(boot index, metric, seconds as printed)]
FILES = [
    # one boot's whole journal: 1243 lines, the system's Startup line at line 952
    ("imx8mm-boot-68.journal", {m: 1 for m in PHASES}, [
        (0, "kernel", 4.151), (0, "userspace", 11.046), (0, "boot_time", 15.198)]),
    # 300 lines: each boot a user manager's line, the system's, a second user manager's
    ("imx8mm-100-boots.journal", {m: 100 for m in PHASES}, [
        (0, "kernel", 4.155), (0, "userspace", 11.656), (0, "boot_time", 15.811),
        (1, "boot_time", 15.893), (23, "boot_time", 16.548),       # the slowest boot, its 24th
        (67, "boot_time", 15.198),                                  # boot 68, the whole journal's
        (71, "kernel", 4.124), (71, "userspace", 10.446),
        (71, "boot_time", 14.571),      # the line's own total: 4.124 + 10.446 would be 14.570
        (99, "kernel", 4.129), (99, "userspace", 11.926), (99, "boot_time", 16.055)]),
    # the same 100 boots as systemd-analyze time printed them, with their graphical.target
    ("imx8mm-100-boots.systemd-analyze", {**{m: 100 for m in PHASES}, "graphical.target": 100}, [
        (0, "boot_time", 15.811), (0, "graphical.target", 11.602), (1, "graphical.target", 11.724),
        (67, "graphical.target", 10.998), (71, "graphical.target", 10.395), (99, "boot_time", 16.055)]),
    ("archlinux-vm.systemd-analyze", {**{m: 1 for m in PHASES}, "graphical.target": 1}, [
        (0, "kernel", 1.491), (0, "userspace", 65.947), (0, "boot_time", 67.439),
        (0, "graphical.target", 65.569)]),
    # firmware and loader run before the kernel: boot_time is kernel + userspace, 35.704 the total
    ("dell-xps.systemd-analyze", {**{m: 1 for m in PHASES}, "firmware": 1, "loader": 1, "graphical.target": 1}, [
        (0, "firmware", 7.275), (0, "loader", 13.136), (0, "kernel", 2.803), (0, "userspace", 12.488),
        (0, "boot_time", 15.291), (0, "graphical.target", 12.408)]),
    # the container's startup (296ms, its target 275ms) is not a boot; the real machine's is
    ("systemd-manual.systemd-analyze", {**{m: 1 for m in PHASES}, "initrd": 1, "multi-user.target": 1}, [
        (0, "kernel", 2.584), (0, "initrd", 19.176), (0, "userspace", 47.847),
        (0, "boot_time", 69.608), (0, "multi-user.target", 47.820)]),
]


def boots(file: str, **options) -> dict:
    (results,) = imported("boot", file, **options).values()
    by_key(results)                          # one result a key: nothing re-keyed into another
    return {r.metric: r for r in results}


@pytest.mark.parametrize("file, counts, figures", FILES, ids=[f[0] for f in FILES])
def test_each_boot_is_one_sample_of_the_systems_boots(file, counts, figures):
    read = boots(file)
    assert {metric: len(res.samples) for metric, res in read.items()} == counts
    for i, metric, seconds in figures:
        assert read[metric].samples[i] == pytest.approx(seconds, abs=5e-7), (metric, i)
    for res in read.values():
        assert (res.benchmark, res.params, res.unit, res.direction) == ("boot-time", NOT_REPORTED, "s", "lower")


def test_the_boots_of_a_journal_and_of_systemd_analyze_are_the_same_boots():
    journal, analyze = boots("imx8mm-100-boots.journal"), boots("imx8mm-100-boots.systemd-analyze")
    for metric in PHASES:
        assert journal[metric].samples == analyze[metric].samples


@pytest.mark.parametrize("file, line, words", [
    ("imx8mm-boot-68.journal", 761, "2 user manager 'Startup finished' line(s)"),
    ("imx8mm-100-boots.journal", 1, "200 user manager 'Startup finished' line(s)"),
    ("systemd-manual.systemd-analyze", 1, "1 'Startup finished' line(s) without a (kernel) phase"),
])
def test_startups_that_are_not_boots_are_said_once_and_left_out(file, line, words):
    (left,) = said("boot", file)
    assert isinstance(left, Skipped) and left.where.endswith(f"{file}:{line}") and words in left.what


def test_files_with_only_boots_say_nothing_else():
    for file in ("imx8mm-100-boots.systemd-analyze", "archlinux-vm.systemd-analyze", "dell-xps.systemd-analyze"):
        assert said("boot", file) == [], file


def test_the_import_names_the_boot_media():
    read = boots("imx8mm-boot-68.journal", options={"media": "usb-ssd"})
    assert {res.params["media"] for res in read.values()} == {"usb-ssd"}
    assert read["boot_time"].samples == [15.198]


def platperf(*args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def reported(db, media: list[str]) -> str:
    journal = entry("boot", "imx8mm-100-boots.journal").local
    done = platperf("ingest", "systemd-analyze", journal, "--label", "board", *media, "--db", db)
    assert done.exit_code == 0, done.output
    assert "run 1 (board): 3 results from 1 file(s)" in done.output
    assert "not imported: " in done.output and "200 user manager" in done.output
    report = platperf("report", "board", "--db", db, "--format", "rst-csv")
    assert report.exit_code == 0, report.output
    return report.stdout


def test_a_boot_from_usb_ssd_is_reported_as_such_and_never_from_sd(tmp_path):
    text = reported(tmp_path / "u.db", ["--media", "usb-ssd"])
    assert "boot-time\\[media=usb-ssd\\] boot_time (s)" in text and "SD" not in text


def test_a_boot_whose_media_is_not_named_is_not_said_from_sd(tmp_path):
    text = reported(tmp_path / "n.db", [])
    assert "boot-time\\[media=not-reported\\] boot_time (s)" in text and "SD" not in text


def test_a_boot_from_sd_is_the_guides_boot_row(tmp_path):
    text = reported(tmp_path / "s.db", ["--media", "sd"])
    assert '"Linux boot time from SD with default rootfs (100 boot cycles)"' in text


@pytest.mark.parametrize("fmt, media, words", [
    ("cyclictest-json", "sd", "--media is for systemd-analyze only; cyclictest-json figures are not boots"),
    ("systemd-analyze", "usb ssd", "--media 'usb ssd': expected one word naming the boot media"),
])
def test_media_is_refused_in_one_line_where_it_means_nothing(tmp_path, fmt, media, words):
    journal = entry("boot", "imx8mm-boot-68.journal").local
    done = platperf("ingest", fmt, journal, "--label", "x", "--media", media, "--db", tmp_path / "r.db")
    assert done.exit_code == 2 and words in done.output
    assert len(done.output.strip().splitlines()) == 1


def test_a_journal_of_many_boots_is_read_line_by_line():
    """100 copies of one boot's whole journal (13 MB, 124,300 lines) fed line by line: memory
    holds the boots' figures, not the lines (counted by tracemalloc, not timed)."""
    import tracemalloc

    from platperf.ingest import systemd_analyze

    one = entry("boot", "imx8mm-boot-68.journal").local.read_text().splitlines()

    def journal():
        for _ in range(100):
            yield from one

    tracemalloc.start()
    try:
        read = list(systemd_analyze.read(journal(), "long.journal"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    boot_time = next(r for r in read if getattr(r, "metric", None) == "boot_time")
    assert boot_time.samples == [15.198] * 100
    assert peak < 1_000_000, peak
