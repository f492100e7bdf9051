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
import urllib.error
import urllib.request
import xmlrpc.client
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit
from xml.parsers.expat import ExpatError

import yaml

from .job import LavaError

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

API = "/api/v0.2/"
RPC = "/RPC2"
FINISHED = "Finished"
HTTP_TIMEOUT_S = 60
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
    except (OSError, yaml.YAMLError) as exc:
        raise LavaError(f"cannot read lavacli identities {path}: {exc}") from None
    entry = config.get(name) if isinstance(config, dict) else None
    if not isinstance(entry, dict) or not entry.get("uri"):
        known = ", ".join(sorted(config)) if isinstance(config, dict) and config else "none"
        raise LavaError(f"no lavacli identity '{name}' in {path} (known: {known}); {hint}")
    parts = urlsplit(str(entry["uri"]))
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise LavaError(f"lavacli identity '{name}': uri {entry['uri']!r} is not an http(s) URL")
    path_part = parts.path.rstrip("/")
    if path_part.endswith("/RPC2"):
        path_part = path_part[:-len("/RPC2")]
    return Identity(name, f"{parts.scheme}://{parts.netloc}{path_part}",
                    entry.get("username"), entry.get("token"))


class Server:
    def __init__(self, identity: Identity):
        self.identity = identity

    def job_url(self, job_id: int | str) -> str:
        """The job's page for people."""
        return f"{self.identity.base}/scheduler/job/{job_id}"

    def _request(self, path: str, body: bytes | None = None,
                 headers: dict | None = None) -> tuple[int, bytes]:
        request = urllib.request.Request(self.identity.base + path, data=body, headers=headers or {},
                                         method="POST" if body is not None else "GET")
        try:
            with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_S) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise LavaError(f"cannot reach LAVA at {self.identity.base} ({reason}); check the "
                            f"uri of lavacli identity '{self.identity.name}'") from None

    def _token_header(self) -> dict:
        return {"Authorization": f"Token {self.identity.token}"} if self.identity.token else {}

    def _refused(self, code: int, what: str, message: str | None, body: bytes):
        if code in (401, 403):
            message = (f"{message or 'not allowed'}; check the username and token of lavacli "
                       f"identity '{self.identity.name}'")
        raise LavaError(f"LAVA {self.identity.base} answered {code} to {what}: "
                        f"{message or body[:200].decode(errors='replace').strip()}")

    def _json(self, path: str, data: dict | None = None, ok=(200,)) -> dict:
        """A REST call (``/api/v0.2/``), the token as ``Authorization: Token ...``."""
        headers = {"Accept": "application/json", **self._token_header()}
        body = None
        if data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        code, body = self._request(API + path, body, headers)
        try:
            answer = json.loads(body or b"{}")
        except ValueError:
            answer = {}
        if code not in ok:
            message = answer.get("message") or answer.get("detail") if isinstance(answer, dict) else None
            self._refused(code, path, message, body)
        if not isinstance(answer, dict):
            raise LavaError(f"LAVA {self.identity.base}: {path} did not answer a JSON object")
        return answer

    def _call(self, method: str, *params):
        """An XML-RPC call (``/RPC2``), the user and token as HTTP Basic, as lavacli sends them."""
        headers = {"Content-Type": "text/xml"}
        if self.identity.username and self.identity.token:
            pair = f"{self.identity.username}:{self.identity.token}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        code, body = self._request(RPC, xmlrpc.client.dumps(params, method).encode(), headers)
        if code != 200:     # a plain-text answer ("Invalid token")
            self._refused(code, method, body[:200].decode(errors="replace").strip() or None, body)
        try:
            (answer,), _ = xmlrpc.client.loads(body)
        except xmlrpc.client.Fault as fault:
            raise LavaError(f"LAVA {self.identity.base}: {method}: {fault.faultString}") from None
        except (ExpatError, ValueError):
            raise LavaError(f"LAVA {self.identity.base}: {method} did not answer XML-RPC") from None
        return answer

    def submit(self, definition: str) -> int:
        answer = self._json("jobs/", {"definition": definition}, ok=(200, 201))
        ids = answer.get("job_ids")
        if not isinstance(ids, list) or not ids:
            raise LavaError(f"LAVA {self.identity.base} accepted the job but named no job id: {answer}")
        return int(ids[0])

    def run_meta(self, job_id: int | str, job: dict) -> dict:
        """What a run keeps of its LAVA job (the run's ``meta["lava"]``)."""
        return {"job_id": int(job_id), "url": self.job_url(job_id), "device": job.get("device"),
                "device_type": job.get("device_type"), "state": job.get("state"),
                "health": job.get("health"), "failure_comment": job.get("failure_comment")}

    def job(self, job_id: int | str) -> dict:
        """The job's state, device and health (``scheduler.jobs.show``: no definition)."""
        answer = self._call("scheduler.jobs.show", str(job_id))
        if not isinstance(answer, dict):
            raise LavaError(f"LAVA {self.identity.base}: scheduler.jobs.show did not answer a job")
        return answer

    def metadata(self, job_id: int | str) -> dict:
        """The metadata of the job's definition (downloads the definition)."""
        definition = self._json(f"jobs/{job_id}/").get("definition")
        try:
            metadata = yaml.load(definition or "", Loader=_LOADER) or {}
            metadata = metadata.get("metadata") or {}
        except (yaml.YAMLError, AttributeError):
            return {}
        return metadata if isinstance(metadata, dict) else {}

    def error(self, job_id: int | str) -> str | None:
        """LAVA's reason for a job that did not complete: the ``error_msg`` of the job's ``job``
        test case (a timeout, a cancel, a lost connection), or None."""
        cases = self._json(f"jobs/{job_id}/tests/?suite__name=lava&name=job").get("results") or []
        for case in cases:
            try:
                metadata = yaml.load(case.get("metadata") or "", Loader=_LOADER)
            except yaml.YAMLError:
                continue
            if isinstance(metadata, dict) and metadata.get("error_msg"):
                return str(metadata["error_msg"])
        return None

    def log(self, job_id: int | str) -> bytes:
        code, body = self._request(f"{API}jobs/{job_id}/logs/", headers=self._token_header())
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
