"""The psci suite's probe kernels: cpu-hotplug on this machine's CPU 1 (root), cpu-idle on a
writable copy of the Juno tree, and the restore guardian.

Every CPU online before a test is online after it — after a normal end, Ctrl-C (SIGINT to the
probe, and to the whole process group of `platperf run` as a terminal sends it), SIGTERM, a
SIGKILL of the probe and a dropped SSH connection. The `cpus_back_online` fixture checks it
after every test of this module (waiting up to RESTORE_WAIT_S for a guardian), restores what
stayed offline and fails the test if anything did. Functional checks only: no timing.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import missing, require_probe

from platperf import doctor

CPU_SYS = Path("/sys/devices/system/cpu")
SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
TRACEFS = Path("/sys/kernel/tracing")
RESTORE_WAIT_S = 15.0
# a CPU held offline this long (ms) is offline when the test acts
HOLD_MS = "400"


def online() -> str:
    return (CPU_SYS / "online").read_text().strip()


def cpu1_online() -> str:
    return (CPU_SYS / "cpu1" / "online").read_text().strip()


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.fixture(autouse=True)
def cpus_back_online():
    before = online()
    yield
    if wait_for(lambda: online() == before, RESTORE_WAIT_S):
        return
    left = online()
    for cpu in CPU_SYS.glob("cpu[0-9]*"):
        if (cpu / "online").exists() and (cpu / "online").read_text().strip() == "0":
            (cpu / "online").write_text("1")
    pytest.fail(f"CPUs online before: {before}, after: {left} (restored by the test)")


def hotplug_cpu1() -> str:
    """The probe, when this machine lets the tests take CPU 1 offline (root, CPU 1 hotpluggable)."""
    probe = require_probe()
    if os.geteuid() != 0 or not (CPU_SYS / "cpu1" / "online").exists():
        missing("CPU hotplug tests need root and a hotpluggable CPU 1 (/sys/devices/system/cpu/cpu1/online)")
    if cpu1_online() != "1":
        pytest.fail("CPU 1 is offline before the test")
    return probe


def records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def start_probe(probe: str, *args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([probe, "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


def wait_offline(proc) -> None:
    assert wait_for(lambda: cpu1_online() == "0" or proc.poll() is not None, 20), "CPU 1 never went offline"
    assert proc.poll() is None, proc.stderr.read()


def probe_processes(probe: str) -> list[int]:
    """PIDs running the probe binary (the probe and its guardian)."""
    pids = []
    for p in Path("/proc").glob("[0-9]*"):
        try:
            if os.readlink(p / "exe") == os.path.realpath(probe):
                pids.append(int(p.name))
        except OSError:
            pass
    return pids


@pytest.fixture
def tracefs():
    """tracefs at /sys/kernel/tracing, mounted for the test when it was not (and unmounted)."""
    if os.geteuid() != 0:
        missing("mounting tracefs needs root")
    mounted = (TRACEFS / "events").is_dir()
    if not mounted and subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)]).returncode != 0:
        missing("tracefs cannot be mounted here (kernel without CONFIG_TRACING?)")
    try:
        if not (TRACEFS / "events" / "cpuhp").is_dir():
            missing("this kernel has no cpuhp tracepoints")
        yield TRACEFS
        left = list((TRACEFS / "instances").glob("platperf-*"))
    finally:
        for instance in (TRACEFS / "instances").glob("platperf-*"):
            instance.rmdir()
        if not mounted:
            subprocess.run(["umount", str(TRACEFS)], check=True)
    assert not left, f"tracefs instances left behind: {left}"


# -- cpu-hotplug ---------------------------------------------------------------------------
def test_hotplug_measures_cpu1_and_reports_cpu0_as_not_hotpluggable():
    probe = hotplug_cpu1()
    done = subprocess.run([probe, "run", "cpu-hotplug", "--cpus", "0,1", "--samples", "3", "--trace", "off"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    recs = records(done.stdout)
    results = {r["metric"]: r for r in recs if r["type"] == "result"}
    assert set(results) == {"offline", "online"}
    for r in results.values():
        assert (r["benchmark"], r["cpu"], r["unit"], len(r["samples"])) == ("cpu-hotplug", 1, "us", 3)
        assert r["from_cpu"] == 0
        assert all(s > 0 for s in r["samples"]) and len(r["ticks"]) == 3
    if not (CPU_SYS / "cpu0" / "online").exists():
        assert {"type": "warning", "code": "cpu-not-hotpluggable", "cpu": 0}.items() <= \
            next(r for r in recs if r.get("code") == "cpu-not-hotpluggable").items()
    assert recs[-1]["status"] == "complete"
    assert cpu1_online() == "1"     # at once: the probe restores before it ends


def test_hotplug_splits_each_operation_into_cpuhp_phases(tracefs):
    probe = hotplug_cpu1()
    done = subprocess.run([probe, "run", "cpu-hotplug", "--cpus", "1", "--samples", "2"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    results = [r for r in records(done.stdout) if r["type"] == "result"]
    phases = {(r["params"]["op"], r["metric"]): r for r in results}
    assert {r["benchmark"] for r in results} == {"cpu-hotplug-phases"}
    assert set(phases) == {("offline", m) for m in ("total", "cpu_stop", "ap_states", "bp_states", "untraced")} | \
                          {("online", m) for m in ("total", "cpu_start", "ap_states", "bp_states", "untraced")}
    for op in ("offline", "online"):
        total = phases[(op, "total")]["samples"]
        parts = [phases[(op, m)]["samples"] for m in ("cpu_stop" if op == "offline" else "cpu_start",
                                                       "ap_states", "bp_states", "untraced")]
        for i, t in enumerate(total):   # the phases account for the whole operation
            assert sum(p[i] for p in parts) == pytest.approx(t, abs=0.01)
        assert all(s > 0 for s in phases[(op, "ap_states")]["samples"])


def test_hotplug_refuses_parallel_mode_and_both_kernels_bad_values():
    probe = require_probe()
    for kernel, args, says in (("cpu-hotplug", ["--mode", "parallel"], "--mode parallel is not valid"),
                               ("cpu-hotplug", ["--offline-for", "-1"], "--offline-for '-1' is not valid"),
                               ("cpu-hotplug", ["--from", "4096"], "--from '4096' is not valid"),
                               ("cpu-idle", ["--sleep", "0"], "--sleep '0' is not valid")):
        done = subprocess.run([probe, "run", kernel, *args], capture_output=True, text=True)
        assert done.returncode == 2 and says in done.stderr and done.stdout == ""


def test_on_a_board_tree_the_first_cpu_issues_when_every_cpu_is_listed(tmp_path):
    """The issuing-CPU logic on a copy of the Juno tree (every CPU has an online file): the
    probe writes only into the copy, which it leaves as it found it."""
    probe = require_probe()
    root = tmp_path / "juno"
    shutil.copytree(SYSFS / "juno", root)
    done = subprocess.run([probe, "run", "cpu-hotplug", "--root", str(root), "--cpus", "0,1",
                           "--samples", "2", "--trace", "off"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    recs = records(done.stdout)
    assert [(r["code"], r["cpu"]) for r in recs if r["type"] == "warning"
            if r["code"].startswith("cpu-")] == [("cpu-issues-requests", 0)]
    assert {r["cpu"] for r in recs if r["type"] == "result"} == {1}
    assert (root / "sys/devices/system/cpu/cpu1/online").read_text().strip() == "1"


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signalled_probe_brings_the_cpu_back_before_it_ends(sig, code):
    probe = hotplug_cpu1()
    proc = start_probe(probe, "cpu-hotplug", "--cpus", "1", "--samples", "1000", "--offline-for", HOLD_MS,
                       "--trace", "off")
    wait_offline(proc)
    proc.send_signal(sig)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == code
    assert cpu1_online() == "1"
    assert records(out)[-1]["status"] == "interrupted"


def test_a_killed_probe_leaves_the_guardian_to_restore(tracefs):
    """SIGKILL: nothing of the probe runs; its guardian sees the pipe close, brings CPU 1
    back, removes the tracefs instance and exits."""
    probe = hotplug_cpu1()
    proc = start_probe(probe, "cpu-hotplug", "--cpus", "1", "--samples", "1000", "--offline-for", "3000")
    wait_offline(proc)
    proc.kill()
    proc.communicate(timeout=30)
    assert wait_for(lambda: cpu1_online() == "1", RESTORE_WAIT_S)
    assert wait_for(lambda: not probe_processes(probe), RESTORE_WAIT_S), "the guardian did not exit"
    assert wait_for(lambda: not list((tracefs / "instances").glob("platperf-*")), RESTORE_WAIT_S)


def children_of(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").glob("[0-9]*"):
        try:
            stat = (p / "stat").read_text()
        except OSError:
            continue
        if int(stat[stat.rfind(")") + 2:].split()[1]) == pid:
            out.append(int(p.name))
    return out


def test_pkill_of_the_probe_by_name_or_command_line_spares_the_guardian(tracefs):
    """`pkill -9 platperf-probe` (by name) or `pkill -9 -f platperf-probe` (by command line)
    used to match the guardian too: it kept the probe's name and command line, so both died
    together and CPU 1 stayed offline. The guardian now has its own name and command line, and
    the tracefs instance is the guardian's before it is made. What pkill would kill is asked of
    pgrep and killed here, among this test's processes only (other probes may run on this
    machine)."""
    probe = hotplug_cpu1()
    proc = start_probe(probe, "cpu-hotplug", "--cpus", "1", "--samples", "1000", "--offline-for", "3000")
    wait_offline(proc)
    assert wait_for(lambda: children_of(proc.pid), 10), "no guardian"
    (guardian,) = children_of(proc.pid)
    assert Path(f"/proc/{guardian}/comm").read_text().strip() == "platperf-guard"
    assert b"platperf-probe" not in Path(f"/proc/{guardian}/cmdline").read_bytes()
    assert list((tracefs / "instances").glob(f"platperf-hotplug-{proc.pid}"))
    ours = {proc.pid, guardian}
    by_name = {int(p) for p in subprocess.run(["pgrep", "-x", "platperf-probe"], capture_output=True,
                                              text=True).stdout.split()} & ours
    by_line = {int(p) for p in subprocess.run(["pgrep", "-f", "platperf-probe"], capture_output=True,
                                              text=True).stdout.split()} & ours
    assert by_name == by_line == {proc.pid}
    for pid in by_name | by_line:
        os.kill(pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert wait_for(lambda: cpu1_online() == "1", RESTORE_WAIT_S)
    assert wait_for(lambda: not Path(f"/proc/{guardian}").exists(), RESTORE_WAIT_S), "the guardian did not exit"
    assert wait_for(lambda: not list((tracefs / "instances").glob("platperf-*")), RESTORE_WAIT_S)


def test_the_probe_and_its_guardian_killed_together_are_undone_by_the_next_probe(tracefs, tmp_path):
    """A cgroup kill, or `kill -9` of both: nothing of the run is left to restore. The guardian's
    journal ($TMPDIR/platperf-UID/restore-PID) stays, and the next probe's `info` puts CPU 1
    back, removes the tracefs instance and says so in a warning."""
    probe = hotplug_cpu1()
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = start_probe(probe, "cpu-hotplug", "--cpus", "1", "--samples", "1000", "--offline-for", "3000", env=env)
    wait_offline(proc)
    assert wait_for(lambda: children_of(proc.pid), 10), "no guardian"
    (guardian,) = children_of(proc.pid)
    journal = tmp_path / f"platperf-{os.getuid()}" / f"restore-{proc.pid}"
    assert journal.is_file() and f"guardian\t{guardian}" in journal.read_text()
    for pid in (guardian, proc.pid):
        os.kill(pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert wait_for(lambda: not Path(f"/proc/{guardian}").exists(), 10)
    time.sleep(0.5)                 # nothing is left that could bring the CPU back by itself
    assert cpu1_online() == "0" and list((tracefs / "instances").glob(f"platperf-hotplug-{proc.pid}"))
    info = subprocess.run([probe, "info"], capture_output=True, text=True, timeout=60, env=env)
    assert info.returncode == 0, info.stderr
    [said] = [r for r in records(info.stdout) if r.get("code") == "restored-after-kill"]
    assert f"probe {proc.pid}" in said["message"]
    assert cpu1_online() == "1"
    assert not list((tracefs / "instances").glob("platperf-*")) and not journal.exists()
    again = subprocess.run([probe, "info"], capture_output=True, text=True, timeout=60, env=env)
    assert "restored-after-kill" not in again.stdout          # once, not at every start


def test_a_finished_run_leaves_no_journal(tmp_path):
    probe = hotplug_cpu1()
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run([probe, "run", "cpu-hotplug", "--cpus", "1", "--samples", "1000", "--trace", "off"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / f"platperf-{os.getuid()}").is_dir()
    assert not list((tmp_path / f"platperf-{os.getuid()}").iterdir())


def test_ctrl_c_on_platperf_run_restores_the_cpu(tmp_path):
    """Ctrl-C in a terminal: SIGINT to the whole foreground process group (platperf, the
    probe; the guardian is in a session of its own). The run is kept as partial."""
    hotplug_cpu1()
    suite = tmp_path / "hold.toml"
    suite.write_text(f'[[bench]]\nkernel = "cpu-hotplug"\ntrace = "off"\nsamples = 1000\noffline_for = {HOLD_MS}\n')
    db = tmp_path / "r.db"
    proc = subprocess.Popen([sys.executable, "-m", "platperf", "run", "--suite", str(suite), "--db", str(db),
                             "--cpus", "1", "--label", "ctrl-c"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_offline(proc)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert cpu1_online() == "1"
    assert "partial" in out + err


def test_a_dropped_ssh_connection_restores_the_cpu(sshd, tmp_path):
    """The connection to a board is lost mid-run (the ssh client killed): the probe's output
    is gone, it stops and brings the CPU back; nothing of it stays on the board."""
    from platperf.targets.ssh import SshTarget
    probe = hotplug_cpu1()
    target = SshTarget("ssh://board", remote_dir=str(tmp_path / "remote"), ssh_options=sshd.ssh_options())
    try:
        remote = target.run(["run", "cpu-hotplug", "--cpus", "1", "--samples", "1000",
                             "--offline-for", "3000", "--trace", "off"])
        wait_offline(remote.proc)
        remote.proc.kill()          # the ssh session client: the channel closes under the probe
        remote.proc.wait(30)
    finally:
        target.close()              # and the master connection with it
    assert wait_for(lambda: cpu1_online() == "1", RESTORE_WAIT_S)
    remote_probe = tmp_path / "remote" / Path(probe).name
    assert wait_for(lambda: not [p for p in Path("/proc").glob("[0-9]*")
                                 if str(tmp_path / "remote") in _cmdline(p)], RESTORE_WAIT_S), \
        f"a process of {remote_probe} is still running"


def _cmdline(pid_dir: Path) -> str:
    try:
        return (pid_dir / "cmdline").read_text(errors="replace")
    except OSError:
        return ""


# -- cpu-idle ------------------------------------------------------------------------------
def juno_copy(tmp_path) -> Path:
    root = tmp_path / "juno"
    shutil.copytree(SYSFS / "juno", root)
    return root


def disables(root: Path, cpu: int) -> list[str]:
    return [(root / f"sys/devices/system/cpu/cpu{cpu}/cpuidle/state{s}/disable").read_text().strip()
            for s in range(3)]


def test_idle_states_are_measured_one_by_one_beside_their_advertised_latency(tmp_path):
    probe = require_probe()
    root = juno_copy(tmp_path)
    (root / "sys/devices/system/cpu/cpu1/cpuidle/state2/disable").write_text("1\n")
    done = subprocess.run([probe, "run", "cpu-idle", "--root", str(root), "--cpus", "0,1", "--samples", "2",
                           "--sleep", "100"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    recs = records(done.stdout)
    results = {(r["cpu"], r["params"]["state"], r["metric"]): r for r in recs if r["type"] == "result"}
    states = ("WFI", "cpu-sleep-0", "cluster-sleep-0")
    assert set(results) == {(c, s, m) for c in (0, 1) for s in states
                            for m in ("wakeup_lateness", "exit_latency", "target_residency")}
    assert [results[(0, s, "exit_latency")]["samples"] for s in states] == [[1], [1500], [1600]]
    assert [results[(1, s, "target_residency")]["samples"] for s in states] == [[1], [2000], [2500]]
    assert len(results[(1, "WFI", "wakeup_lateness")]["samples"]) == 2
    # a copy's usage counters never move: each state is reported as not entered
    assert len([r for r in recs if r.get("code") == "idle-state-not-entered"]) == 6
    assert disables(root, 0) == ["0", "0", "0"] and disables(root, 1) == ["0", "0", "1"]


def test_only_the_measured_state_is_enabled_while_it_is_measured(tmp_path):
    probe = require_probe()
    root = juno_copy(tmp_path)
    proc = start_probe(probe, "cpu-idle", "--root", str(root), "--cpus", "1", "--samples", "3",
                       "--sleep", "100000")
    readings = []
    while proc.poll() is None:
        # three files read one after another can straddle a switch: a reading counts once a
        # second one agrees with it (the probe holds a state for 300 ms, a switch takes microseconds)
        now = disables(root, 1)
        if now == disables(root, 1) and (not readings or readings[-1] != now):
            readings.append(now)
        time.sleep(0.01)
    assert proc.returncode == 0, proc.stderr.read()
    alone = [i for i, r in enumerate(readings) if r.count("0") == 1]
    assert [readings[i].index("0") for i in alone] == [0, 1, 2], readings
    # from the first state measured to the last, never two states enabled at once (all disabled
    # for the instant of a switch); before and after, the restore may pass through any mix
    assert all(r.count("0") <= 1 for r in readings[alone[0]:alone[-1] + 1]), readings
    assert disables(root, 1) == ["0", "0", "0"]


def job_thread_cpus(pid: int) -> set[int]:
    """The CPUs the probe's threads other than its main one last ran on (stat field 39)."""
    cpus = set()
    for task in Path(f"/proc/{pid}/task").glob("[0-9]*"):
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        if int(task.name) != pid:
            cpus.add(int(stat.rsplit(")", 1)[1].split()[36]))
    return cpus


def test_in_parallel_every_cpu_has_the_state_alone_and_sleeps_in_it_at_once(tmp_path):
    """TF-A's "in parallel": state by state, the state alone enabled on every CPU, and one
    thread a CPU sleeping at the same time (so that a cluster can go down)."""
    probe = require_probe()
    root = juno_copy(tmp_path)
    proc = start_probe(probe, "cpu-idle", "--root", str(root), "--cpus", "0,1", "--mode", "parallel",
                       "--samples", "3", "--sleep", "100000")
    readings, threads_on = [], set()
    while proc.poll() is None:
        now = (disables(root, 0), disables(root, 1))
        if now == (disables(root, 0), disables(root, 1)) and (not readings or readings[-1] != now):
            readings.append(now)
        threads_on.add(frozenset(job_thread_cpus(proc.pid)))
        time.sleep(0.01)
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    both = [cpu0.index("0") for cpu0, cpu1 in readings if cpu0 == cpu1 and cpu0.count("0") == 1]
    assert both == [0, 1, 2], readings
    assert frozenset({0, 1}) in threads_on          # two measuring threads, one on each CPU
    recs = [r for r in records(out) if r["type"] == "result" and r["metric"] == "wakeup_lateness"]
    assert {(r["cpu"], r["params"]["state"], r["mode"]) for r in recs} == {
        (c, s, "parallel") for c in (0, 1) for s in ("WFI", "cpu-sleep-0", "cluster-sleep-0")}
    assert all(len(r["samples"]) == 3 for r in recs)
    assert disables(root, 0) == disables(root, 1) == ["0", "0", "0"]


def test_a_killed_idle_run_has_its_states_restored_by_the_guardian(tmp_path):
    probe = require_probe()
    root = juno_copy(tmp_path)
    proc = start_probe(probe, "cpu-idle", "--root", str(root), "--cpus", "0,1", "--samples", "100",
                       "--sleep", "200000")
    assert wait_for(lambda: disables(root, 0) != ["0", "0", "0"], 20)
    proc.kill()
    proc.communicate(timeout=30)
    assert wait_for(lambda: disables(root, 0) == ["0", "0", "0"] and disables(root, 1) == ["0", "0", "0"],
                    RESTORE_WAIT_S)


def test_without_cpuidle_the_kernel_says_so_and_measures_nothing(tmp_path):
    probe = require_probe()
    done = subprocess.run([probe, "run", "cpu-idle", "--root", str(SYSFS / "am62x"), "--cpus", "0"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    recs = records(done.stdout)
    # beside what the meta warns of this machine's counter (a VM's TSC moving in 10 ns steps)
    counter = {"counter-coarse-step", "counter-low-resolution", "counter-fallback"}
    assert [r["code"] for r in recs if r["type"] == "warning" and r["code"] not in counter] == ["no-cpuidle"]
    assert not [r for r in recs if r["type"] == "result"]
    assert recs[-1] == {**recs[-1], "status": "complete", "results": 0}


def test_doctor_says_whether_there_are_idle_states():
    (found,) = doctor.check_cpuidle(SYSFS / "juno")
    assert (found.level, found.code) == ("ok", "cpuidle-states")
    assert "WFI, cpu-sleep-0, cluster-sleep-0" in found.message
    (none,) = doctor.check_cpuidle(SYSFS / "am62x")
    assert (none.level, none.code) == ("info", "no-cpuidle")
    assert "psci suite" in none.effect


# -- the suite -----------------------------------------------------------------------------
def test_psci_suite_runs_here_and_reports_tfa_tables(tmp_path):
    hotplug_cpu1()
    db = tmp_path / "r.db"
    run = subprocess.run([sys.executable, "-m", "platperf", "run", "--suite", "psci", "--db", str(db),
                          "--label", "here"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    report = subprocess.run([sys.executable, "-m", "platperf", "report", "here", "--db", str(db),
                             "--format", "rst-grid"], capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stderr
    title = ".. table:: CPU hotplug latencies (µs) from Linux, offline and online in serial (here)"
    assert title in report.stdout
    grid = report.stdout.split(title, 1)[1].split(".. table::", 1)[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in grid.splitlines()
            if line.strip().startswith("|")]
    assert rows[0] == ["Cluster", "Core", "Offline", "Online"]
    assert [row[1] for row in rows[1:]] == ["1"] and all(float(c) > 0 for c in rows[1][2:])
    findings = subprocess.run([sys.executable, "-m", "platperf", "report", "here", "--db", str(db),
                               "--format", "json"], capture_output=True, text=True, timeout=120).stdout
    codes = {f["code"] for r in json.loads(findings)["runs"] for f in r["findings"] or []}
    if not (CPU_SYS / "cpu0" / "online").exists():
        assert "cpu-not-hotpluggable" in codes
    if not list(CPU_SYS.glob("cpu0/cpuidle/state0")):
        assert "no-cpuidle" in codes


# -- every architecture, functionally under qemu-user ------------------------------------------
QEMU = {"aarch64": "qemu-aarch64-static", "armv7": "qemu-arm-static"}


@pytest.mark.parametrize("arch", sorted(QEMU))
def test_both_kernels_work_on_a_board_tree_under_qemu_user(tmp_path, arch):
    """The Arm builds enumerate, disable and restore on a copy of the Juno tree (no timing)."""
    from conftest import require_executable
    from platperf.probe_path import ProbeNotFound, find_probe
    qemu = require_executable(QEMU[arch])
    try:
        probe = str(find_probe(arch))
    except ProbeNotFound:
        missing(f"the {arch} probe is not built (make probe-cross)")
    root = juno_copy(tmp_path)
    idle = subprocess.run([qemu, probe, "run", "cpu-idle", "--root", str(root), "--cpus", "0", "--samples", "2",
                           "--sleep", "100"], capture_output=True, text=True, timeout=120)
    assert idle.returncode == 0, idle.stderr
    states = {r["params"]["state"] for r in records(idle.stdout) if r["type"] == "result"}
    assert states == {"WFI", "cpu-sleep-0", "cluster-sleep-0"}
    assert disables(root, 0) == ["0", "0", "0"]
    hotplug = subprocess.run([qemu, probe, "run", "cpu-hotplug", "--root", str(root), "--cpus", "0,1",
                              "--samples", "2", "--trace", "off"], capture_output=True, text=True, timeout=120)
    assert hotplug.returncode == 0, hotplug.stderr
    assert {(r["cpu"], r["metric"]) for r in records(hotplug.stdout) if r["type"] == "result"} == \
        {(1, "offline"), (1, "online")}
    assert (root / "sys/devices/system/cpu/cpu1/online").read_text().strip() == "1"
