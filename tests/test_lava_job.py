"""`platperf lava job`: jobs LAVA's own strict schema accepts, and what their script does.

The schema check runs lava_common.schemas.validate (Debian lava-common) in the interpreter
Debian's lava-run uses; the job's script runs under plain `sh` here too, outside LAVA (no
lava-test-case on PATH), and its console output is ingested as a plain capture.
"""
from __future__ import annotations

import base64
import gzip
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import require_executable, require_probe

from platperf.lava.job import build_job, dump_job, load_template, shipped_templates
from platperf.probe_path import probe_arch
from platperf.records import read_stream, result_from_record
from platperf.runner.suite import builtin_suites, load_suite
from platperf.store import Store

PLATPERF = [sys.executable, "-m", "platperf"]
VALIDATE = """\
import sys, yaml
from lava_common.schemas import validate
for path in sys.argv[1:]:
    try:
        validate(yaml.load(open(path), Loader=yaml.CSafeLoader), strict=True)
        print("valid")
    except Exception as exc:
        print("invalid", " ".join(str(exc).split()))
"""
TINY_SUITE = """\
name = "tiny"
[[bench]]
kernel = "mem-latency"
size = ["16k"]
samples = 3
min_time = 0.01
mode = "both"
"""


def lava_python() -> str:
    """The interpreter Debian's lava-run runs under (lava-common is installed for it)."""
    first = Path(require_executable("lava-run", "Debian lava-dispatcher; make deps")).read_text().split("\n", 1)[0]
    return first[2:].strip().split()[0]


def validate(paths) -> list[str]:
    done = subprocess.run([lava_python(), "-c", VALIDATE, *map(str, paths)], capture_output=True,
                          text=True, check=True)
    return done.stdout.splitlines()


def job(*args) -> subprocess.CompletedProcess:
    return subprocess.run([*PLATPERF, "lava", "job", *map(str, args)], capture_output=True, text=True)


def test_every_shipped_template_and_suite_gives_a_job_lavas_strict_schema_accepts(tmp_path):
    require_probe()
    paths = []
    # every template with the largest suite, every suite on one template, one mode override
    matrix = {(t, "full", None) for t in shipped_templates()}
    matrix |= {("juno-r1", s, None) for s in builtin_suites()} | {("juno-r1", "quick", "serial")}
    for template, suite, mode in sorted(matrix, key=str):
        path = tmp_path / f"{template}-{suite}-{mode}.yaml"
        path.write_text(dump_job(build_job(load_suite(suite), load_template(template), label="v2.12",
                                           arch="aarch64", mode=mode)))
        paths.append(path)
    cli = tmp_path / "cli.yaml"   # and once as a person types it
    done = job("--suite", "full", "--device-type", "ssh", "--arch", "armv7", "--label", "v1", "-o", cli)
    assert done.returncode == 0, done.stderr
    assert validate([*paths, cli]) == ["valid"] * (len(paths) + 1)


def test_the_schema_check_can_fail(tmp_path):
    require_probe()
    good = tmp_path / "job.yaml"
    assert job("--device-type", "juno-r1", "--label", "x", "-o", good).returncode == 0
    data = yaml.load(good.read_text(), Loader=yaml.CSafeLoader)
    data["actions"][0]["deploy"]["flash_everything"] = True
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.dump(data, Dumper=yaml.CSafeDumper))
    assert validate([good, bad])[0] == "valid"
    assert validate([bad])[0].startswith("invalid extra keys not allowed")


def test_the_job_carries_the_probe_of_the_device_types_arch_and_the_suite_in_its_metadata(tmp_path):
    require_probe()
    done = job("--suite", "memory", "--device-type", "juno-r1", "--label", "v2.12")
    data = yaml.load(done.stdout, Loader=yaml.CSafeLoader)
    assert data["device_type"] == "juno-r1"
    assert data["metadata"] == {"platperf.suite": "memory", "platperf.version": "0.1.0",
                                "platperf.arch": "aarch64", "platperf.label": "v2.12"}
    assert [next(iter(a)) for a in data["actions"]] == ["deploy", "boot", "test"]
    script = gzip.decompress(base64.b64decode(secret(data, "PLATPERF_SCRIPT"))).decode()
    probe = gzip.decompress(base64.b64decode(secret(data, "PLATPERF_PROBE")))
    assert probe[:4] == b"\x7fELF" and probe[18] == 183      # e_machine EM_AARCH64
    assert "PLATPERF_ARCH=aarch64" in script and "PLATPERF_MACHINES='aarch64 arm64'" in script
    assert 'run mem-latency --cpus "$CPUS" --mode serial' in script


def secret(job: dict, name: str) -> str:
    """A value the job carries in its secrets, in pieces NAME_00, NAME_01, ..."""
    return "".join(value for key, value in sorted(job["secrets"].items()) if key.startswith(name + "_"))


def test_what_lava_keeps_of_the_definition_fits_its_4096_bytes_of_result_metadata():
    """LAVA records each test run as a result of its `lava` suite holding the definition's
    repository (lava_dispatcher's test shell), and keeps at most 4096 bytes of a result's
    metadata (lava_results_app); more sets the job's failure_comment."""
    require_probe()
    job = build_job(load_suite("full"), load_template("juno-r1"), label="v2.12")
    definition = job["actions"][-1]["test"]["definitions"][0]
    result = {"case": "0_platperf", "definition": "lava", "duration": "7200.00", "namespace": "common",
              "path": definition["path"], "repository": definition["repository"], "result": "pass",
              "revision": "unspecified", "uuid": "123456789_1.6.2.4.1"}
    assert len(yaml.safe_dump(result)) < 4096
    assert len(secret(job, "PLATPERF_PROBE")) > 100_000    # the probe is elsewhere
    # lava-run puts each secret in its environment: one string of 128 KiB or more, and no
    # program it starts (ssh, scp, qemu) would start
    assert all(len(k) + len(v) + 2 < 128 * 1024 for k, v in job["secrets"].items())


@pytest.mark.parametrize("args, message", [
    (["--device-type", "nosuch"], "no shipped template for device type 'nosuch' (shipped: am62xx-sk, juno-r1, qemu, ssh)"),
    (["--device-type", "ssh"], "names no arch; give --arch"),
    (["--device-type", "ssh", "--arch", "mips"], "unknown --arch 'mips'"),
    (["--device-type", "juno-r1", "--suite", "nosuch"], "unknown suite 'nosuch'"),
    (["--device-type", "juno-r1", "--priority", "urgent"], "--priority 'urgent'"),
    ([], "give --device-type"),
])
def test_bad_options_are_one_line_and_exit_2(args, message):
    done = job(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and message in done.stderr, done.stderr


def test_a_template_must_name_lava_deploy_and_boot_actions(tmp_path):
    bad = tmp_path / "board.yaml"
    bad.write_text("arch: aarch64\nactions:\n- flash: {}\n")
    done = job("--template", bad)
    assert done.returncode == 2 and "'actions' must be a list of LAVA deploy and boot actions" in done.stderr
    bad.write_text("arch: aarch64\nactoins: []\n")
    assert "unknown key(s) actoins" in job("--template", bad).stderr


def run_steps(job_file: Path, tmp_path: Path, env=None) -> str:
    """The job's test steps as LAVA runs them (run.sh: set -e, one step a line, in the
    definition's directory of the overlay, whose top holds the secrets file), without LAVA."""
    data = yaml.load(job_file.read_text(), Loader=yaml.CSafeLoader)
    steps = data["actions"][-1]["test"]["definitions"][0]["repository"]["run"]["steps"]
    overlay = tmp_path / "lava-1"
    test_dir = overlay / "0" / "tests" / "0_platperf"
    test_dir.mkdir(parents=True)
    (overlay / "secrets").write_text("".join(f"{k}={v}\n" for k, v in data["secrets"].items()))
    (test_dir / "run.sh").write_text("set -e\n" + "\n".join(steps) + "\n")
    done = subprocess.run(["sh", "run.sh"], capture_output=True, text=True, cwd=test_dir,
                          env={**os.environ, "TMPDIR": str(tmp_path), **(env or {})}, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_jobs_script_runs_under_plain_sh_and_its_console_output_ingests(tmp_path):
    require_probe()
    (tmp_path / "tiny.toml").write_text(TINY_SUITE)
    job_file = tmp_path / "job.yaml"
    assert job("--suite", tmp_path / "tiny.toml", "--device-type", "ssh", "--arch",
               probe_arch(platform.machine()), "-o", job_file).returncode == 0
    copy = tmp_path / "copy.jsonl"
    console = run_steps(job_file, tmp_path, {"PLATPERF_JSONL_COPY": str(copy)})
    assert "PLATPERF-LAVA-END" in console and "LAVA_SIGNAL" not in console
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("platperf.")] == []  # tidied up
    capture = tmp_path / "console.txt"
    capture.write_text(console)
    db = str(tmp_path / "r.db")
    done = subprocess.run([*PLATPERF, "ingest", "lava", capture, "--label", "plain", "--target", "board",
                           "--db", db], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    run = Store(db).runs()[-1]
    assert (run["target"], run["status"], run["label"]) == ("board", "complete", "plain")
    with copy.open() as f:
        written = sorted(result_from_record(r).samples for r in read_stream(f, "copy") if r["type"] == "result")
    assert sorted(r.samples for r in Store(db).results(run["id"])) == written


def test_a_job_for_another_architecture_says_so_and_ingest_reports_it(tmp_path):
    require_probe()
    other = "aarch64" if probe_arch(platform.machine()) != "aarch64" else "x86_64"
    job_file = tmp_path / "job.yaml"
    assert job("--device-type", "ssh", "--arch", other, "-o", job_file).returncode == 0
    console = run_steps(job_file, tmp_path)
    assert f"PLATPERF-ERROR this job carries the {other} probe but the device's uname -m says" in console
    capture = tmp_path / "console.txt"
    capture.write_text(console)
    done = subprocess.run([*PLATPERF, "ingest", "lava", capture, "--label", "x", "--db",
                           str(tmp_path / "r.db")], capture_output=True, text=True)
    assert done.returncode == 2
    assert "the job did not run the probe: this job carries the" in done.stderr
    assert not (tmp_path / "r.db").exists() or Store(str(tmp_path / "r.db")).runs() == []
