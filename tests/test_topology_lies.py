"""A board whose topology contradicts itself (issue 39 part 3): an out-of-range or missing
cluster_id, CPUs saying the same core_id, a cluster_id of 70000 on every CPU. Each is one
finding naming the CPUs and ids; only the CPUs concerned are keyed otherwise; compare refuses to
pair runs whose CPUs are placed otherwise. On Juno trees (tests/fixtures/sysfs/juno), read
here and over the tests' sshd."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from platperf import doctor
from platperf.fingerprint import collect
from platperf.fingerprint.comparability import diff
from platperf.topology import read_topology

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
CPU = "sys/devices/system/cpu"


def juno(tmp_path, **ids) -> Path:
    """A copy of the Juno tree with ``cpuN_file=value`` written (``cpu1_cluster_id=70000``)."""
    root = tmp_path / "juno"
    shutil.copytree(SYSFS / "juno", root)
    for name, value in ids.items():
        cpu, file = name.split("_", 1)
        path = root / CPU / cpu / "topology" / file
        if value is None:
            path.unlink()
        else:
            path.write_text(f"{value}\n")
    return root


def places(root) -> dict[int, tuple]:
    topo = read_topology(root)
    return {c.cpu: topo.place_of(c) for c in topo.cpus}


def findings(root) -> list[str]:
    return [f.message for f in doctor.check(root, sample_s=0) if f.code == "topology-contradicts-itself"]


def test_an_honest_juno_has_no_finding():
    assert findings(SYSFS / "juno") == []


@pytest.mark.parametrize("value", [70000, -7, None])
def test_one_cpus_bad_cluster_id_touches_that_cpu_alone(tmp_path, value):
    """CPU 1 of Juno (an A57 of cluster 0) says cluster_id 70000 (or -7, or has none): it stays
    at (0, 1), placed by the L2 it shares with CPU 0; every other CPU is where it was."""
    root = juno(tmp_path, cpu1_cluster_id=value)
    assert places(root) == places(SYSFS / "juno")
    (line,) = findings(root)
    assert "CPU(s) 1" in line and f"CPU 1: {value}" in line and "placed in cluster 0" in line


def test_every_cpu_out_of_range_is_said_and_grouped_by_package(tmp_path):
    root = juno(tmp_path, **{f"cpu{c}_cluster_id": 70000 for c in range(6)})
    topo = read_topology(root)
    assert topo.cluster_source == "package_id"
    (line,) = findings(root)
    assert "CPU(s) 0-5" in line and "CPU 0: 70000" in line and "package id instead" in line


def test_two_cpus_saying_one_core_id_are_said(tmp_path):
    """CPUs 2 and 3 (A53s of cluster 1) both say core_id 0 and are not SMT threads."""
    root = juno(tmp_path, cpu3_core_id=0)
    keyed = places(root)
    assert len(set(keyed.values())) == 6            # still one place a CPU
    (line,) = findings(root)
    assert "CPUs 2-3 all say core_id 0 in cluster 1" in line


def test_compare_refuses_runs_whose_cpus_are_placed_otherwise(tmp_path):
    """The fingerprint keeps every CPU's place; a run whose places differ is not paired key
    for key unless forced."""
    honest = collect(SYSFS / "juno")
    moved = collect(juno(tmp_path, cpu1_cluster_id=70000))
    assert diff(honest, honest) == []
    other = read_topology(juno(tmp_path / "b", cpu0_cluster_id=1, cpu1_cluster_id=1))
    fp_other = collect(tmp_path / "b" / "juno", topology=other)
    (difference,) = [d for d in diff(honest, fp_other) if d.key == "topology.places"]
    assert difference.refuse
    assert [d.key for d in diff(honest, moved) if d.key == "topology.places"] == []   # repaired, same places


def test_a_lying_board_over_ssh_is_said_by_doctor(sshd, board_liar, tmp_path):
    """The board-liar of the tests' sshd hands platperf a Juno tree whose CPU 1 says cluster_id
    70000 and whose CPUs 2 and 3 say one core_id: doctor over SSH says both, once each."""
    root = juno(tmp_path, cpu1_cluster_id=70000, cpu3_core_id=0)
    board_liar("liar-snapshot", f'eval "set -- $SSH_ORIGINAL_COMMAND"\nexec sh -s -- "{root}" "$5"\n')
    done = subprocess.run([sys.executable, "-m", "platperf", "doctor", "--target", "ssh://board-liar", "--no-probe",
                           "--json"], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=dict(os.environ, PLATPERF_SSH_CONFIG=str(sshd.client_config), TMPDIR=str(tmp_path)))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    lines = [f["message"] for f in out["findings"] if f["code"] == "topology-contradicts-itself"]
    assert len(lines) == 2 and "CPU 1: 70000" in lines[0] and "CPUs 2-3 all say core_id 0" in lines[1]
    cpus = {c["cpu"]: (c["cluster"], c["core"]) for c in out["fingerprint"]["topology"]["cpus"]}
    assert cpus[1] == (0, 1) and cpus[0] == (0, 0)
