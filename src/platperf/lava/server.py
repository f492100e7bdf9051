"""A LAVA server through its REST API (``/api/v0.2/``), with a lavacli identity's token.

lavacli keeps identities in ``$XDG_CONFIG_HOME/lavacli.yaml`` (``~/.config`` by default)::

    lab:
      uri: https://lava.example.org/RPC2
      username: ci-bot
      token: ...

(``lavacli identities add --uri https://lava.example.org/RPC2 --username ci-bot --token ... lab``).
platperf reads the same file, so a lab's existing identities work as they are; the REST API
is on the same host (``/RPC2`` dropped), the token goes in ``Authorization: Token ...``.

The calls, as LAVA's lava_rest_app serves them:

* ``POST jobs/`` with ``{"definition": YAML}`` -> 201 ``{"message": ..., "job_ids": [ID]}``,
  400 ``{"message": "Problem with submitted job data: ..."}``;
* ``GET jobs/ID/`` -> the job: ``state`` (Submitted, Scheduling, Scheduled, Running, Canceling,
  Finished), ``health`` (Unknown, Complete, Incomplete, Canceled), ``actual_device``,
  ``failure_comment``, ``definition``, ...;
* ``GET jobs/ID/logs/`` -> the job log, YAML, one ``- {"dt": ..., "lvl": ..., "msg": ...}`` a line.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

import yaml

from . import http
from .job import LavaError

API = "/api/v0.2/"
FINISHED = "Finished"
HTTP_TIMEOUT_S = 60          # the whole request, however slowly the bytes come (lava/http.py)
MAX_ANSWER = 16 << 20        # a job's JSON (its definition carries the probe: about 2 MB)
MAX_LOG = 512 << 20          # a job log
# How often --wait asks the server about a job.
POLL_S = 30.0


def identities_file() -> Path:
    """lavacli's configuration file."""
    return Path(os.path.expanduser(os.path.join(os.environ.get("XDG_CONFIG_HOME", "~/.config"),
                                                "lavacli.yaml")))


@dataclass
class Identity:
    name: str
    base: str               # https://lava.example.org
    username: str | None
    token: str | None


def load_identity(name: str) -> Identity:
    path = identities_file()
    hint = (f"add it with 'lavacli identities add --uri https://LAVA-SERVER/RPC2 "
            f"--username USER --token TOKEN {name}'")
    try:
        config = yaml.safe_load(path.read_text()) or {}
    except FileNotFoundError:
        raise LavaError(f"no lavacli identities ({path} does not exist); {hint}") from None
    except OSError as exc:
        raise LavaError(f"cannot read lavacli identities {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:     # its text may quote the line it stopped at: a token
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise LavaError(f"cannot read lavacli identities {path}: not valid YAML{where}") from None
    entry = config.get(name) if isinstance(config, dict) else None
    if not isinstance(entry, dict) or not entry.get("uri"):
        known = ", ".join(sorted(config)) if isinstance(config, dict) and config else "none"
        raise LavaError(f"no lavacli identity '{name}' in {path} (known: {known}); {hint}")
    parts = urlsplit(str(entry["uri"]))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LavaError(f"lavacli identity '{name}': uri {http.safe_url(str(entry['uri']))!r} is "
                        f"not an http(s) URL")
    path_part = parts.path.rstrip("/")
    if path_part.endswith("/RPC2"):
        path_part = path_part[:-len("/RPC2")]
    # lavacli's uri may carry user:TOKEN@ (its XML-RPC form): the secret becomes the token and
    # the address is kept without it, so that no message, run or report ever shows it.
    host = parts.hostname + (f":{parts.port}" if parts.port else "")
    if ":" in parts.hostname:
        host = f"[{parts.hostname}]" + (f":{parts.port}" if parts.port else "")
    return Identity(name, f"{parts.scheme}://{host}{path_part}",
                    entry.get("username") or parts.username, entry.get("token") or parts.password)


class Server:
    def __init__(self, identity: Identity, timeout_s: float = HTTP_TIMEOUT_S):
        self.identity = identity
        self.timeout_s = timeout_s       # each request's whole deadline

    def job_url(self, job_id: int | str) -> str:
        """The job's page for people."""
        return f"{self.identity.base}/scheduler/job/{job_id}"

    def _request(self, path: str, data: dict | None = None, limit: int | None = None) -> tuple[int, bytes]:
        url = self.identity.base + API + path
        headers = {"Accept": "application/json"}
        if self.identity.token:
            headers["Authorization"] = f"Token {self.identity.token}"
        body = None
        if data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        try:
            return http.request("POST" if data is not None else "GET", url, headers=headers, body=body,
                                deadline_s=self.timeout_s, limit=limit or MAX_ANSWER)
        except http.HttpError as exc:
            raise LavaError(f"no answer from LAVA at {self.identity.base} to {path} ({exc}); check "
                            f"the uri of lavacli identity '{self.identity.name}'") from None

    def _json(self, path: str, data: dict | None = None, ok=(200,)) -> dict:
        code, body = self._request(path, data)
        try:
            answer = json.loads(body or b"{}")
        except ValueError:
            answer = None
        if code not in ok:
            message = (answer.get("message") or answer.get("detail")) if isinstance(answer, dict) else None
            if code in (401, 403):
                message = (f"{message or 'not allowed'}; check the username and token of lavacli "
                           f"identity '{self.identity.name}'")
            raise LavaError(f"LAVA {self.identity.base} answered {code} to {path}: "
                            f"{message or _start(body)}")
        if answer is None:
            raise LavaError(f"LAVA {self.identity.base} answered {code} to {path} but not with JSON "
                            f"({_start(body)}); is the identity's uri a LAVA server?")
        if not isinstance(answer, dict):
            raise LavaError(f"LAVA {self.identity.base}: {path} did not answer a JSON object")
        return answer

    def submit(self, definition: str) -> int:
        answer = self._json("jobs/", {"definition": definition}, ok=(200, 201))
        ids = answer.get("job_ids")
        if not isinstance(ids, list) or not ids:
            raise LavaError(f"LAVA {self.identity.base} accepted the job but named no job id: {answer}")
        return int(ids[0])

    def run_meta(self, job_id: int | str, job: dict) -> dict:
        """What a run keeps of its LAVA job (the run's ``meta["lava"]``)."""
        return {"job_id": int(job_id), "url": self.job_url(job_id), "device": job.get("actual_device"),
                "device_type": job.get("requested_device_type"), "state": job.get("state"),
                "health": job.get("health"), "failure_comment": job.get("failure_comment")}

    def job(self, job_id: int | str) -> dict:
        return self._json(f"jobs/{job_id}/")

    def log(self, job_id: int | str) -> bytes:
        code, body = self._request(f"jobs/{job_id}/logs/", limit=MAX_LOG)
        if code != 200:
            raise LavaError(f"LAVA {self.identity.base} answered {code} for the log of job {job_id}")
        return body

    def wait(self, job_id: int | str, poll_s: float = POLL_S,
             progress: Callable[[dict], None] | None = None, sleep=time.sleep) -> dict:
        """The job once it is Finished, asking every ``poll_s`` seconds."""
        last = None
        while True:
            job = self.job(job_id)
            seen = (job.get("state"), job.get("actual_device"))
            if progress is not None and seen != last:
                progress(job)
            last = seen
            if job.get("state") == FINISHED:
                return job
            sleep(poll_s)


def _start(body: bytes) -> str:
    """The first bytes of an answer, printable, for an error line."""
    text = body[:120].decode(errors="replace")
    return repr(text) if text else "an empty body"


def failure(job: dict) -> str | None:
    """LAVA's own words for a job that did not complete, or None when it did."""
    health = job.get("health")
    if health == "Complete":
        return None
    comment = job.get("failure_comment") or ""
    if health == "Canceled":
        return "the job was canceled" + (f": {comment}" if comment else "")
    return f"the job is {str(health).lower()}" + (f": {comment}" if comment else "")
