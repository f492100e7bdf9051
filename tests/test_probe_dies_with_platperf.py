"""Nothing outlives platperf (issue 39 part 5): the probe on this machine dies with the platperf
that started it, even one killed by SIGKILL, which runs no code of its own. The probe is in
one sample of 60 s (latency-loop): without PR_SET_PDEATHSIG it would write nothing, meet no
closed pipe and run on for a minute."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from conftest import require_probe
from test_board_trust import processes_of
from test_psci import wait_for

SUITE = 'repeat = 1\n[[bench]]\nkernel = "latency-loop"\nduration = 60\nsamples = 1\nwarmup = 0\n'


def test_a_platperf_killed_by_sigkill_takes_its_probe_with_it(tmp_path):
    probe = os.path.realpath(require_probe())
    (tmp_path / "long.toml").write_text(SUITE)
    proc = subprocess.Popen([sys.executable, "-m", "platperf", "run", "--suite", "long.toml", "--cpus", "0",
                             "--db", "k.db", "--label", "k", "--quiet"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert wait_for(lambda: processes_of(probe, b"latency-loop") or proc.poll() is not None, 120)
    assert proc.poll() is None, proc.stderr.read()
    (pid,) = processes_of(probe, b"latency-loop")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    # the sample has about 60 s to go: gone within 10 s is the kernel's doing, not the sample's end
    assert wait_for(lambda: not Path(f"/proc/{pid}").exists() or _zombie(pid), 10), "the probe runs on"


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
