"""``platperf lava job``: one LAVA job that runs a suite on a lab's board.

The deploy and boot sections come from a per-device-type template (``templates/*.yaml``,
or ``--template FILE``)::

    device_type: juno-r1      # optional: the template's file name otherwise
    arch: aarch64             # the probe the job runs (x86_64, aarch64, armv7)
    actions:                  # LAVA deploy and boot actions, copied as they are
    - deploy: {...}
    - boot: {...}

The job's ``secrets`` carry its script: the suite's probe commands from the runner's plan,
with ``--cpus`` the device's online CPUs, and the sha256 of the probe for ``arch``. The probe
and platperf's device files (device.sh, the board snapshot script of the SSH target, the awk
program that makes a ``lava-test-case`` of every result) come from the lab's file server or
its git test-definition repository, or, the fallback, ride inline in the secrets too
(:mod:`.delivery`). The test section, one test definition, only unpacks and runs the script:
LAVA keeps the definition in the metadata of a result, which holds 4096 bytes. Every job
validates against LAVA's strict schema (tests/test_lava_job.py).
"""
from __future__ import annotations

import hashlib
import json
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from .. import __version__
from ..probe_path import ARCHES, ProbeNotFound, find_probe, machines_of
from ..adapters import ToolStep
from ..runner.suite import Suite, SuiteError, check_suite, plan
from ..targets.remote_sysroot import SAMPLE_INTERVAL_S
from . import LavaError
from .delivery import INLINE, Delivery, definition_entry, pieces, script_head

HERE = Path(__file__).resolve().parent
TEMPLATES_DIR = HERE / "templates"
TEMPLATE_KEYS = ("device_type", "arch", "actions", "timeouts", "context", "tags")
# The shell variable the device's online CPU list is in when the probe commands run.
CPUS_VARIABLE = "$CPUS"
DEFAULT_TIMEOUT_MIN = 120


@dataclass
class Template:
    name: str
    path: Path
    device_type: str
    arch: str | None
    actions: list
    extra: dict           # timeouts, context, tags: copied into the job


def shipped_templates() -> list[str]:
    return sorted(p.stem for p in TEMPLATES_DIR.glob("*.yaml"))


def load_template(device_type: str | None, path: Path | None = None) -> Template:
    """``--template FILE``, else the shipped template named ``device_type``."""
    if path is None:
        if device_type is None:
            raise LavaError("give --device-type (shipped templates: "
                            f"{', '.join(shipped_templates())}) or --template FILE")
        path = TEMPLATES_DIR / f"{device_type}.yaml"
        if not path.is_file():
            raise LavaError(f"no shipped template for device type '{device_type}' (shipped: "
                            f"{', '.join(shipped_templates())}); write one and give --template FILE "
                            "(docs/lava.md)")
    try:
        data = yaml.safe_load(Path(path).read_text())
    except OSError as exc:
        raise LavaError(f"cannot read template {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise LavaError(f"template {path} is not valid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise LavaError(f"template {path} must be a mapping with 'arch' and 'actions'")
    unknown = sorted(set(data) - set(TEMPLATE_KEYS))
    if unknown:
        raise LavaError(f"template {path}: unknown key(s) {', '.join(unknown)} "
                        f"(valid: {', '.join(TEMPLATE_KEYS)})")
    actions = data.get("actions")
    if not isinstance(actions, list) or not actions or not all(
            isinstance(a, dict) and len(a) == 1 and next(iter(a)) in ("deploy", "boot", "command")
            for a in actions):
        raise LavaError(f"template {path}: 'actions' must be a list of LAVA deploy and boot "
                        "actions (- deploy: {...}, - boot: {...})")
    arch = data.get("arch")
    if arch is not None and arch not in ARCHES:
        raise LavaError(f"template {path}: arch '{arch}' (valid: {', '.join(ARCHES)})")
    return Template(name=Path(path).stem, path=Path(path),
                    device_type=str(data.get("device_type") or device_type or Path(path).stem),
                    arch=arch, actions=actions,
                    extra={k: data[k] for k in ("timeouts", "context", "tags") if k in data})


def build_job(suite: Suite, template: Template, *, label: str | None = None,
              device_type: str | None = None, arch: str | None = None, mode: str | None = None,
              timeout_minutes: int = DEFAULT_TIMEOUT_MIN, priority: str = "medium",
              visibility: str = "public", delivery: Delivery = INLINE) -> dict:
    """The job as a mapping (``dump_job`` writes it); ``delivery``: where the board gets the
    probe and platperf's files."""
    arch = arch or template.arch
    if arch is None:
        raise LavaError(f"template {template.path} names no arch; give --arch "
                        f"({', '.join(ARCHES)})")
    if arch not in ARCHES:
        raise LavaError(f"unknown --arch '{arch}' (valid: {', '.join(ARCHES)})")
    if timeout_minutes < 1:
        raise LavaError("--timeout must be at least 1 minute")
    try:
        probe = find_probe(arch)
    except ProbeNotFound as exc:
        raise LavaError(str(exc)) from None
    _check_with_native_probe(suite)
    # a [[tool]] step (platperf.adapters) runs a tool and parses its output on the host:
    # not inside a LAVA job yet, so the job holds the suite's probe steps and names the rest
    steps = [s for s in plan(suite, CPUS_VARIABLE, mode) if not isinstance(s, ToolStep)]
    if not steps:
        raise LavaError(f"suite {suite.name} has only [[tool]] steps, which do not run inside a "
                        "LAVA job yet; use a suite with [[bench]] entries")
    device_type = device_type or template.device_type
    binary = probe.read_bytes()
    description = f"platperf suite {suite.name}: {suite.description}".strip(": ")
    name = f"platperf {suite.name}" + (f" {label}" if label else "") + f" on {device_type}"
    metadata = {"platperf.suite": suite.name, "platperf.version": __version__,
                "platperf.arch": arch}
    if label:
        metadata["platperf.label"] = label
    if suite.tools:
        metadata["platperf.tools-not-run"] = ",".join(t["adapter"] for t in suite.tools)[:200]
    job = {
        "job_name": name[:200],
        "device_type": device_type,
        "priority": priority,
        "visibility": visibility,
        "metadata": metadata,
        "timeouts": {"job": {"minutes": timeout_minutes + 30},
                     "action": {"minutes": 10},
                     "connection": {"minutes": 2}},
        **{k: v for k, v in template.extra.items() if k != "timeouts"},
        "secrets": device_secrets(steps, suite, arch, binary, delivery),
        "actions": [*template.actions, {"test": {
            "timeout": {"minutes": timeout_minutes},
            "definitions": [definition_entry(delivery, description)],
        }}],
    }
    if "timeouts" in template.extra:
        job["timeouts"] = {**job["timeouts"], **template.extra["timeouts"]}
    return job


def device_secrets(steps, suite: Suite, arch: str, binary: bytes, delivery: Delivery = INLINE) -> dict:
    """The job's ``secrets``, which LAVA writes into a file of the overlay on the device and
    into no log or result: the job's script (gzip + base64), and the probe when it rides
    inline. The script puts platperf's files next to itself (:func:`.delivery.script_head`),
    then runs device.sh and the probe commands."""
    machines = " ".join(machines_of(arch))
    variables = "\n".join(f"{name}={shlex.quote(str(value))}" for name, value in (
        ("PLATPERF_ARCH", arch), ("PLATPERF_MACHINES", machines),
        ("PLATPERF_PROBE_SHA256", hashlib.sha256(binary).hexdigest()),
        ("PLATPERF_SUITE", suite.name), ("PLATPERF_STEPS", len(steps)),
        ("PLATPERF_INTERVAL", f"{SAMPLE_INTERVAL_S:g}")))
    calls = "\n".join(
        f"platperf_step {number} {case_name(number, step.title)} " + " ".join(_word(a) for a in step.argv)
        for number, step in enumerate(steps, 1))
    head, probe = script_head(delivery, binary)
    script = "\n".join(["D=$1", variables, head, '. "$D/device.sh"', calls, 'echo "PLATPERF-LAVA-END"\n'])
    return {**probe, **pieces("PLATPERF_SCRIPT", script.encode())}


def case_name(number: int, title: str) -> str:
    """The LAVA test case of one probe command: ``platperf-03_mem-latency_seq_128_auto_serial``."""
    words = re.sub(r"[^A-Za-z0-9.-]+", "_", title).strip("_")
    return f"platperf-{number:02d}_{words}"[:100]


def _word(arg: str) -> str:
    return f'"{CPUS_VARIABLE}"' if arg == CPUS_VARIABLE else shlex.quote(arg)


def _check_with_native_probe(suite: Suite):
    """The suite's kernels and parameters against ``platperf-probe list --json`` of this
    machine's probe (the same table on every architecture), when there is one."""
    try:
        native = find_probe()
    except ProbeNotFound:
        return
    try:
        out = subprocess.run([str(native), "list", "--json"], capture_output=True, text=True,
                             timeout=60)
        kernels = json.loads(out.stdout)["kernels"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
        return
    try:
        check_suite(suite, kernels)
    except SuiteError as exc:
        raise LavaError(str(exc)) from None


class _JobDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # libyaml: 20x faster on 1 MB
    pass


def _str(dumper, value: str):
    # Here-documents as YAML literal blocks: a job a person can read (and LAVA parses).
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_JobDumper.add_representer(str, _str)


def dump_job(job: dict) -> str:
    return yaml.dump(job, Dumper=_JobDumper, sort_keys=False, width=1000, allow_unicode=True)
