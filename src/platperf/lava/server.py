"""A LAVA server through its REST (``/api/v0.2/``) and XML-RPC (``/RPC2``) APIs, with a
lavacli identity's token.

lavacli keeps identities in ``$XDG_CONFIG_HOME/lavacli.yaml`` (``~/.config`` by default)::

    lab:
      uri: https://lava.example.org/RPC2
      username: ci-bot
      token: ...

(``lavacli identities add --uri https://lava.example.org/RPC2 --username ci-bot --token ... lab``).
platperf reads the same file, so a lab's existing identities work as they are: XML-RPC at
the uri, the REST API on the same host (``/RPC2`` dropped) with the token in
``Authorization: Token ...``.

The calls, as lava-server (2023.01, run by the tests) answers them:

* REST ``POST jobs/`` with ``{"definition": YAML}`` -> 201 ``{"message": ..., "job_ids": [ID]}``;
  400 ``{"message": "Devices unavailable: Device type 'X' is unavailable."}`` or
  ``"Problem with submitted job data: ..."``; 403 ``{"detail": "Invalid token."}``;
* XML-RPC ``scheduler.jobs.show(ID)`` on ``/RPC2`` (what ``lavacli jobs show`` and ``jobs
  wait`` ask; HTTP Basic ``username:token``, 401 for a bad token) -> ``state`` (Submitted,
  Scheduling, Scheduled, Running, Canceling, Finished), ``health`` (Unknown, Complete,
  Incomplete, Canceled), ``device``, ``device_type``, ``failure_comment``: half a kilobyte,
  where REST's ``GET jobs/ID/`` sends the definition twice (the probe in it: 1.4 MB);
* REST ``GET jobs/ID/`` -> the job with its ``definition`` (only for a label from its metadata);
* REST ``GET jobs/ID/tests/?suite__name=lava&name=job`` -> the ``job`` test case, whose
  ``metadata`` (YAML) holds LAVA's ``error_msg`` for a job that did not complete (a timeout, a
  cancel), where ``failure_comment`` often stays empty;
* REST ``GET jobs/ID/logs/`` -> the job log, YAML, one ``- {"dt": ..., "lvl": ..., "msg": ...}`` a line.
"""
from __future__ import annotations

import base64
import json
import os
import time
import xmlrpc.client
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit
from xml.parsers.expat import ExpatError

import yaml

from . import http
from .job import LavaError

API = "/api/v0.2/"
RPC = "/RPC2"
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

    def _request(self, path: str, body: bytes | None = None, headers: dict | None = None,
                 limit: int | None = None, at: str = API) -> tuple[int, bytes]:
        try:
            return http.request("POST" if body is not None else "GET", self.identity.base + at + path,
                                headers=headers or {}, body=body, deadline_s=self.timeout_s,
                                limit=limit or MAX_ANSWER)
        except http.HttpError as exc:
            raise LavaError(f"no answer from LAVA at {self.identity.base} to {path or at} ({exc}); "
                            f"check the uri of lavacli identity '{self.identity.name}'") from None

    def _token_header(self) -> dict:
        return {"Authorization": f"Token {self.identity.token}"} if self.identity.token else {}

    def _refused(self, code: int, what: str, message: str | None, body: bytes):
        if code in (401, 403):
            message = (f"{message or 'not allowed'}; check the username and token of lavacli "
                       f"identity '{self.identity.name}'")
        raise LavaError(f"LAVA {self.identity.base} answered {code} to {what}: {message or _start(body)}")

    def _json(self, path: str, data: dict | None = None, ok=(200,)) -> dict:
        """A REST call (``/api/v0.2/``), the token as ``Authorization: Token ...``."""
        headers = {"Accept": "application/json", **self._token_header()}
        body = None
        if data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        code, body = self._request(path, body, headers)
        try:
            answer = json.loads(body or b"{}")
        except ValueError:
            answer = None
        if code not in ok:
            message = (answer.get("message") or answer.get("detail")) if isinstance(answer, dict) else None
            self._refused(code, path, message, body)
        if answer is None:
            raise LavaError(f"LAVA {self.identity.base} answered {code} to {path} but not with JSON "
                            f"({_start(body)}); is the identity's uri a LAVA server?")
        if not isinstance(answer, dict):
            raise LavaError(f"LAVA {self.identity.base}: {path} did not answer a JSON object")
        return answer

    def _call(self, method: str, *params):
        """An XML-RPC call (``/RPC2``), the user and token as HTTP Basic, as lavacli sends them."""
        headers = {"Content-Type": "text/xml"}
        if self.identity.username and self.identity.token:
            pair = f"{self.identity.username}:{self.identity.token}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        code, body = self._request("", xmlrpc.client.dumps(params, method).encode(), headers, at=RPC)
        if code != 200:     # a plain-text answer ("Invalid token")
            self._refused(code, method, body[:200].decode(errors="replace").strip() or None, body)
        try:
            (answer,), _ = xmlrpc.client.loads(body)
        except xmlrpc.client.Fault as fault:
            raise LavaError(f"LAVA {self.identity.base}: {method}: {fault.faultString}") from None
        except (ExpatError, ValueError, xmlrpc.client.Error):
            raise LavaError(f"LAVA {self.identity.base} answered {code} to {method} but not with "
                            f"XML-RPC ({_start(body)}); is the identity's uri a LAVA server?") from None
        return answer

    def submit(self, definition: str) -> int:
        answer = self._json("jobs/", {"definition": definition}, ok=(200, 201))
        ids = answer.get("job_ids")
        if not isinstance(ids, list) or not ids:
            raise LavaError(f"LAVA {self.identity.base} accepted the job but named no job id: {answer}")
        return int(ids[0])

    def run_meta(self, job_id: int | str, job: dict) -> dict:
        """What a run keeps of its LAVA job (the run's ``meta["lava"]``), from :meth:`state`."""
        return {"job_id": int(job_id), "url": self.job_url(job_id), "device": job.get("device"),
                "device_type": job.get("device_type"), "state": job.get("state"),
                "health": job.get("health"), "failure_comment": job.get("failure_comment")}

    def state(self, job_id: int | str) -> dict:
        """The job's state, health and device (``scheduler.jobs.show``: half a kilobyte)."""
        answer = self._call("scheduler.jobs.show", str(job_id))
        if not isinstance(answer, dict):
            raise LavaError(f"LAVA {self.identity.base}: scheduler.jobs.show did not answer a job")
        return answer

    def job(self, job_id: int | str) -> dict:
        """The whole job, its definition (the probe in it) twice: a megabyte and more."""
        return self._json(f"jobs/{job_id}/")

    def metadata(self, job_id: int | str) -> dict:
        """The metadata of the job's definition."""
        from ..bounded import BoundError, load_yaml
        try:
            data = load_yaml(self.job(job_id).get("definition") or "", "the job definition from the server")
            metadata = data.get("metadata") if isinstance(data, dict) else None
        except BoundError as exc:
            raise LavaError(f"{exc}; give --label") from None
        except yaml.YAMLError:
            return {}
        return metadata if isinstance(metadata, dict) else {}

    def error(self, job_id: int | str) -> str | None:
        """LAVA's reason for a job that did not complete: the ``error_msg`` of the job's ``job``
        test case (a timeout, a cancel, a lost connection), or None."""
        from ..bounded import BoundError, load_yaml
        cases = self._json(f"jobs/{job_id}/tests/?suite__name=lava&name=job").get("results") or []
        for case in cases if isinstance(cases, list) else ():
            try:
                metadata = load_yaml(str(case.get("metadata") or ""), "a test case's metadata")
            except (yaml.YAMLError, BoundError, AttributeError):
                continue
            if isinstance(metadata, dict) and metadata.get("error_msg"):
                return str(metadata["error_msg"])
        return None

    def log(self, job_id: int | str) -> bytes:
        code, body = self._request(f"jobs/{job_id}/logs/", headers=self._token_header(), limit=MAX_LOG)
        if code != 200:
            raise LavaError(f"LAVA {self.identity.base} answered {code} for the log of job {job_id}")
        return body

    def wait(self, job_id: int | str, poll_s: float = POLL_S,
             progress: Callable[[dict], None] | None = None, sleep=time.sleep) -> dict:
        """The job once it is Finished, asking every ``poll_s`` seconds."""
        last = None
        while True:
            job = self.state(job_id)
            seen = (job.get("state"), job.get("device"))
            if progress is not None and seen != last:
                progress(job)
            last = seen
            if job.get("state") == FINISHED:
                return job
            sleep(poll_s)


@dataclass
class FetchedJob:
    """What a job left for its run: its log's lines, the run's ``meta["lava"]``, LAVA's reason
    when it did not complete, its state and its metadata's ``platperf.label``."""

    lines: list[str]
    lava: dict
    error: str | None
    state: str | None
    label: str | None


def fetch(server: Server, job_id: str, *, label: str | None = None, poll: float | None = None,
          progress: Callable[[dict], None] | None = None) -> FetchedJob:
    """The job ``job_id`` as it is now (``poll``: once it has finished, asking every ``poll``
    seconds, ``progress(job)`` at each change), its label from its metadata unless given."""
    job = server.wait(job_id, poll, progress=progress) if poll is not None else server.state(job_id)
    log = server.log(job_id)
    error = None
    if job.get("state") == FINISHED and job.get("health") != "Complete":
        error = failure(job, server.error(job_id))
    if label is None:
        found = server.metadata(job_id).get("platperf.label")
        label = None if found is None else str(found)
    return FetchedJob(log.decode("utf-8", errors="replace").splitlines(), server.run_meta(job_id, job),
                      error, job.get("state"), label)


def _start(body: bytes) -> str:
    """The first bytes of an answer, printable, for an error line."""
    text = body[:120].decode(errors="replace")
    return repr(text) if text else "an empty body"


def failure(job: dict, error: str | None = None) -> str | None:
    """LAVA's own words for a job that did not complete, or None when it did: its
    ``failure_comment``, else ``error`` (:meth:`Server.error`)."""
    health = job.get("health")
    if health == "Complete":
        return None
    why = job.get("failure_comment") or error or ""
    if health == "Canceled":    # LAVA's error_msg is then "The job was canceled"
        return "the job was canceled" + (f": {why}" if why and "canceled" not in why.lower() else "")
    return f"the job is {str(health).lower()}" + (f": {why}" if why else "")
