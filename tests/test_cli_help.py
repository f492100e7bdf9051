"""Help that tells the truth: every command's --help as `platperf` prints it on an 80-column
terminal names its values (no type placeholders such as <str>), keeps each example command on
one line to copy whole, and lists what the code has (the suites directory)."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from platperf.runner.suite import builtin_suites

COMMANDS = [["run"], ["runs"], ["show"], ["report"], ["doctor"], ["compare"], ["history"], ["ingest"],
            ["interference"], ["targets"], ["targets", "add"], ["targets", "list"], ["targets", "remove"],
            ["targets", "check"], ["lava", "job"], ["lava", "submit"], ["site"]]


def help_text(*command: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "platperf", *command, "--help"], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def helps() -> dict:
    return {" ".join(c): help_text(*c) for c in COMMANDS}


def test_no_type_placeholders(helps):
    for name, text in helps.items():
        assert not re.search(r"<(str|int|float|path|list\[[a-z]+\])>|\b(TEXT|INTEGER|FLOAT)\b", text), name


def test_example_commands_stay_whole(helps):
    """Under 'Example(s):' each line is a whole command (or a # comment): a wrapped example
    would continue on a line of its own options, or break a file name at a hyphen."""
    seen = 0
    for name, text in helps.items():
        for block in re.findall(r"Examples?:\n((?:[ \t]+\S.*\n?)+)", text):
            for line in block.splitlines():
                assert line.strip().startswith(("platperf ", "sudo platperf ", "#")), (name, line)
                seen += 1
    assert seen >= 30
    assert "platperf ingest rst-csv-table am62x-guide.rst\n" in helps["ingest"]


def test_every_command_with_output_has_format_and_its_json_short_form(helps):
    for name in ("run", "runs", "show", "report", "doctor", "compare", "history", "interference",
                 "targets list", "targets check"):
        assert "-f, --format FORMAT" in helps[name] and "--json" in helps[name], name
        assert "Short for --format json." in helps[name], name


def test_run_lists_every_suite_of_the_suites_directory(helps):
    suites = builtin_suites()
    assert len(suites) == 6
    said = " ".join(helps["run"].split())
    assert f"A built-in suite: {', '.join(suites)}" in said
