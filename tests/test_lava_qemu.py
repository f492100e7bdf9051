"""A platperf job on LAVA's `qemu` device type: Debian's arm64 kernel booted by the lab.

The way kernel and firmware CIs test an Arm kernel without the hardware: the job's deploy
downloads a kernel and an initramfs to the worker (`to: tmpfs`), LAVA adds its test overlay
into the initramfs, boots them with `qemu-system-aarch64` (TCG: no KVM here) and runs the
job in the shell on the guest's serial console. The kernel and initramfs are the virtual
board's (tests/vboard.py: Debian's linux-image-arm64, busybox, the project's probe); the
job comes from the shipped `qemu` template with their URLs. Under TCG the figures mean
nothing: this checks that the job runs, reports and ingests on a real arm64 kernel. It runs
twice: the probe inline in the job, and from a git test-definition repository (a file:// one
written by `platperf lava definitions`) that the worker clones into the overlay LAVA adds to
the initramfs: the guest, on QEMU's restricted user network, reaches no file server.
"""
from __future__ import annotations

import json
import urllib.request

import pytest
import yaml

from conftest import missing, require_module
from lab_files import git_repository
from test_lava_submit import TINY_SUITE, platperf, suite_file

from lava_server import QEMU_DEVICE
from platperf.lava.job import TEMPLATES_DIR
from platperf.store import Store

# The virtual board's initramfs gives no shell on the console (it is reached over ssh);
# a LAVA lab's initramfs does: the job has LAVA put this inittab in.
CONSOLE_INITTAB = """::sysinit:/bin/busybox sh /etc/rc
::respawn:-/bin/sh
"""


@pytest.fixture(scope="module")
def arm64_kernel():
    """The virtual board's kernel and initramfs (built from Debian's packages, cached)."""
    import vboard
    why = vboard.missing_parts("aarch64")
    if why:
        missing(why)
    return vboard.build("aarch64", log=print)


def qemu_template(image, tmp_path) -> str:
    """The shipped template, its URLs the virtual board's files."""
    template = yaml.safe_load((TEMPLATES_DIR / "qemu.yaml").read_text())
    images = template["actions"][0]["deploy"]["images"]
    images["kernel"]["url"] = image.kernel.as_uri()
    images["ramdisk"]["url"] = image.initramfs.as_uri()
    (tmp_path / "inittab").write_text(CONSOLE_INITTAB)
    images["ramdisk"]["overlays"]["inittab"] = {"url": (tmp_path / "inittab").as_uri(), "format": "file",
                                                "path": "/etc/inittab"}
    path = tmp_path / "qemu.yaml"
    path.write_text(yaml.safe_dump(template))
    return str(path)


def definitions_repository(tmp_path) -> list[str]:
    """--definitions-repo of a repository holding what `platperf lava definitions` wrote."""
    done = platperf(["lava", "definitions", "--out", tmp_path / "defs", "--arch", "aarch64"], None)
    assert done.returncode == 0, done.stderr
    return ["--definitions-repo", git_repository(tmp_path / "defs", tmp_path / "lava-tests.git")]


@pytest.mark.parametrize("form", ["inline", "git"])
def test_a_platperf_job_on_lavas_qemu_device_runs_on_debians_arm64_kernel(lava_lab, arm64_kernel, tmp_path, form):
    require_module("lavacli")
    env = lava_lab.identity(tmp_path / "config")
    db = tmp_path / "r.db"
    delivery = definitions_repository(tmp_path) if form == "git" else []
    done = platperf(["lava", "submit", "--suite", suite_file(tmp_path, TINY_SUITE), "--device-type", "qemu",
                     "--template", qemu_template(arm64_kernel, tmp_path), "--label", "qemu-e2e",
                     "--identity", "lab", "--wait", "--poll", "1", "--db", db, *delivery], env)
    assert done.returncode == 0, done.stderr + lava_lab.log_tail("worker")
    job_id = int(done.stdout.split()[1])
    assert done.stderr.splitlines()[-1] == f"job {job_id}: Finished on {QEMU_DEVICE}"
    with urllib.request.urlopen(f"{lava_lab.url}/api/v0.2/jobs/{job_id}/", timeout=60) as answer:
        body = answer.read()
    job = json.loads(body)
    assert (job["health"], job["failure_comment"]) == ("Complete", None)
    # the REST view holds the definition twice: the probe's 0.7 MB, or a few KB from git
    assert (len(body) < 16 * 1024) == (form == "git"), len(body)
    store = Store(str(db))
    run = store.runs()[-1]
    assert (run["target"], run["status"], run["suite"]) == (QEMU_DEVICE, "complete", "tiny")
    # the board described from its own snapshot: the guest's arm64 kernel, its 2 CPUs placed
    assert run["meta"]["arch"] == "aarch64"
    assert run["fingerprint"]["kernel"]["release"] == arm64_kernel.kernel_version
    results = store.results(run["id"])
    assert len(results) == 2 * 2 * 2 * 2          # sizes x metrics x modes x CPUs
    assert {r.cpu for r in results} == {0, 1} and all(r.cluster is not None for r in results)
