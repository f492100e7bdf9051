"""``platperf lava job|submit`` and ``platperf ingest lava``: platperf on a lab's LAVA boards."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from ..lava.job import DEFAULT_TIMEOUT_MIN, LavaError
from .common import DbOption, app, examples, fail_exit, open_store
from .measuring import SuiteOption, print_stored

lava_app = typer.Typer(help="Run platperf on a lab's boards through LAVA (docs/lava.md).",
                       no_args_is_help=True)
app.add_typer(lava_app, name="lava")

DeviceTypeOption = typer.Option(None, "--device-type", metavar="NAME",
                                help="LAVA device type; picks the shipped template of that name "
                                     "(ssh, juno-r1) unless --template is given.")
TemplateOption = typer.Option(None, "--template", metavar="FILE",
                              help="Deploy and boot sections for the device type (YAML; docs/lava.md).")
ArchOption = typer.Option(None, "--arch", help="Probe architecture the job carries (x86_64, aarch64, "
                                               "armv7) [default: the template's].")
LabelOption = typer.Option(None, "--label", help="Run label (the release: v2.12), kept in the job's "
                                                 "metadata for `ingest lava ID`.")
ModeOption = typer.Option(None, "--mode", help="serial, parallel or both for every entry "
                                               "[default: each entry's own].")
TimeoutOption = typer.Option(DEFAULT_TIMEOUT_MIN, "--timeout", metavar="MINUTES",
                             help="Time LAVA gives the suite on the board.")
PriorityOption = typer.Option("medium", "--priority", help="LAVA priority: high, medium, low or 0-100.")
ProbeUrlOption = typer.Option(None, "--probe-url", metavar="URL",
                              help="Where the lab's file server serves what `platperf lava definitions "
                                   "--out DIR` wrote: the board downloads the probe from there.")
RepoOption = typer.Option(None, "--definitions-repo", metavar="GIT_URL",
                          help="The lab's git test-definition repository holding what `platperf lava "
                               "definitions --out DIR` wrote: LAVA clones it into the job's overlay.")
RepoPathOption = typer.Option(None, "--definitions-path", metavar="PATH",
                              help="With --definitions-repo: the definition's path in it "
                                   "[default: platperf.yaml].")
RepoBranchOption = typer.Option(None, "--definitions-branch", metavar="NAME",
                                help="With --definitions-repo: the branch (or tag) to clone.")


EventsOption = typer.Option(None, "--events", metavar="LIST", help="Events counted with every sample "
                            "(cycles,instructions,l2d,...; docs/events.md), instead of the suite's `events`.")


def _job_text(suite, device_type, template, arch, label, mode, timeout, priority, delivery,
              events=None) -> tuple[str, bool]:
    """The job's YAML, and whether it carries the probe inline."""
    from ..lava.delivery import from_options
    from ..lava.job import build_job, dump_job, load_template
    from ..runner.suite import SuiteError, count_events, load_suite
    try:
        how = from_options(*delivery)
        loaded = load_suite(suite)
        count_events(loaded, events)
        job = build_job(loaded, load_template(device_type, template), label=label,
                        device_type=device_type, arch=arch, mode=mode, timeout_minutes=timeout,
                        priority=_priority(priority), delivery=how)
    except (LavaError, SuiteError) as exc:
        fail_exit(str(exc))
    return dump_job(job), how.form == "inline"


def _note_inline(text: str):
    """The fallback said once: the job's size, and how to make it small."""
    print(f"platperf: note: the job carries the probe inline: {len(text) // 1024} KiB, which LAVA "
          "keeps twice; for a job of a few KB serve `platperf lava definitions --out DIR` and give "
          "--probe-url URL or --definitions-repo GIT_URL (docs/lava.md)", file=sys.stderr)


def _priority(text: str):
    if text in ("high", "medium", "low"):
        return text
    if text.isdigit() and 0 <= int(text) <= 100:
        return int(text)
    fail_exit(f"--priority {text!r}: use high, medium, low or a number from 0 to 100")


@lava_app.command("job", epilog=examples(
    "platperf lava job --suite full --device-type juno-r1 --template my-juno-r1.yaml --label v2.12 "
    "--definitions-repo https://git.lab/lava-tests.git --definitions-path platperf/platperf.yaml > job.yaml",
    "platperf lava job --suite quick --device-type ssh --arch aarch64 --label nightly "
    "--probe-url https://files.lab/platperf-0.1.0 -o job.yaml",
    "platperf lava job --suite quick --device-type ssh --arch aarch64 -o job.yaml   # all inline: 0.7 MB"))
def job(
    suite: str = SuiteOption,
    device_type: Optional[str] = DeviceTypeOption,
    template: Optional[Path] = TemplateOption,
    arch: Optional[str] = ArchOption,
    label: Optional[str] = LabelOption,
    mode: Optional[str] = ModeOption,
    timeout: int = TimeoutOption,
    priority: str = PriorityOption,
    probe_url: Optional[str] = ProbeUrlOption,
    repo: Optional[str] = RepoOption,
    repo_path: Optional[str] = RepoPathOption,
    repo_branch: Optional[str] = RepoBranchOption,
    events: Optional[str] = EventsOption,
    output: Optional[Path] = typer.Option(None, "-o", "--output", metavar="FILE",
                                          help="Write the job here [default: stdout]."),
):
    """Write a LAVA job that runs a suite on one board of a device type.

    The job runs the suite's probe commands on every online CPU, reports each result as a
    LAVA test case with its measurement and unit, and prints the probe's whole JSON Lines
    stream and the board's description into the log, where `platperf ingest lava` finds
    them. The board gets the probe from the lab's file server (--probe-url) or git
    test-definition repository (--definitions-repo), which hold what `platperf lava
    definitions` writes; without either the job carries it inline (0.5-0.7 MB). Submit it
    with `lavacli jobs submit` or `platperf lava submit`.
    """
    text, inline = _job_text(suite, device_type, template, arch, label, mode, timeout, priority,
                             (probe_url, repo, repo_path, repo_branch), events)
    if inline:
        _note_inline(text)
    if output is None:
        sys.stdout.write(text)
        return
    from .. import atomic
    try:
        atomic.write_text(output, text)
    except OSError as exc:
        fail_exit(f"cannot write {output}: {exc.strerror}")
    print(f"wrote {output} ({len(text) // 1024} KiB)", file=sys.stderr)


@lava_app.command("submit", epilog=examples(
    "platperf lava submit --suite full --device-type am62xx-sk --template am62xx-sk.yaml --label sdk-11.1 "
    "--identity lab",
    "platperf lava submit --suite full --device-type juno-r1 --template my-juno-r1.yaml --label v2.12 "
    "--identity lab --wait --db postgresql://lab-db/platperf"))
def submit(
    suite: str = SuiteOption,
    device_type: Optional[str] = DeviceTypeOption,
    template: Optional[Path] = TemplateOption,
    arch: Optional[str] = ArchOption,
    label: Optional[str] = LabelOption,
    mode: Optional[str] = ModeOption,
    timeout: int = TimeoutOption,
    priority: str = PriorityOption,
    probe_url: Optional[str] = ProbeUrlOption,
    repo: Optional[str] = RepoOption,
    repo_path: Optional[str] = RepoPathOption,
    repo_branch: Optional[str] = RepoBranchOption,
    events: Optional[str] = EventsOption,
    identity: str = typer.Option("default", "--identity", metavar="NAME",
                                 help="lavacli identity: the server's URI, user and token "
                                      "(lavacli identities add ...)."),
    wait: bool = typer.Option(False, "--wait", help="Follow the job until it finishes, then ingest it."),
    poll: float = typer.Option(30.0, "--poll", metavar="SECONDS", help="With --wait: how often to ask."),
    target: Optional[str] = typer.Option(None, "--target", help="With --wait: the run's target "
                                         "[default: the LAVA device the job ran on]."),
    db: str = DbOption,
):
    """Submit the job `platperf lava job` writes to a LAVA server; with --wait, store its run.

    Prints the job id and its URL. With --wait it follows the job (one line per state
    change on stderr) and ingests it as `platperf ingest lava ID` would; a job that is
    incomplete or canceled is reported with LAVA's own error (exit 2), after storing
    whatever part of the run its log holds.
    """
    from ..lava.server import Server, load_identity
    if poll <= 0:
        fail_exit("--poll must be a positive number of seconds")
    text, inline = _job_text(suite, device_type, template, arch, label, mode, timeout, priority,
                             (probe_url, repo, repo_path, repo_branch), events)
    try:
        server = Server(load_identity(identity))
        job_id = server.submit(text)
    except LavaError as exc:
        fail_exit(str(exc))
    print(f"job {job_id} {server.job_url(job_id)}")
    if inline:
        sys.stdout.flush()
        _note_inline(text)
    if wait:
        sys.stdout.flush()
        _ingest_job_id(str(job_id), server, label=label, target=target, note=None, db=db, poll=poll)


@lava_app.command("definitions", epilog=examples(
    "platperf lava definitions --out /srv/files/platperf-0.1.0   # then: lava job --probe-url URL",
    "platperf lava definitions --out lava-tests/platperf --arch aarch64 --arch armv7   # then commit it"))
def definitions(
    out: Path = typer.Option(..., "--out", metavar="DIR", help="Directory to write (made if missing)."),
    arches: Optional[List[str]] = typer.Option(None, "--arch", help="Probe architecture to include "
                                               "(repeat) [default: every one this platperf has]."),
):
    """Write what a lab serves or commits so that its LAVA jobs stay small.

    DIR gets the test definition platperf.yaml, platperf's device files (device.sh,
    snapshot.sh, cases.awk), a probe per architecture (platperf-probe-ARCH), SHA256SUMS and a
    README. Serve DIR from the lab's file server and give its URL to `platperf lava job
    --probe-url`, or commit it to the lab's git test-definition repository and give that to
    `--definitions-repo`. Other files in DIR are left alone. Jobs name each file's sha256:
    write DIR again when platperf is upgraded.
    """
    from ..lava.delivery import write_definitions
    from ..probe_path import ARCHES, ProbeNotFound, find_probe
    binaries, missing = {}, []
    for arch in arches or ARCHES:
        if arch not in ARCHES:
            fail_exit(f"unknown --arch '{arch}' (valid: {', '.join(ARCHES)})")
        try:
            binaries[arch] = find_probe(arch).read_bytes()
        except (ProbeNotFound, OSError) as exc:
            if arches:
                fail_exit(str(exc))
            missing.append(arch)
    if not binaries:
        fail_exit(f"this platperf has no probe for {', '.join(missing)}; build them (make probe) "
                  "or give --arch for one it has")
    try:
        written = write_definitions(out, binaries)
    except LavaError as exc:
        fail_exit(str(exc))
    size = sum(p.stat().st_size for p in written)
    print(f"wrote {len(written)} files to {out} ({size // 1024} KiB): "
          + ", ".join(p.name for p in written))
    if missing:
        print(f"platperf: note: no probe for {', '.join(missing)} in this platperf: jobs for it "
              "cannot use this directory", file=sys.stderr)


# -- platperf ingest lava -------------------------------------------------------------------
def ingest_jobs(sources: List[Path], *, label, target, note, identity, db):
    """``platperf ingest lava SOURCE...``: each job id or saved log becomes one run."""
    server = None
    for source in sources:
        if source.exists() or not str(source).isdigit():
            _ingest_log_file(source, label=label, target=target, note=note, db=db)
            continue
        if server is None:
            from ..lava.server import Server, load_identity
            try:
                server = Server(load_identity(identity))
            except LavaError as exc:
                fail_exit(str(exc))
        _ingest_job_id(str(source), server, label=label, target=target, note=note, db=db)


def _ingest_log_file(path: Path, *, label, target, note, db):
    from ..ingest import read_lines
    if label is None:
        fail_exit("--label is required for a saved LAVA log (e.g. --label sdk-11.1); "
                  "a job id takes the label from the job's metadata")
    if not path.is_file():
        fail_exit(f"{path} is neither a file nor a LAVA job id")
    try:
        _store(read_lines(path), str(path), lava={}, label=label, target=target, note=note, db=db,
               origin=str(path))
    except OSError as exc:
        fail_exit(f"cannot read {path}: {exc.strerror}")


def _ingest_job_id(job_id: str, server, *, label, target, note, db, poll: float | None = None):
    from ..lava.server import FINISHED, fetch

    def said(job):
        device = f" on {job['device']}" if job.get("device") else ""
        print(f"job {job_id}: {job.get('state')}{device}", file=sys.stderr)
    try:
        job = fetch(server, job_id, label=label, poll=poll, progress=said)
    except LavaError as exc:
        fail_exit(str(exc))
    if job.state != FINISHED and poll is None:
        print(f"platperf: note: job {job_id} is {job.state}: storing what its log holds so far",
              file=sys.stderr)
    if job.label is None:
        fail_exit(f"job {job_id} has no platperf.label in its metadata; give --label")
    _store(job.lines, f"LAVA job {job_id}", lava=job.lava, label=job.label, target=target,
           note=note, db=db, origin=f"LAVA job {job_id}", lava_error=job.error)
    if job.error:
        fail_exit(f"LAVA job {job_id}: {job.error}")


def _store(lines, name: str, *, lava: dict, label, target, note, db, origin: str, lava_error=None):
    """The run of one job log, described by the board snapshot in it, into the store."""
    from ..ingest import IngestError
    from ..measure.streams import read_lava_log, store_stream
    from ..store import StoreError
    try:
        run = read_lava_log(lines, name, lava=lava, lava_error=lava_error, origin=origin)
        stored = store_stream(open_store(db), run, label=label, source="ingest:lava", note=note,
                              target=target or run.meta["lava"].get("device") or "lava")
    except (IngestError, StoreError) as exc:
        fail_exit(str(exc))
    print_stored(stored, origin, "ingest:lava")
