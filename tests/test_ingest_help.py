"""`platperf ingest FORMAT --help` (or `platperf ingest --help FORMAT`): what that format reads,
an example of its input and what it refuses; `platperf ingest --help` still names every format."""
from __future__ import annotations

import inspect
import os
import subprocess
import sys
import types

import pytest

from platperf.cli.ingest_help import asked_format, format_help, summary
from platperf.ingest import (FORMATS, Format, cyclictest_json, latency_table, lmbench, oslat_json, rst_csv_table,
                             stream, systemd_analyze, tfa_rst, tftf_rt_instr)


def helped(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "platperf", "ingest", *args], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("name", ["cyclictest-json", "systemd-analyze"])
def test_a_formats_help_says_what_it_reads_its_example_and_what_it_refuses(name):
    text = helped(name, "--help")
    module = FORMATS[name].module
    assert text.startswith(f"Usage: platperf ingest {name} FILE... [OPTIONS]\n")
    assert inspect.cleandoc(module.__doc__).splitlines()[0] in text
    assert "Refused, in one line:" in text
    for line in module.EXAMPLE.strip().splitlines():
        assert f"  {line}" in text
    assert helped("--help", name) == text             # the other order says the same


def test_the_options_a_format_takes_are_named_with_it():
    assert "Options for this format: --media MEDIA" in helped("systemd-analyze", "-h")
    assert "Options for this format: none beyond the common ones" in helped("oslat-json", "--help")
    assert "--release WORD=RELEASE, --unit UNIT" in format_help("tfa-rst")


def test_every_format_has_a_help_with_an_example_or_says_it_has_none():
    for name, fmt in FORMATS.items():
        text = format_help(name)
        example = getattr(fmt.module, "EXAMPLE", None)
        if example:
            assert example.strip().splitlines()[0] in text, name
        else:
            assert "(this format has no example yet; see docs/ingest.md)" in text, name


def test_a_module_without_an_example_still_has_its_help(monkeypatch):
    bare = types.ModuleType("bare", "A format's reader.\n\nRefused: everything.")
    monkeypatch.setitem(FORMATS, "bare-format", Format(bare, "a bare format"))
    text = format_help("bare-format")
    assert "  A format's reader." in text and "  Refused: everything." in text
    assert "(this format has no example yet" in text


@pytest.mark.parametrize("module, name", [(cyclictest_json, "e.json"), (oslat_json, "e.json"),
                                          (systemd_analyze, "e.log"), (tftf_rt_instr, "e.log"),
                                          (tfa_rst, "e.rst"), (latency_table, "e.txt"), (lmbench, "e.log"),
                                          (stream, "e.txt"), (rst_csv_table, "e.rst")])
def test_the_examples_are_input_the_format_reads(module, name):
    results = module.parse(module.EXAMPLE, name)
    assert results and all(len(r.samples) == 1 for r in results)


def test_a_format_is_found_beside_the_help_option_only():
    helps = ("-h", "--help")
    assert asked_format(["oslat-json", "--help"], helps) == "oslat-json"
    assert asked_format(["--label", "v1", "lmbench", "-h"], helps) == "lmbench"
    assert asked_format(["oslat-json", "run.json"], helps) is None           # no help asked
    assert asked_format(["nothing", "--help"], helps) is None                # typer's own help
    assert asked_format(["oslat-json", "--", "--help"], helps) is None       # a file named --help


def test_ingest_help_still_lists_every_format_on_a_line_with_its_summary():
    lines = helped("--help").splitlines()
    for name, fmt in FORMATS.items():
        (line,) = [line for line in lines if line.split()[:1] == [name]]
        assert line.split(None, 1)[1] == summary(fmt, 80 - 4 - 17) and len(line) <= 80, line
        assert fmt.help.startswith(summary(fmt, 80).removesuffix(" ...")), name
    assert "platperf ingest FORMAT --help` says what FORMAT reads" in " ".join(" ".join(lines).split())
    assert "    systemd-analyze  systemd-analyze outputs or a board's journal" in lines
