"""How the probe and platperf's device scripts reach a LAVA board, in the forms labs use.

* ``url`` — the lab's file server serves what ``platperf lava definitions --out DIR`` writes;
  the job's test shell downloads the files it needs (curl, else wget, on the device) from
  ``--probe-url URL``, as Linaro's test-definitions fetch their test binaries;
* ``git`` — the lab commits DIR to a test-definition repository (``--definitions-repo``): the
  job's test action names it (``from: git``, LAVA's recommended way to host test definitions:
  "Test definitions in version control"), the worker clones it into the overlay LAVA puts on
  the board, which needs no network;
* ``inline`` — the fallback: the job carries everything in its ``secrets`` (the probe gzip +
  base64, 500-700 KB, which LAVA stores twice per job and shows twice in its REST view).

In every form the job carries the suite's probe commands (its own script, a kilobyte or two
gzip + base64 in ``secrets``) and the sha256 of the files it expects: another platperf
version's files are refused on the board in one line (fetch.sh, device.sh).
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import posixpath
import shlex
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..targets.remote_sysroot import SNAPSHOT_SCRIPT
from . import LavaError

HERE = Path(__file__).resolve().parent
# The test definition's name, and so the test suite's on LAVA's results pages (0_platperf).
DEFINITION = "platperf"
DEFINITION_FILE = "platperf.yaml"
# LAVA's test shell runs each definition's steps in <overlay>/<stage>/tests/<n>_<name>; the
# overlay's top holds the job's secrets, one NAME=value a line (lava_dispatcher's overlay).
SECRETS_FILE = "../../../secrets"
# lava-run also puts every secret in its own environment, where one string may not pass
# 128 KiB (MAX_ARG_STRLEN) or no program starts: the probe goes in pieces.
SECRET_PIECE = 64 * 1024
# The files device.sh needs beside the probe, in the order their sha256 is taken.
KIT_FILES = ("device.sh", "snapshot.sh", "cases.awk")


@dataclass(frozen=True)
class Delivery:
    """Where the board gets the probe and platperf's files: ``probe_url`` (the lab's file
    server), ``repository`` (a git test-definition repository; ``path`` of the definition
    in it, ``branch``), or neither (inline, in the job's secrets)."""
    probe_url: str | None = None
    repository: str | None = None
    path: str = DEFINITION_FILE
    branch: str | None = None

    @property
    def form(self) -> str:
        return "url" if self.probe_url else "git" if self.repository else "inline"


INLINE = Delivery()


def from_options(probe_url: str | None = None, repository: str | None = None,
                 path: str | None = None, branch: str | None = None) -> Delivery:
    """The options of ``platperf lava job``, checked."""
    if probe_url and repository:
        raise LavaError("give --probe-url or --definitions-repo, not both")
    if (path or branch) and not repository:
        raise LavaError("--definitions-path and --definitions-branch go with --definitions-repo GIT_URL")
    if probe_url is not None:
        if not probe_url.startswith(("http://", "https://")):
            raise LavaError(f"--probe-url {probe_url!r}: give the http:// or https:// URL where the lab "
                            "serves what `platperf lava definitions --out DIR` wrote")
        return Delivery(probe_url=probe_url.rstrip("/"))
    if repository is not None:
        path = path or DEFINITION_FILE
        if path.startswith("/") or ".." in path.split("/") or not path.endswith(".yaml"):
            raise LavaError(f"--definitions-path {path!r}: give the definition's path in the "
                            f"repository, e.g. {DEFINITION_FILE} or platperf/{DEFINITION_FILE}")
        return Delivery(repository=repository, path=path, branch=branch)
    return INLINE


def kit() -> dict[str, str]:
    """platperf's files the probe runs with on the board (device.sh and what it runs)."""
    return {"device.sh": (HERE / "device.sh").read_text(),
            "snapshot.sh": SNAPSHOT_SCRIPT.lstrip("\n"),
            "cases.awk": (HERE / "cases.awk").read_text()}


def kit_sha256() -> str:
    files = kit()
    return hashlib.sha256("".join(files[name] for name in KIT_FILES).encode()).hexdigest()


def probe_file(arch: str) -> str:
    """The probe's file name, as the package ships it and the lab serves it."""
    return f"platperf-probe-{arch}"


def run_steps(probe_in_secrets: bool) -> list[str]:
    """The test definition's run steps: the job's script from its secrets, run in a
    ``mktemp -d`` directory. Small and the same in every job: LAVA keeps the definition with
    the result of each test run in at most 4096 bytes of metadata, and a job whose probe was
    in it failed every time with "Result metadata is too long"."""
    def value(name):
        return f"grep '^{name}_' {SECRETS_FILE} | sort | cut -d= -f2-"
    return [
        f'[ -f {SECRETS_FILE} ] || echo "PLATPERF-ERROR no LAVA secrets file in $(cd ../../.. && pwd)"',
        'PLATPERF_DIR=$(mktemp -d "${TMPDIR:-/tmp}/platperf.XXXXXX")',
        *([f'{value("PLATPERF_PROBE")} > "$PLATPERF_DIR/probe.b64"'] if probe_in_secrets else []),
        f'{value("PLATPERF_SCRIPT")} | base64 -d | gunzip -c > "$PLATPERF_DIR/run.sh"',
        'sh "$PLATPERF_DIR/run.sh" "$PLATPERF_DIR" "$(pwd)"',
        'rm -rf "$PLATPERF_DIR"',
    ]


def test_definition(description: str, probe_in_secrets: bool) -> dict:
    """A Lava-Test Test Definition 1.0 (inline in the job, or the repository's file)."""
    return {"metadata": {"format": "Lava-Test Test Definition 1.0", "name": DEFINITION,
                         "description": description},
            "run": {"steps": run_steps(probe_in_secrets)}}


def definition_entry(how: Delivery, description: str) -> dict:
    """The job's test action's one ``definitions`` entry."""
    if how.form == "git":
        # history: false: the overlay carries the checkout, not .git (the probes again)
        entry = {"from": "git", "repository": how.repository, "path": how.path, "name": DEFINITION,
                 "history": False}
        return {**entry, "branch": how.branch} if how.branch else entry
    return {"from": "inline", "name": DEFINITION, "path": f"inline/{DEFINITION_FILE}",
            "repository": test_definition(description, probe_in_secrets=how.form == "inline")}


def script_head(how: Delivery, binary: bytes) -> tuple[str, dict]:
    """The start of the job's script that puts platperf's files in its directory ($1) and
    defines ``platperf_probe_into``, and the secrets it needs besides the script."""
    signals = (HERE / "signals.sh").read_text()
    if how.form == "inline":
        files = "\n".join(here(name, text) for name, text in kit().items())
        unpack = ('platperf_probe_into() {\n    base64 -d "$D/probe.b64" | gunzip -c > "$1" \\\n'
                  '        || platperf_fail "cannot unpack the probe into $D (base64 -d | gunzip)"\n}')
        source = "PLATPERF_SOURCE='unpacked from the job'\n"
        return "\n".join([source + signals, files, unpack]), pieces("PLATPERF_PROBE", binary)
    if how.form == "url":
        source, stale = (f"from {how.probe_url}", f"serve there what `platperf lava definitions "
                                                  f"--out DIR` of platperf {__version__} writes")
    else:
        where = posixpath.dirname(how.path) or "."
        source = (f"in the test-definition repository {how.repository}"
                  + (f" ({where}/)" if where != "." else ""))
        stale = (f"commit there what `platperf lava definitions --out DIR` of platperf {__version__} "
                 "writes" + (f", or name its branch with --definitions-branch" if not how.branch else ""))
    variables = "\n".join(f"{name}={shlex.quote(value)}" for name, value in (
        ("PLATPERF_URL", how.probe_url or ""),
        ("PLATPERF_REPO_DIR", (posixpath.dirname(how.path) or ".") if how.repository else ""),
        ("PLATPERF_VERSION", __version__), ("PLATPERF_KIT_SHA256", kit_sha256()),
        ("PLATPERF_SOURCE", source), ("PLATPERF_STALE", stale)))
    return "\n".join([variables, signals, (HERE / "fetch.sh").read_text()]), {}


def write_definitions(out: Path, binaries: dict[str, bytes]) -> list[Path]:
    """``platperf lava definitions --out DIR``: the test definition, platperf's files and the
    probe of each architecture in ``binaries``, as the lab serves or commits them. Files of
    other names in DIR (a repository's own) are left as they are."""
    files = {DEFINITION_FILE: _dump(test_definition(
                 f"platperf {__version__}: runs the suite its LAVA job names (platperf lava job "
                 "--definitions-repo)", probe_in_secrets=False)).encode(),
             **{name: text.encode() for name, text in kit().items()},
             **{probe_file(arch): binary for arch, binary in binaries.items()}}
    sums = "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in files.items())
    files["SHA256SUMS"] = sums.encode()
    files["README.md"] = README.format(version=__version__, arches=", ".join(binaries)).encode()
    written = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            path = out / name
            tmp = out / f".{name}.tmp"
            tmp.write_bytes(data)
            tmp.chmod(0o755 if name.startswith("platperf-probe-") else 0o644)
            tmp.replace(path)
            written.append(path)
    except OSError as exc:
        raise LavaError(f"cannot write {exc.filename or out}: {exc.strerror}") from None
    return written


README = """\
# platperf {version} for LAVA jobs

Written by `platperf lava definitions`; do not edit (a job checks each file's sha256 on the
board). Probes: {arches}.

* Served by the lab's file server at URL: `platperf lava job --probe-url URL ...`; the board
  downloads what its job needs.
* Committed to a git repository: `platperf lava job --definitions-repo GIT_URL
  [--definitions-path DIR/platperf.yaml] ...`; LAVA clones it into the job's overlay.

The job itself carries the suite's probe commands and names the sha256 of these files: a
job made by another platperf version says so on the board. See platperf's docs/lava.md.
"""


def pieces(name: str, data: bytes) -> dict:
    """``data`` gzip + base64, as secrets NAME_00, NAME_01, ... of SECRET_PIECE characters."""
    text = base64.b64encode(gzip.compress(data, 9, mtime=0)).decode()
    return {f"{name}_{n:02d}": text[at:at + SECRET_PIECE]
            for n, at in enumerate(range(0, len(text), SECRET_PIECE))}


def here(filename: str, text: str) -> str:
    """A shell command writing ``text`` to ``filename`` in the job's directory ($1)."""
    end = "PLATPERF_EOF"
    if f"\n{end}\n" in f"\n{text}\n":
        raise LavaError(f"{filename} holds a line '{end}', which would end its here-document")
    return f"cat > \"$1/{filename}\" <<'{end}'\n{text.rstrip(chr(10))}\n{end}"


def _dump(definition: dict) -> str:
    import yaml
    return yaml.safe_dump(definition, sort_keys=False, width=1000)
