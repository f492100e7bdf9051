"""LAVA jobs the size labs expect, run by a real LAVA lab (tests/lava_server.py).

The same suite is submitted three times with `platperf lava submit --wait` on the lab's `ssh`
device: the probe inline in the job (the fallback), from the lab's file server (--probe-url:
Python's http.server on 127.0.0.1 serving what `platperf lava definitions` wrote, which the
board downloads), and from its git test-definition repository (--definitions-repo: a file://
repository the lava-worker clones into the job's overlay). Each must run to the inline job's
results; the small ones must keep their definition, and lava-server's REST view of the job
(GET /api/v0.2/jobs/ID/, which holds the definition twice), under 16 KiB.
"""
from __future__ import annotations

import json
import platform
import statistics
import urllib.request
from dataclasses import dataclass

import pytest

from conftest import require_module, require_probe
from lab_files import FileServer, git_repository
from lava_server import SSH_DEVICE
from test_lava_run import TINY_SUITE
from test_lava_submit import lavacli, platperf, rest, suite_file

from platperf.probe_path import probe_arch
from platperf.store import Store

ARCH = probe_arch(platform.machine())
SMALL = 16 * 1024


@dataclass
class Job:
    form: str
    job_id: int
    db: str
    definition_bytes: int       # the definition as lava-server keeps it
    rest_bytes: int             # GET /api/v0.2/jobs/ID/


@pytest.fixture(scope="module")
def lab_files(tmp_path_factory):
    """The lab's file server and git repository, holding what `platperf lava definitions` wrote."""
    require_probe()
    work = tmp_path_factory.mktemp("lab-files")
    done = platperf(["lava", "definitions", "--out", work / "served" / "platperf", "--arch", ARCH], None)
    assert done.returncode == 0, done.stderr
    repository = git_repository(work / "served" / "platperf", work / "lava-tests.git", subdir="platperf")
    with FileServer(work / "served") as server:
        yield server, repository


@pytest.fixture(scope="module")
def jobs(lava_lab, lab_files, tmp_path_factory) -> dict[str, Job]:
    """The tiny suite submitted with --wait and stored, once per form."""
    require_module("lavacli")
    server, repository = lab_files
    work = tmp_path_factory.mktemp("lava-small")
    env = lava_lab.identity(work / "config")
    forms = {"inline": [], "url": ["--probe-url", f"{server.url}/platperf/"],
             "git": ["--definitions-repo", repository, "--definitions-path", "platperf/platperf.yaml"]}
    made = {}
    for form, options in forms.items():
        db = str(work / f"{form}.db")
        done = platperf(["lava", "submit", "--suite", suite_file(work, TINY_SUITE), "--device-type", "ssh",
                         "--arch", ARCH, "--label", f"small-{form}", "--identity", "lab", "--wait",
                         "--poll", "0.5", "--db", db, *options], env)
        assert done.returncode == 0, done.stderr + lava_lab.log_tail("worker")
        job_id = int(done.stdout.split()[1])
        with urllib.request.urlopen(f"{lava_lab.url}/api/v0.2/jobs/{job_id}/", timeout=60) as answer:
            body = answer.read()
        made[form] = Job(form, job_id, db, len(json.loads(body)["definition"].encode()), len(body))
    print("\nLAVA job sizes (the tiny suite on ssh01): form, definition bytes, REST view bytes")
    for job in made.values():
        print(f"  {job.form:6} {job.definition_bytes:>9,} {job.rest_bytes:>9,}")
    return made


def stored(job: Job) -> dict:
    """{(benchmark, params, cpu, mode, metric, unit): sample count} of the job's stored run."""
    store = Store(job.db)
    run = store.runs()[-1]
    assert (run["status"], run["target"], run["label"]) == ("complete", SSH_DEVICE, f"small-{job.form}")
    assert run["meta"]["lava"]["job_id"] == job.job_id
    return {(r.benchmark, r.params_key, r.cpu, r.mode, r.metric, r.unit): r for r in store.results(run["id"])}


def test_every_form_runs_to_the_inline_jobs_results(lava_lab, jobs):
    cases = {}
    for form, job in jobs.items():
        answer = rest(lava_lab, f"jobs/{job.job_id}/")
        assert (answer["health"], answer["failure_comment"]) == ("Complete", None), form
        cases[form] = {c["name"]: c for c in rest(
            lava_lab, f"jobs/{job.job_id}/tests/?suite__name=0_platperf&limit=500")["results"]}
        results = stored(job)
        assert len(results) == 16, form
        for res in results.values():      # LAVA's results pages show the stored figures
            name = "_".join([res.benchmark, *map(str, res.params.values()), f"cpu{res.cpu}", res.mode, res.metric])
            assert float(cases[form][name]["measurement"]) == pytest.approx(statistics.median(res.samples), rel=1e-6)
    inline = {key: len(r.samples) for key, r in stored(jobs["inline"]).items()}
    for form in ("url", "git"):
        assert {key: len(r.samples) for key, r in stored(jobs[form]).items()} == inline
        assert set(cases[form]) == set(cases["inline"])
        assert all(c["result"] == "pass" for c in cases[form].values())


def test_a_small_jobs_definition_and_rest_view_stay_under_16_kib(jobs):
    inline = jobs["inline"]
    # before: the probe in the secrets, and the definition twice in the REST view
    assert inline.definition_bytes > 500 * 1024 and inline.rest_bytes > 2 * inline.definition_bytes
    for form in ("url", "git"):
        assert jobs[form].definition_bytes < SMALL, form
        assert jobs[form].rest_bytes < SMALL, form


def test_the_board_downloaded_from_the_file_server_and_the_worker_cloned_the_repository(lava_lab, lab_files, jobs):
    server, repository = lab_files
    assert sorted(path for path, code in server.requests if code == 200) == sorted(
        f"/platperf/{name}" for name in ("cases.awk", "device.sh", f"platperf-probe-{ARCH}", "snapshot.sh"))
    with urllib.request.urlopen(f"{lava_lab.url}/api/v0.2/jobs/{jobs['git'].job_id}/logs/", timeout=60) as answer:
        log = answer.read().decode()
    assert f"Fetching tests from {repository}" in log


def test_the_full_suites_job_from_the_file_server_is_under_16_kib_on_the_lab(lava_lab, lab_files, tmp_path):
    """The largest built-in suite, as lava-server keeps it; canceled at once (it is not run)."""
    require_module("lavacli")
    server, _ = lab_files
    env = lava_lab.identity(tmp_path / "config")
    made = platperf(["lava", "job", "--suite", "full", "--device-type", "ssh", "--arch", ARCH, "--label", "full",
                     "--probe-url", f"{server.url}/platperf", "-o", tmp_path / "job.yaml"], env)
    assert made.returncode == 0, made.stderr
    job_id = int(lavacli(["jobs", "submit", tmp_path / "job.yaml"], env))
    try:
        with urllib.request.urlopen(f"{lava_lab.url}/api/v0.2/jobs/{job_id}/", timeout=60) as answer:
            body = answer.read()
    finally:
        lavacli(["jobs", "cancel", job_id], env)
        lavacli(["jobs", "wait", job_id, "--polling", "1"], env)
    definition = json.loads(body)["definition"]
    print(f"\nthe full suite from the file server: definition {len(definition.encode()):,} bytes, "
          f"REST view {len(body):,} bytes")
    assert "PLATPERF_SCRIPT_00" in definition and "PLATPERF_PROBE_00" not in definition
    assert len(definition.encode()) < SMALL and len(body) < SMALL
