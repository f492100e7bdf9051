"""A real LAVA lab for the test session: Debian's lava-server 2023.01 and a lava-worker.

:class:`LavaLab` runs what a lab runs, each from its Debian command, all on 127.0.0.1:

* a database of its own on the session's PostgreSQL server (tests/pg_server.py), made by
  ``lava-server manage migrate``;
* ``gunicorn3 lava_server.wsgi`` (the web site, the REST and XML-RPC APIs);
* ``lava-server manage lava-publisher`` (the event socket) and ``lava-server manage
  lava-scheduler`` (puts submitted jobs on idle devices);
* ``lava-worker --ping-interval 1``: it runs ``lava-run`` for each job scheduled on its
  devices and sends the log back;
* the device ``ssh01`` of LAVA's ``ssh`` device type: the session's sshd
  (tests/sshd_server.py), which is this machine;
* the device ``qemu01`` of LAVA's ``qemu`` device type: the worker starts the QEMU guest a
  job names (kernel, initramfs), on QEMU's user network with ``restrict=on``.

lava-server is configured entirely by environment (:meth:`LavaLab.environment`):
``DATABASE_URL`` and ``LAVA_SETTINGS_*`` for the devices directory, the job outputs, the
event sockets and the log file; nothing under /etc is changed and no system service runs.
Its daemons run as the user running the tests (``--user``/``--group``; by default they
switch to ``lavaserver``, which cannot write here).

Job ids restart at 1 in a new database, and LAVA's ssh deploy leaves ``/lava-<id>`` on the
device: the lab starts its ids at :attr:`LavaLab.first_job_id`, far from 1 and from other
sessions on this machine, and removes those directories when it stops. The fixture
``lava_lab`` (session) starts it the first time a test asks for it.
"""
from __future__ import annotations

import grp
import hashlib
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from sshd_server import free_port

USER = "ci-bot"
TOKEN = "lab-token-3f9a0c51"
WORKER = "worker01"
SSH_DEVICE = "ssh01"
QEMU_DEVICE = "qemu01"
READY_S = 120


class LavaLab:
    def __init__(self, workdir: Path, database_url: str):
        self.dir = workdir
        self.database_url = database_url
        self.port, self.publisher_port, self.event_port = free_port(), free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = TOKEN
        self.first_job_id = 500_000 + (os.getpid() % 300) * 1000
        self.procs: dict[str, subprocess.Popen] = {}
        self.ready_s: float | None = None
        for sub in ("devices", "media", "events", "worker", "logs"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)

    def environment(self) -> dict:
        return {**os.environ,
                "DATABASE_URL": self.database_url,
                "SECRET_KEY": uuid.uuid4().hex,
                "LAVA_SETTINGS_DEVICES_PATH": str(self.dir / "devices"),
                "LAVA_SETTINGS_MEDIA_ROOT": str(self.dir / "media"),
                "LAVA_SETTINGS_DJANGO_LOGFILE": str(self.dir / "logs" / "django.log"),
                "LAVA_SETTINGS_EVENT_NOTIFICATION": "true",
                "LAVA_SETTINGS_INTERNAL_EVENT_SOCKET": f"ipc://{self.dir / 'events' / 'internal'}",
                "LAVA_SETTINGS_EVENT_SOCKET": f"tcp://127.0.0.1:{self.event_port}"}

    def manage(self, *args: str) -> str:
        """``lava-server manage ARGS``: its output; fails the session's lab on an error."""
        done = subprocess.run(["lava-server", "manage", *args], env=self.environment(),
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"lava-server manage {' '.join(args)}: {done.stderr.strip()[-1500:]}")
        return done.stdout

    def _manage_together(self, *commands: list[str]) -> list[str]:
        """Several ``lava-server manage`` commands at once (each starts Django: 2-3 s)."""
        procs = [subprocess.Popen(["lava-server", "manage", *c], env=self.environment(),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for c in commands]
        outs = []
        for command, proc in zip(commands, procs):
            out, err = proc.communicate(timeout=300)
            if proc.returncode != 0:
                raise RuntimeError(f"lava-server manage {' '.join(command)}: {err.strip()[-1500:]}")
            outs.append(out)
        return outs

    def _start(self, name: str, argv: list[str]):
        log = open(self.dir / "logs" / f"{name}.out", "ab")
        self.procs[name] = subprocess.Popen(argv, env=self.environment(), stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=log, start_new_session=True)

    def _create_database(self) -> str:
        """LAVA's tables, the user with its token, the device type, the worker and its device;
        the worker's token. ``migrate`` takes 20-30 s here: the database is kept as a dump in
        the user's cache for the next session (per lava-server version)."""
        cache = _cache_file()
        if cache is not None and cache.is_file():
            worker_token = cache.read_text().split("\n", 1)[0].split("worker-token: ")[-1]
            _psql(self.database_url, "-f", str(cache))
            return worker_token
        self.manage("migrate", "--noinput")
        *_, worker = self._manage_together(
            ["users", "add", USER, "--email", "ci-bot@example.org"],
            ["device-types", "add", "ssh"], ["device-types", "add", "qemu"],
            ["workers", "add", WORKER])
        worker_token = worker.split("Token:")[1].split()[0]
        self._manage_together(["tokens", "add", "--user", USER, "--secret", TOKEN],
                              ["devices", "add", "--device-type", "ssh", "--worker", WORKER, SSH_DEVICE],
                              ["devices", "add", "--device-type", "qemu", "--worker", WORKER, QEMU_DEVICE])
        if cache is not None:
            dump = subprocess.run(["pg_dump", "--no-owner", "--no-privileges", self.database_url],
                                  capture_output=True, text=True, check=True).stdout
            cache.parent.mkdir(parents=True, exist_ok=True)
            partial = cache.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(f"-- worker-token: {worker_token}\n{dump}")
            partial.replace(cache)
        return worker_token

    def start(self, sshd) -> "LavaLab":
        begin = time.monotonic()
        worker_token = self._create_database()
        self.write_dictionary(SSH_DEVICE, ssh_dictionary(sshd))
        self.write_dictionary(QEMU_DEVICE, QEMU_DICTIONARY)
        self._restart_job_ids()
        logs = self.dir / "logs"
        as_me = ["--user", pwd.getpwuid(os.getuid()).pw_name, "--group", grp.getgrgid(os.getgid()).gr_name]
        self._start("gunicorn", ["gunicorn3", "lava_server.wsgi", "--bind", f"127.0.0.1:{self.port}",
                                 "--workers", "2", "--preload", "--log-file", str(logs / "gunicorn.log"),
                                 "--access-logfile", str(logs / "access.log"),
                                 "--access-logformat", '%(m)s %(U)s%(q)s %(s)s %(B)s'])
        self._start("publisher", ["lava-server", "manage", "lava-publisher", "--host", "127.0.0.1",
                                  "--port", str(self.publisher_port), "--log-file",
                                  str(logs / "publisher.log"), *as_me])
        self._start("scheduler", ["lava-server", "manage", "lava-scheduler", "--event-url",
                                  f"tcp://127.0.0.1:{self.event_port}", "--log-file",
                                  str(logs / "scheduler.log"), *as_me])
        self._start("worker", ["lava-worker", "--name", WORKER, "--url", f"{self.url}/",
                               "--ws-url", f"http://127.0.0.1:{self.publisher_port}/ws/",
                               "--token", worker_token, "--ping-interval", "1",
                               "--worker-dir", str(self.dir / "worker"),
                               "--log-file", str(logs / "worker.log"), "--level", "DEBUG"])
        self._wait_ready()
        self.ready_s = time.monotonic() - begin
        return self

    def write_dictionary(self, hostname: str, text: str):
        (self.dir / "devices" / f"{hostname}.jinja2").write_text(text)

    def _restart_job_ids(self):
        import psycopg
        with psycopg.connect(self.database_url, autocommit=True) as c:
            c.execute(f"ALTER SEQUENCE lava_scheduler_app_testjob_id_seq RESTART WITH {self.first_job_id}")

    def _wait_ready(self):
        """Until the API answers and the worker is online (it pings every second)."""
        import json
        deadline = time.monotonic() + READY_S
        while time.monotonic() < deadline:
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited {proc.returncode}: {self.log_tail(name)}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/v0.2/workers/{WORKER}/", timeout=5) as r:
                    if json.load(r).get("state") == "Online":
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the LAVA lab was not ready in {READY_S} s: {self.log_tail('worker')}")

    def log_tail(self, name: str, lines: int = 20) -> str:
        texts = [p.read_text(errors="replace") for p in (self.dir / "logs").glob(f"{name}.*")]
        return "\n".join("\n".join(t.splitlines()[-lines:]) for t in texts)

    def access_log(self) -> list[str]:
        """gunicorn's access log: ``METHOD PATH?QUERY STATUS BYTES`` a request."""
        return (self.dir / "logs" / "access.log").read_text().splitlines()

    def identity(self, config_home: Path, name: str = "lab", token: str = TOKEN) -> dict:
        """The environment of a person whose lavacli identity ``name`` is this lab (written
        by lavacli itself)."""
        env = {**os.environ, "XDG_CONFIG_HOME": str(config_home)}
        subprocess.run([sys.executable, "-m", "lavacli", "identities", "add", "--uri", f"{self.url}/RPC2",
                        "--username", USER, "--token", token, name],
                       env=env, check=True, capture_output=True)
        return env

    def memory_mb(self) -> float:
        """The lab's processes' proportional set size (smaps_rollup Pss), MB."""
        from sshd_server import _descendants
        total = 0
        for proc in self.procs.values():
            for pid in _descendants(proc.pid):
                try:
                    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                        if line.startswith("Pss:"):
                            total += int(line.split()[1])
                except OSError:
                    pass
        return total / 1024

    def stop(self):
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs.values():
            try:    # nothing to keep: gunicorn and the publisher take 3-6 s to stop politely
                proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        # what LAVA's ssh deploy left on the device (this machine) for this lab's jobs
        for leftover in Path("/").glob("lava-*"):
            number = leftover.name[len("lava-"):].split("-")[0]
            if number.isdigit() and self.first_job_id <= int(number) < self.first_job_id + 1000:
                if leftover.is_dir():
                    shutil.rmtree(leftover, ignore_errors=True)
                else:
                    leftover.unlink(missing_ok=True)


def _cache_file() -> Path | None:
    """Where the lab's new database is kept between sessions, or None (no version known)."""
    version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "lava-server"],
                             capture_output=True, text=True).stdout.strip()
    if not version:
        return None
    recipe = f"{USER} {TOKEN} {WORKER} ssh {SSH_DEVICE} qemu {QEMU_DEVICE}"
    recipe = hashlib.sha256(recipe.encode()).hexdigest()[:12]
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return home / "platperf-tests" / f"lava-server-{version}-{recipe}.sql"


def _psql(url: str, *args: str):
    done = subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, *args],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"psql {' '.join(args)}: {done.stderr.strip()[-1500:]}")


def ssh_dictionary(sshd) -> str:
    """The device dictionary of a board LAVA reaches over SSH: the session's sshd."""
    return f"""{{% extends 'ssh.jinja2' %}}
{{% set ssh_host = '127.0.0.1' %}}
{{% set ssh_port = {sshd.port} %}}
{{% set ssh_user = '{sshd.user}' %}}
{{% set ssh_identity_file = '{sshd.dir / "user_key"}' %}}
{{# no schroot boot method: LAVA's ssh device type offers one by default #}}
{{% block schroot %}}{{% endblock schroot %}}
"""


# The lab's QEMU guests: the job says which kernel, initramfs, CPU and machine (its context);
# the lab keeps their network to QEMU's own user network, where they reach nothing else.
QEMU_DICTIONARY = """{% extends 'qemu.jinja2' %}
{% set netdevice = 'user,restrict=on' %}
{% set mac_addr = '52:54:00:12:34:59' %}
"""


def missing_parts() -> str | None:
    for tool, package in (("lava-server", "lava-server"), ("lava-worker", "lava-dispatcher"),
                          ("gunicorn3", "gunicorn")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian {package}; make deps)"
    if os.geteuid() != 0:
        return "LAVA's ssh deploy unpacks its overlay under / on the device (this machine): run as root"
    return None


@pytest.fixture(scope="session")
def lava_lab(pg_server, sshd, tmp_path_factory):
    """The session's LAVA lab (started by the first test that asks for it)."""
    from conftest import missing
    why = missing_parts()
    if why:
        missing(why)
    name = "lava_" + uuid.uuid4().hex[:10]
    with pg_server.admin() as c:
        c.execute(f'CREATE DATABASE "{name}"')
    lab = LavaLab(tmp_path_factory.mktemp("lava-lab"), pg_server.url(name))
    try:
        yield lab.start(sshd)
    finally:
        lab.stop()
        with pg_server.admin() as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
