"""How the probe reaches a LAVA board: the lab's file server, its git test-definition
repository, or inline in the job (the fallback), without LAVA.

`platperf lava definitions --out DIR` writes what the lab serves or commits; a job made with
--probe-url or --definitions-repo validates against LAVA's strict schema, stays under 16 KiB
for every shipped template and the largest suite, and its steps, run under plain `sh` as
LAVA's test shell runs them, fetch the files from 127.0.0.1 (or the repository's checkout) and
give the same console output as the inline job. Files of another platperf are refused on the
board in one line, which `ingest lava` reports.
"""
from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import require_executable, require_probe
from lab_files import FileServer
from test_lava_job import TINY_SUITE, validate

from platperf.lava.delivery import DEFINITION_FILE, from_options
from platperf.lava.job import build_job, dump_job, load_template, shipped_templates
from platperf.probe_path import ARCHES, find_probe, probe_arch
from platperf.runner.suite import load_suite
from platperf.store import Store

PLATPERF = [sys.executable, "-m", "platperf"]
ARCH = probe_arch(platform.machine())
SMALL = 16 * 1024


def platperf(*args) -> subprocess.CompletedProcess:
    return subprocess.run([*PLATPERF, *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def definitions(tmp_path_factory) -> Path:
    """What `platperf lava definitions --out DIR` writes, for the lab to serve or commit."""
    require_probe()
    out = tmp_path_factory.mktemp("defs") / "platperf"
    done = platperf("lava", "definitions", "--out", out, "--arch", ARCH)
    assert done.returncode == 0, done.stderr
    return out


def test_definitions_writes_the_definition_platperfs_files_and_the_probes(tmp_path):
    require_probe()
    (tmp_path / "out" / "other.yaml").parent.mkdir()
    (tmp_path / "out" / "other.yaml").write_text("a lab's own test\n")
    done = platperf("lava", "definitions", "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    have = [a for a in ARCHES if _has_probe(a)]
    names = {p.name for p in (tmp_path / "out").iterdir()}
    assert names == {"other.yaml", DEFINITION_FILE, "device.sh", "snapshot.sh", "cases.awk", "SHA256SUMS",
                     "README.md", *(f"platperf-probe-{a}" for a in have)}
    assert done.stdout.startswith(f"wrote {len(names) - 1} files to {tmp_path / 'out'} (")
    assert (tmp_path / "out" / "other.yaml").read_text() == "a lab's own test\n"    # left alone
    for arch in have:
        probe = tmp_path / "out" / f"platperf-probe-{arch}"
        assert probe.read_bytes() == find_probe(arch).read_bytes() and os.access(probe, os.X_OK)
    sums = dict(reversed(line.split("  ")) for line in (tmp_path / "out" / "SHA256SUMS").read_text().splitlines())
    assert len(sums) == len(names) - 3          # not itself, the README or other.yaml
    assert all(hashlib.sha256((tmp_path / "out" / n).read_bytes()).hexdigest() == s for n, s in sums.items())
    definition = yaml.safe_load((tmp_path / "out" / DEFINITION_FILE).read_text())
    assert definition["metadata"]["format"] == "Lava-Test Test Definition 1.0"
    assert not any("PLATPERF_PROBE" in step for step in definition["run"]["steps"])


def _has_probe(arch) -> bool:
    try:
        find_probe(arch)
        return True
    except Exception:
        return False


@pytest.mark.parametrize("args, message", [
    (["--probe-url", "http://lab/x", "--definitions-repo", "file:///x"], "give --probe-url or --definitions-repo, not both"),
    (["--probe-url", "ftp://lab/platperf"], "--probe-url 'ftp://lab/platperf': give the http:// or https:// URL"),
    (["--definitions-path", "p/platperf.yaml"], "--definitions-path and --definitions-branch go with --definitions-repo"),
    (["--definitions-repo", "file:///x", "--definitions-path", "../platperf.yaml"], "--definitions-path '../platperf.yaml'"),
])
def test_bad_delivery_options_are_one_line_and_exit_2(args, message):
    done = platperf("lava", "job", "--device-type", "juno-r1", *args)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and message in done.stderr, done.stderr


def test_definitions_refuses_an_unknown_arch(tmp_path):
    done = platperf("lava", "definitions", "--out", tmp_path, "--arch", "mips")
    assert done.returncode == 2 and done.stderr == "platperf: error: unknown --arch 'mips' (valid: x86_64, aarch64, armv7)\n"


FORMS = {"url": dict(probe_url="https://files.lab/platperf-0.1.0/"),
         "git": dict(repository="https://git.lab/lava-tests.git", path="platperf/platperf.yaml", branch="v0.1")}


def test_small_jobs_validate_and_stay_under_16_kib_for_every_template_with_the_largest_suite(tmp_path):
    require_probe()
    paths = []
    for form, options in FORMS.items():
        for template in shipped_templates():
            job = build_job(load_suite("full"), load_template(template), label="v2.12", arch="aarch64",
                            delivery=from_options(**options))
            text = dump_job(job)
            assert len(text) < SMALL, (form, template, len(text))
            assert "PLATPERF_PROBE_00" not in job["secrets"]
            paths.append(tmp_path / f"{form}-{template}.yaml")
            paths[-1].write_text(text)
    assert validate(paths) == ["valid"] * len(paths)
    git = yaml.safe_load(paths[-1].read_text())["actions"][-1]["test"]["definitions"]
    assert git == [{"from": "git", "repository": "https://git.lab/lava-tests.git", "path": "platperf/platperf.yaml",
                    "name": "platperf", "history": False, "branch": "v0.1"}]


def test_the_inline_job_says_its_size_and_how_to_make_it_small_and_a_small_one_says_nothing(tmp_path):
    require_probe()
    done = platperf("lava", "job", "--device-type", "juno-r1", "--suite", "full", "-o", tmp_path / "inline.yaml")
    assert done.returncode == 0
    note, wrote = done.stderr.splitlines()
    size = (tmp_path / "inline.yaml").stat().st_size
    assert size > 500 * 1024
    assert note == (f"platperf: note: the job carries the probe inline: {size // 1024} KiB, which LAVA keeps "
                    "twice; for a job of a few KB serve `platperf lava definitions --out DIR` and give "
                    "--probe-url URL or --definitions-repo GIT_URL (docs/lava.md)")
    done = platperf("lava", "job", "--device-type", "juno-r1", "--suite", "full", "--probe-url",
                    "https://files.lab/platperf", "-o", tmp_path / "small.yaml")
    small = (tmp_path / "small.yaml").stat().st_size
    assert small < SMALL
    assert done.returncode == 0 and done.stderr == f"wrote {tmp_path / 'small.yaml'} ({small // 1024} KiB)\n"


def run_job(job_file: Path, tmp_path: Path, repository: Path | None = None, path: str | None = None) -> str:
    """The job's test steps as LAVA's test shell runs them (set -e, one step a line, in the
    definition's directory of the overlay, whose top holds the secrets file): the inline
    definition's steps, or those of the repository's definition in its checkout."""
    data = yaml.load(job_file.read_text(), Loader=yaml.CSafeLoader)
    entry = data["actions"][-1]["test"]["definitions"][0]
    overlay = tmp_path / "lava-1"
    test_dir = overlay / "0" / "tests" / "0_platperf"
    if entry["from"] == "git":          # LAVA's clone of the repository (history: false)
        shutil.copytree(repository, test_dir)
        steps = yaml.safe_load((test_dir / entry["path"]).read_text())["run"]["steps"]
    else:
        test_dir.mkdir(parents=True)
        steps = entry["repository"]["run"]["steps"]
    (overlay / "secrets").write_text("".join(f"{k}={v}\n" for k, v in data["secrets"].items()))
    (test_dir / "run.sh").write_text("set -e\n" + "\n".join(steps) + "\n")
    done = subprocess.run(["sh", "run.sh"], capture_output=True, text=True, cwd=test_dir,
                          env={**os.environ, "TMPDIR": str(tmp_path), "PATH": path or os.environ["PATH"]},
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def ingest_console(console: str, tmp_path: Path) -> subprocess.CompletedProcess:
    capture = tmp_path / "console.txt"
    capture.write_text(console)
    return platperf("ingest", "lava", capture, "--label", "plain", "--target", "board", "--db", tmp_path / "r.db")


def stored_keys(tmp_path: Path) -> set:
    store = Store(str(tmp_path / "r.db"))
    run = store.runs()[-1]
    assert run["status"] == "complete"
    return {(r.benchmark, r.params_key, r.cpu, r.mode, r.metric, r.unit, len(r.samples))
            for r in store.results(run["id"])}


def make_job(tmp_path: Path, *options) -> Path:
    (tmp_path / "tiny.toml").write_text(TINY_SUITE)
    job_file = tmp_path / "job.yaml"
    done = platperf("lava", "job", "--suite", tmp_path / "tiny.toml", "--device-type", "ssh", "--arch", ARCH,
                    *options, "-o", job_file)
    assert done.returncode == 0, done.stderr
    return job_file


def test_every_form_gives_the_inline_jobs_results(definitions, tmp_path):
    """The same suite, its probe from the job, the file server or the repository's checkout:
    the same figures stored (keys, units and sample counts; the values are new measurements)."""
    keys = {}
    with FileServer(definitions.parent) as server:
        for form, options in {"inline": [], "url": ["--probe-url", f"{server.url}/platperf/"],
                              "git": ["--definitions-repo", "https://git.lab/t.git", "--definitions-path",
                                      f"platperf/{DEFINITION_FILE}"]}.items():
            work = tmp_path / form
            work.mkdir()
            console = run_job(make_job(work, *options), work, repository=definitions.parent)
            assert "PLATPERF-ERROR" not in console and "PLATPERF-LAVA-END" in console
            done = ingest_console(console, work)
            assert done.returncode == 0, done.stderr
            keys[form] = stored_keys(work)
        fetched = {path for path, code in server.requests if code == 200}
    assert len(keys["inline"]) == 2 * 2 * len(_online_cpus())      # metrics x modes x CPUs
    assert keys["url"] == keys["inline"] == keys["git"]
    assert fetched == {f"/platperf/{name}" for name in ("device.sh", "snapshot.sh", "cases.awk",
                                                         f"platperf-probe-{ARCH}")}


def test_a_busybox_board_downloads_with_wget(definitions, tmp_path):
    """A board with busybox alone (no curl): its wget, sha256sum, sh and awk run the job."""
    busybox = require_executable("busybox", "Debian busybox")
    applets = subprocess.run([busybox, "--list"], capture_output=True, text=True, check=True).stdout.split()
    assert "wget" in applets and "curl" not in applets
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for applet in applets:
        (bin_dir / applet).symlink_to(busybox)
    with FileServer(definitions.parent) as server:
        console = run_job(make_job(tmp_path, "--probe-url", f"{server.url}/platperf"), tmp_path, path=str(bin_dir))
        fetched = [path for path, code in server.requests if code == 200]
    assert "PLATPERF-ERROR" not in console and "PLATPERF-LAVA-END" in console, console[-2000:]
    assert fetched == [f"/platperf/{name}" for name in ("device.sh", "snapshot.sh", "cases.awk",
                                                         f"platperf-probe-{ARCH}")]
    done = ingest_console(console, tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(stored_keys(tmp_path)) == 2 * 2 * len(_online_cpus())


def _online_cpus() -> list[int]:
    from platperf.machine.sysroot import parse_cpu_list
    return parse_cpu_list(Path("/sys/devices/system/cpu/online").read_text())


def refused(console: str, tmp_path: Path) -> str:
    """The PLATPERF-ERROR line of a job that ran nothing, and ingest's exit 2 naming it."""
    errors = [line for line in console.splitlines() if line.startswith("PLATPERF-ERROR ")]
    assert len(errors) == 1 and "PLATPERF-JSONL-BEGIN" not in console, console
    done = ingest_console(console, tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "the job did not run the probe: " + errors[0][len("PLATPERF-ERROR "):] in done.stderr
    return errors[0]


def test_files_of_another_platperf_are_refused_on_the_board(definitions, tmp_path):
    stale = tmp_path / "served" / "platperf"
    shutil.copytree(definitions, stale)
    with (stale / "device.sh").open("a") as f:
        f.write("# another version\n")
    with FileServer(stale.parent) as server:
        error = refused(run_job(make_job(tmp_path, "--probe-url", f"{server.url}/platperf"), tmp_path), tmp_path)
    assert error == (f"PLATPERF-ERROR platperf's files from {server.url}/platperf are not those of platperf "
                     "0.1.0, which made this job (sha256); serve there what `platperf lava definitions "
                     "--out DIR` of platperf 0.1.0 writes")


def test_a_probe_of_another_platperf_is_refused_on_the_board(definitions, tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(definitions, repo)
    (repo / f"platperf-probe-{ARCH}").write_bytes(find_probe(ARCH).read_bytes() + b"\0")
    job_file = make_job(tmp_path, "--definitions-repo", "https://git.lab/t.git")
    error = refused(run_job(job_file, tmp_path, repository=repo), tmp_path)
    assert error == ("PLATPERF-ERROR the probe in the test-definition repository https://git.lab/t.git is not "
                     "the one this job names (sha256); commit there what `platperf lava definitions --out DIR` "
                     "of platperf 0.1.0 writes, or name its branch with --definitions-branch")


def test_a_file_the_lab_does_not_serve_is_said_by_its_url(definitions, tmp_path):
    with FileServer(definitions) as server:      # the definitions are one directory further down
        error = refused(run_job(make_job(tmp_path, "--probe-url", f"{server.url}/platperf"), tmp_path), tmp_path)
    assert error.startswith(f"PLATPERF-ERROR cannot download {server.url}/platperf/device.sh: ")
    if shutil.which("curl"):
        assert error.endswith("curl: (22) The requested URL returned error: 404"), error


def test_an_arch_the_repository_lacks_is_said_with_what_to_commit(definitions, tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(definitions, repo)
    (repo / f"platperf-probe-{ARCH}").unlink()
    error = refused(run_job(make_job(tmp_path, "--definitions-repo", "https://git.lab/t.git"), tmp_path,
                            repository=repo), tmp_path)
    assert error == (f"PLATPERF-ERROR no platperf-probe-{ARCH} in the test-definition repository "
                     "https://git.lab/t.git; commit there what `platperf lava definitions --out DIR` of "
                     "platperf 0.1.0 writes, or name its branch with --definitions-branch")
