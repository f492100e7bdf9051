"""`platperf lava submit` and `platperf ingest lava ID` against LAVA's REST API.

No lava-server here (it is a Django site with PostgreSQL, Apache and a scheduler; not
installable within the CI budget), so a server on 127.0.0.1 answers as LAVA's REST API
(`/api/v0.2/`) does. Its answers are written from LAVA's own source, lava_rest_app (the
TestJobViewSet's create and logs actions, the TestJob serializer's fields: state, health,
actual_device, failure_comment, definition), not captured from a live server; the job log
it serves is a real one, recorded from lava-run (tests/fixtures/ingest/lava/). The identity
is written by the real lavacli (`lavacli identities add`), whose file platperf reads.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from conftest import require_module, require_probe

from ingest_samples import SAMPLES
from platperf.store import Store

PLATPERF = [sys.executable, "-m", "platperf"]
JOB_ID = 990002
LOG = SAMPLES["lava"].read_bytes()
TOKEN = "s3cr3t-token"


class Lab:
    """What the fake LAVA server holds and was asked."""

    def __init__(self, health="Complete", failure_comment=None, log=LOG, label="sdk-11.1"):
        self.health, self.failure_comment, self.log = health, failure_comment, log
        self.definition = yaml.safe_dump({"device_type": "ssh", "metadata": {"platperf.label": label}})
        self.polls = 0
        self.auth: list[str | None] = []

    def job(self) -> dict:
        """A job as lava_rest_app's TestJobSerializer shows it: Submitted, Running, Finished."""
        self.polls += 1
        state = ["Submitted", "Running", "Finished"][min(self.polls - 1, 2)]
        finished = state == "Finished"
        return {"id": JOB_ID, "submitter": "ci-bot", "viewing_groups": [], "description": "platperf",
                "health_check": False, "requested_device_type": "ssh", "tags": [],
                "actual_device": None if state == "Submitted" else "ssh01",
                "submit_time": "2026-11-23T10:41:00.000000Z", "start_time": None if state == "Submitted"
                else "2026-11-23T10:41:14.000000Z", "end_time": "2026-11-23T10:41:20.000000Z" if finished else None,
                "state": state, "health": self.health if finished else "Unknown", "priority": 50,
                "definition": self.definition, "original_definition": self.definition,
                "multinode_definition": "", "failure_tags": [],
                "failure_comment": self.failure_comment if finished else None}


def serve(lab: Lab):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, code: int, body, kind="application/json"):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def authorised(self) -> bool:
            lab.auth.append(self.headers.get("Authorization"))
            if self.headers.get("Authorization") != f"Token {TOKEN}":
                self.answer(401, {"detail": "Invalid token."})
                return False
            return True

        def do_POST(self):
            if self.path != "/api/v0.2/jobs/" or not self.authorised():
                return self.answer(404, {"detail": "Not found."}) if self.path != "/api/v0.2/jobs/" else None
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            definition = yaml.load(body["definition"], Loader=yaml.CSafeLoader)
            if definition["device_type"] != "ssh":
                return self.answer(400, {"message": "Specified device or device type not found."})
            lab.definition = body["definition"]
            self.answer(201, {"message": "job(s) successfully submitted", "job_ids": [JOB_ID]})

        def do_GET(self):
            if not self.authorised():
                return
            if self.path == f"/api/v0.2/jobs/{JOB_ID}/":
                return self.answer(200, lab.job())
            if self.path == f"/api/v0.2/jobs/{JOB_ID}/logs/":
                return self.answer(200, lab.log, "application/yaml")
            self.answer(404, {"detail": "Not found."})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def lab(tmp_path):
    """(Lab, env): a fake LAVA server and a lavacli identity `lab` for it, written by lavacli."""
    require_module("lavacli")
    made = Lab()
    server = serve(made)
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    uri = f"http://127.0.0.1:{server.server_address[1]}/RPC2"
    subprocess.run([sys.executable, "-m", "lavacli", "identities", "add", "--uri", uri, "--username", "ci-bot",
                    "--token", TOKEN, "lab"], env=env, check=True, capture_output=True)
    made.base = uri[:-len("/RPC2")]
    yield made, env
    server.shutdown()
    server.server_close()


def platperf(args, env) -> subprocess.CompletedProcess:
    return subprocess.run([*PLATPERF, *map(str, args)], capture_output=True, text=True, env=env, timeout=300)


def test_submit_wait_stores_the_run_with_the_lava_job_id_device_and_url(lab, db_url):
    require_probe()
    made, env = lab
    done = platperf(["lava", "submit", "--suite", "quick", "--device-type", "ssh", "--arch", "x86_64",
                     "--label", "sdk-11.1", "--identity", "lab", "--wait", "--poll", "0.05", "--db", db_url], env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"job {JOB_ID} {made.base}/scheduler/job/{JOB_ID}"
    assert "16 results" in done.stdout and "[ingest:lava], complete" in done.stdout
    assert done.stderr.splitlines() == [f"job {JOB_ID}: Submitted", f"job {JOB_ID}: Running on ssh01",
                                        f"job {JOB_ID}: Finished on ssh01"]
    assert set(made.auth) == {f"Token {TOKEN}"}
    submitted = yaml.load(made.definition, Loader=yaml.CSafeLoader)
    assert submitted["metadata"]["platperf.label"] == "sdk-11.1"
    run = Store(db_url).runs()[-1]
    assert (run["label"], run["target"], run["status"]) == ("sdk-11.1", "ssh01", "complete")
    assert run["meta"]["lava"] == {"job_id": JOB_ID, "url": f"{made.base}/scheduler/job/{JOB_ID}",
                                   "device": "ssh01", "device_type": "ssh", "state": "Finished",
                                   "health": "Complete", "failure_comment": None}
    assert run["note"] == f"LAVA job {JOB_ID} {made.base}/scheduler/job/{JOB_ID}"


def test_ingest_by_job_id_takes_the_label_from_the_jobs_metadata(lab, db_url):
    made, env = lab
    made.polls = 2      # finished already
    done = platperf(["ingest", "lava", JOB_ID, "--identity", "lab", "--db", db_url], env)
    assert done.returncode == 0, done.stderr
    run = Store(db_url).runs()[-1]
    assert run["label"] == "sdk-11.1" and run["meta"]["lava"]["job_id"] == JOB_ID
    assert len(Store(db_url).results(run["id"])) == 16


def test_an_incomplete_job_is_reported_with_lavas_error_after_storing_what_its_log_holds(lab, db_url):
    made, env = lab
    made.polls = 2
    made.health, made.failure_comment = "Incomplete", "lava-test-shell timed out after 600 seconds"
    text = LOG.decode()
    made.log = text[:text.index("PLATPERF-JSONL-BEGIN 2")].rsplit("\n", 1)[0].encode()   # cut there
    done = platperf(["ingest", "lava", JOB_ID, "--identity", "lab", "--db", db_url], env)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    assert (f"is partial: LAVA job {JOB_ID}: the job is incomplete: lava-test-shell timed out after "
            "600 seconds; the log holds 1 of the job's 2 probe commands") in done.stderr
    run = Store(db_url).runs()[-1]
    assert run["status"] == "partial" and run["meta"]["lava"]["health"] == "Incomplete"
    assert len(Store(db_url).results(run["id"])) == 8


def test_a_canceled_job_without_platperf_output_stores_nothing(lab, tmp_path):
    made, env = lab
    made.polls = 2
    made.health, made.failure_comment = "Canceled", "Canceled by ci-bot"
    made.log = b"".join(line + b"\n" for line in LOG.splitlines()[:20])
    db = str(tmp_path / "r.db")
    done = platperf(["ingest", "lava", JOB_ID, "--identity", "lab", "--db", db], env)
    assert done.returncode == 2
    assert "not the log of a job written by `platperf lava job`" in done.stderr
    assert "(LAVA: the job was canceled: Canceled by ci-bot)" in done.stderr
    assert not Path(db).exists() or Store(db).runs() == []


def test_lavas_refusal_and_a_bad_token_are_one_line(lab, tmp_path):
    require_probe()
    made, env = lab
    done = platperf(["lava", "submit", "--device-type", "juno-r1", "--identity", "lab"], env)
    assert done.returncode == 2
    assert done.stderr == (f"platperf: error: LAVA {made.base} answered 400 to jobs/: "
                           "Specified device or device type not found.\n")
    config = Path(env["XDG_CONFIG_HOME"]) / "lavacli.yaml"
    config.write_text(config.read_text().replace(TOKEN, "wrong"))
    done = platperf(["ingest", "lava", JOB_ID, "--identity", "lab", "--db", str(tmp_path / "r.db")], env)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "answered 401" in done.stderr and "check the username and token of lavacli identity 'lab'" in done.stderr


def test_an_unknown_identity_says_how_to_add_one(lab):
    _, env = lab
    done = platperf(["ingest", "lava", JOB_ID, "--identity", "nosuch"], env)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "no lavacli identity 'nosuch'" in done.stderr and "(known: lab)" in done.stderr
    assert "lavacli identities add --uri" in done.stderr
