"""`platperf lava submit` and `platperf ingest lava ID` against a real LAVA lab.

The lab (tests/lava_server.py) is Debian's lava-server 2023.01 with its scheduler, publisher
and a lava-worker whose `ssh` device is the session's sshd; the identity is written by the
real lavacli. Jobs run for real: LAVA deploys its overlay over ssh, runs the probe, records
each result, and platperf reads the job's state, test cases and log back from the server.
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

from conftest import require_module, require_probe

from lava_server import SSH_DEVICE
from test_lava_run import SLOW_SUITE, TINY_SUITE  # a quick suite; one whose 2nd command takes 20 s
from platperf.probe_path import probe_arch
from platperf.store import Store

PLATPERF = [sys.executable, "-m", "platperf"]


def platperf(args, env, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*PLATPERF, *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=600, **kwargs)


def lavacli(args, env) -> str:
    return subprocess.run([sys.executable, "-m", "lavacli", "-i", "lab", *map(str, args)], env=env,
                          check=True, capture_output=True, text=True, timeout=600).stdout


def rest(lab, path: str):
    with urllib.request.urlopen(f"{lab.url}/api/v0.2/{path}", timeout=60) as answer:
        return json.load(answer)


@pytest.fixture
def identity(lava_lab, tmp_path):
    """The environment of a person with the lavacli identity `lab` for the session's lab."""
    require_module("lavacli")
    return lava_lab.identity(tmp_path / "config")


def suite_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.toml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def finished_job(lava_lab, tmp_path_factory):
    """One `platperf lava submit --wait` of the tiny suite, run to its end: (done, job id, db)."""
    require_module("lavacli")
    require_probe()
    work = tmp_path_factory.mktemp("lava-submit")
    env = lava_lab.identity(work / "config")
    requests_before = len(lava_lab.access_log())
    done = platperf(["lava", "submit", "--suite", suite_file(work, TINY_SUITE), "--device-type", "ssh",
                     "--arch", probe_arch(platform.machine()), "--label", "lava-e2e", "--identity", "lab",
                     "--wait", "--poll", "0.5", "--db", work / "r.db"], env)
    assert done.returncode == 0, done.stderr + lava_lab.log_tail("worker")
    job_id = int(done.stdout.split()[1])
    return done, job_id, str(work / "r.db"), lava_lab.access_log()[requests_before:]


def test_submit_wait_stores_the_run_with_the_lava_job_id_device_and_url(lava_lab, finished_job):
    done, job_id, db, _ = finished_job
    url = f"{lava_lab.url}/scheduler/job/{job_id}"
    assert job_id >= lava_lab.first_job_id
    assert done.stdout.splitlines()[0] == f"job {job_id} {url}"
    assert "[ingest:lava], complete" in done.stdout
    note, *said = done.stderr.splitlines()
    assert note.startswith("platperf: note: the job carries the probe inline: ")     # the fallback
    assert said[0] == f"job {job_id}: Submitted"
    assert f"job {job_id}: Running on {SSH_DEVICE}" in said
    assert said[-1] == f"job {job_id}: Finished on {SSH_DEVICE}"
    run = Store(db).runs()[-1]
    assert (run["label"], run["target"], run["status"], run["suite"]) == ("lava-e2e", SSH_DEVICE, "complete", "tiny")
    assert run["meta"]["lava"] == {"job_id": job_id, "url": url, "device": SSH_DEVICE, "device_type": "ssh",
                                   "state": "Finished", "health": "Complete", "failure_comment": None}
    assert run["note"] == f"LAVA job {job_id} {url}"


def test_a_good_job_leaves_no_failure_comment_and_lavas_results_show_the_figures(lava_lab, finished_job):
    _, job_id, db, _ = finished_job
    job = rest(lava_lab, f"jobs/{job_id}/")
    assert (job["health"], job["failure_comment"]) == ("Complete", None)
    cases = {c["name"]: c for c in rest(lava_lab, f"jobs/{job_id}/tests/?suite__name=0_platperf&limit=500")["results"]}
    stored = Store(db).results(Store(db).runs()[-1]["id"])
    assert len(stored) == 16
    for res in stored:
        name = "_".join([res.benchmark, *map(str, res.params.values()), f"cpu{res.cpu}", res.mode, res.metric])
        assert float(cases[name]["measurement"]) == pytest.approx(statistics.median(res.samples), rel=1e-6)
        assert (cases[name]["unit"], cases[name]["result"]) == (res.unit, "pass")


def test_waiting_asks_for_the_jobs_state_not_its_definition(lava_lab, finished_job):
    _, job_id, _, requests = finished_job
    polls = [r.split() for r in requests if r.startswith("POST /RPC2 ")]
    assert len(polls) >= 3                                       # Submitted, Running, Finished
    assert all(int(size) < 4096 for *_, size in polls)           # kilobytes, not the job's 1.4 MB
    assert not any(r.startswith(f"GET /api/v0.2/jobs/{job_id}/ ") for r in requests)


def test_ingest_by_job_id_takes_the_label_from_the_jobs_metadata(lava_lab, finished_job, identity, db_url):
    _, job_id, _, _ = finished_job
    done = platperf(["ingest", "lava", job_id, "--identity", "lab", "--db", db_url], identity)
    assert done.returncode == 0, done.stderr
    store = Store(db_url)
    run = store.runs()[-1]
    assert (run["label"], run["suite"], run["meta"]["lava"]["job_id"]) == ("lava-e2e", "tiny", job_id)
    assert len(store.results(run["id"])) == 16


def test_lavas_refusal_and_a_bad_token_are_one_line_as_the_server_words_them(lava_lab, identity, tmp_path):
    require_probe()
    done = platperf(["lava", "submit", "--device-type", "juno-r1", "--identity", "lab"], identity)
    assert done.returncode == 2
    assert done.stderr == (f"platperf: error: LAVA {lava_lab.url} answered 400 to jobs/: "
                           "Devices unavailable: Device type 'juno-r1' is unavailable.\n")
    config = Path(identity["XDG_CONFIG_HOME"]) / "lavacli.yaml"
    config.write_text(config.read_text().replace(lava_lab.token, "wrong"))
    done = platperf(["lava", "submit", "--device-type", "ssh", "--arch", "aarch64", "--identity", "lab"], identity)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert (f"answered 403 to jobs/: Invalid token.; check the username and token of lavacli identity 'lab'"
            in done.stderr)
    done = platperf(["ingest", "lava", lava_lab.first_job_id, "--identity", "lab", "--db", tmp_path / "r.db"],
                    identity)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert ("answered 401 to scheduler.jobs.show: Invalid token; check the username and token of lavacli "
            "identity 'lab'") in done.stderr
    assert not (tmp_path / "r.db").exists()


def test_an_unknown_job_is_one_line(lava_lab, identity, tmp_path):
    done = platperf(["ingest", "lava", 99, "--identity", "lab", "--db", tmp_path / "r.db"], identity)
    assert done.returncode == 2
    assert done.stderr == (f"platperf: error: LAVA {lava_lab.url}: scheduler.jobs.show: "
                           "Job '99' was not found.\n")


def test_a_job_that_times_out_in_lava_is_stored_partial_with_lavas_reason(lava_lab, identity, tmp_path):
    """LAVA's own test timeout (15 s) cuts the second probe command short."""
    require_probe()
    job_file = tmp_path / "job.yaml"
    made = platperf(["lava", "job", "--suite", suite_file(tmp_path, SLOW_SUITE), "--device-type", "ssh",
                     "--arch", probe_arch(platform.machine()), "--label", "timeout", "-o", job_file], identity)
    assert made.returncode == 0, made.stderr
    job = yaml.load(job_file.read_text(), Loader=yaml.CSafeLoader)
    job["actions"][-1]["test"]["timeout"] = {"seconds": 15}     # a lab's short test timeout
    job_file.write_text(yaml.dump(job, Dumper=yaml.CSafeDumper))
    job_id = int(lavacli(["jobs", "submit", job_file], identity))
    lavacli(["jobs", "wait", job_id, "--polling", "1"], identity)
    db = tmp_path / "r.db"
    done = platperf(["ingest", "lava", job_id, "--identity", "lab", "--db", db], identity)
    assert done.returncode == 2 and "partial" in done.stdout
    assert len(done.stderr.splitlines()) == 1
    assert (f"is partial: LAVA job {job_id}: the job is incomplete: lava-test-shell timed out after 15 "
            "seconds; ") in done.stderr
    assert "the log holds 1 of the job's 2 probe commands" in done.stderr
    run = Store(str(db)).runs()[-1]
    assert (run["status"], run["label"], run["meta"]["lava"]["health"]) == ("partial", "timeout", "Incomplete")
    assert len(Store(str(db)).results(run["id"])) >= 2        # the first command's, at least


def test_a_job_canceled_while_it_runs_is_reported_with_lavas_reason(lava_lab, identity, tmp_path):
    require_probe()
    db = tmp_path / "r.db"
    submit = subprocess.Popen([*PLATPERF, "lava", "submit", "--suite", suite_file(tmp_path, SLOW_SUITE),
                               "--device-type", "ssh", "--arch", probe_arch(platform.machine()),
                               "--label", "canceled", "--identity", "lab", "--wait", "--poll", "0.5",
                               "--db", db], env=identity, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        job_id = int(submit.stdout.readline().split()[1])
        deadline = time.monotonic() + 120
        while b"PLATPERF-JSONL-END 1" not in log_of(lava_lab, job_id):     # the first command done
            assert time.monotonic() < deadline, lava_lab.log_tail("worker")
            time.sleep(0.5)
        lavacli(["jobs", "cancel", job_id], identity)
        out, err = submit.communicate(timeout=300)
    finally:
        if submit.poll() is None:
            submit.kill()
    assert submit.returncode == 2
    assert f"job {job_id}: Canceling" in err or f"job {job_id}: Finished on {SSH_DEVICE}" in err
    last = err.splitlines()[-1]
    assert last.startswith("platperf: error: run ") and "is partial: LAVA job" in last
    assert f"is partial: LAVA job {job_id}: the job was canceled; " in last
    run = Store(str(db)).runs()[-1]
    assert (run["status"], run["meta"]["lava"]["health"]) == ("partial", "Canceled")


def log_of(lab, job_id: int) -> bytes:
    try:
        with urllib.request.urlopen(f"{lab.url}/api/v0.2/jobs/{job_id}/logs/", timeout=60) as answer:
            return answer.read()
    except OSError:
        return b""


def test_an_unknown_identity_says_how_to_add_one(tmp_path):
    require_module("lavacli")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}
    subprocess.run([sys.executable, "-m", "lavacli", "identities", "add", "--uri", "http://127.0.0.1:9/RPC2",
                    "lab"], env=env, check=True, capture_output=True)
    done = platperf(["ingest", "lava", 1, "--identity", "nosuch"], env)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "no lavacli identity 'nosuch'" in done.stderr and "(known: lab)" in done.stderr
    assert "lavacli identities add --uri" in done.stderr
