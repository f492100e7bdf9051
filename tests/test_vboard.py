"""platperf on real Arm kernels: QEMU ``virt`` guests of Debian's arm64 and armhf kernels
(tests/vboard.py), reached over SSH as a person reaches a board. What tests/test_ssh_*.py,
test_psci.py, test_interference.py and test_doctor.py check against this machine's sshd
dressed up as an aarch64 board is checked here against a real kernel: its topology from a
device-tree cpu-map, PSCI CPU_OFF/CPU_ON and CPU_SUSPEND (QEMU's HVC PSCI), cpuidle,
dropbear and busybox on the board.

Three guests for the whole session, each booted on first use: ``vboard_aarch64`` (one package
of 2 clusters x 2 cores, its device tree with a retention and a power-down idle state and the
caches), ``vboard_aarch64_2s`` (2 packages x 2 clusters x 2 cores, as a multi-socket Arm
server, no cache sizes as on most arm64 boards) and ``vboard_armv7``. Under TCG figures mean
nothing: these tests are functional, never timing.
"""
from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys

import pytest
import vboard
from conftest import require_executable
from test_psci import wait_for
from test_ssh_run import stored

SMALL = ('[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = ["16k", "64k"]\n'
         'samples = 2\nwarmup = 0\nmin_time = 0.002\n')
# Each CPU held offline for 0.3 s per sample: CPUs 2 and 3 are still to come when CPU 1's
# figures are stored.
HOTPLUG = '[[bench]]\nkernel = "cpu-hotplug"\ntrace = "off"\nsamples = 5\noffline_for = 300\n'
RESTORE_WAIT_S = 30.0


def platperf(board, *args: str, cwd, timeout: float = 600, **kw):
    env = dict(os.environ, PLATPERF_SSH_CONFIG=str(board.client_config))
    env.pop("PLATPERF_PROBE", None)
    return subprocess.run([sys.executable, "-m", "platperf", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, **kw)


def online(board) -> str:
    return board.ssh("cat /sys/devices/system/cpu/online").stdout.strip()


def probes_on(board) -> list[str]:
    """The board's processes running a platperf probe (busybox ps)."""
    out = board.ssh("ps -o pid,args").stdout.splitlines()
    return [line for line in out if "platperf-probe" in line and "ps -o" not in line]


def report_tables(board, label: str, db, cwd) -> dict[str, dict]:
    done = platperf(board, "report", label, "--db", str(db), "--format", "json", cwd=cwd, timeout=120)
    assert done.returncode == 0, done.stderr
    return {t["title"]: t for t in json.loads(done.stdout)["tables"]}


def table(tables: dict, starts: str, contains: str = "") -> dict | None:
    found = [t for title, t in tables.items() if title.startswith(starts) and contains in title]
    assert len(found) <= 1, [t["title"] for t in found]
    return found[0] if found else None


def is_figure(cell) -> bool:
    return bool(re.fullmatch(r"-?\d+(\.\d+)?", str(cell).strip()))


def shown(board, label: str, db, cwd) -> dict:
    done = platperf(board, "show", label, "--db", str(db), "--json", cwd=cwd, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# -- how the board is made (no QEMU needed) --------------------------------------------------------
QEMU_CPUS = """/dts-v1/;

/ {
	cpus {
		#size-cells = <0x00>;
		#address-cells = <0x01>;

		cpu-map {

			socket0 {

				cluster0 {

					core0 {
						cpu = <0x8002>;
					};
				};

				cluster1 {

					core0 {
						cpu = <0x8001>;
					};
				};
			};
		};

		cpu@0 {
			phandle = <0x8002>;
			reg = <0x00>;
			enable-method = "psci";
			compatible = "arm,cortex-a57";
			device_type = "cpu";
		};

		cpu@1 {
			phandle = <0x8001>;
			reg = <0x01>;
			enable-method = "psci";
			compatible = "arm,cortex-a57";
			device_type = "cpu";
		};
	};
};
"""


def test_the_device_tree_gets_idle_states_and_an_l2_per_cluster(tmp_path):
    """QEMU's cpus node (as dtc prints it) with two idle states for every CPU and, for clusters
    of one core, one L2 per CPU: dtc compiles it, and reads back what was added."""
    dtc = require_executable("dtc", "Debian device-tree-compiler; make deps")
    source = vboard.board_dts(QEMU_CPUS, idle_states=True, cluster_cores=1)
    dtb = tmp_path / "guest.dtb"
    subprocess.run([dtc, "-q", "-I", "dts", "-O", "dtb", "-o", str(dtb)], input=source, text=True, check=True)
    back = subprocess.run([dtc, "-q", "-I", "dtb", "-O", "dts", str(dtb)], capture_output=True, text=True,
                          check=True).stdout
    assert back.count("cpu-idle-states = <0x7f01 0x7f02>;") == 2
    assert 'entry-method = "psci";' in back and "arm,psci-suspend-param = <0x10000>;" in back
    assert "next-level-cache = <0x7f10>;" in back and "next-level-cache = <0x7f11>;" in back
    assert back.count("cache-level = <0x02>;") == 2
    assert vboard.board_dts(QEMU_CPUS) == QEMU_CPUS


def test_the_host_key_made_by_ssh_keygen_is_written_in_dropbears_format(tmp_path):
    """dropbear's ed25519 key file: string "ssh-ed25519", string seed||public key; the public
    key is the one ssh-keygen put in the .pub file the client trusts."""
    keygen = require_executable("ssh-keygen", "Debian openssh-client; make deps")
    subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "k")], check=True)
    key = vboard.dropbear_host_key((tmp_path / "k").read_text())
    kind_len = int.from_bytes(key[:4], "big")
    assert key[4:4 + kind_len] == b"ssh-ed25519"
    secret_len = int.from_bytes(key[4 + kind_len:8 + kind_len], "big")
    secret = key[8 + kind_len:]
    assert secret_len == len(secret) == 64
    public_blob = base64.b64decode((tmp_path / "k.pub").read_text().split()[1])
    assert secret[32:] == public_blob[-32:]
    with pytest.raises(vboard.VboardError):
        vboard.dropbear_host_key("-----BEGIN OPENSSH PRIVATE KEY-----\nbm90IGEga2V5\n-----END OPENSSH PRIVATE KEY-----\n")


# -- a run, and the board as platperf describes it ----------------------------------------------
def test_a_run_on_the_aarch64_board_stores_its_results_under_its_own_topology(vboard_aarch64, tmp_path):
    (tmp_path / "small.toml").write_text(SMALL)
    done = platperf(vboard_aarch64, "run", "--suite", "small.toml", "--target", "ssh://vboard-aarch64",
                    "--cpus", "0,3", "--db", "s.db", "--label", "guest", "--json", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "complete"
    run = shown(vboard_aarch64, "guest", "s.db", tmp_path)
    assert run["meta"]["arch"] == "aarch64"
    assert run["fingerprint"]["kernel"]["release"] == vboard_aarch64.image.kernel_version
    assert run["fingerprint"]["cpu"]["count"] == 4
    # The cpu-map's two clusters of two cores, as TF-A numbers them.
    places = {(r["cpu"], r["cluster"], r["core"]) for r in run["results"]}
    assert places == {(0, 0, 0), (3, 1, 1)}


def test_doctor_on_the_board_does_not_count_platperfs_own_processes(vboard_aarch64, tmp_path):
    """The snapshot's shell and the dropbear serving platperf's connection are platperf's own
    work on the board, not a load that bends its results; and no process can use more than
    the CPUs it has threads for."""
    done = platperf(vboard_aarch64, "doctor", "--target", "ssh://vboard-aarch64", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    findings = {f["code"]: f for f in json.loads(done.stdout)["findings"]}
    busy = findings.get("busy-processes")
    if busy is not None:       # the guest runs nothing else: anything named is someone else's
        named = re.findall(r"(\S+) \(pid \d+, (\d+)%\)", busy["message"])
        assert not [n for n, _ in named if n in ("sh", "dropbear")], busy["message"]
        assert all(int(share) <= 100 for _, share in named), busy["message"]
    assert "cpu-retention, cpu-power-down" in findings["cpuidle-states"]["message"]


def test_two_packages_of_two_clusters_keep_four_clusters_apart(vboard_aarch64_2s, tmp_path):
    """-smp 8,sockets=2,clusters=2,cores=2: Linux numbers cluster_id from 0 in each package, so
    CPUs 0-1 and 4-5 both say cluster 0. They are two clusters, each with its cores 0 and 1,
    and the results of CPUs 0, 1 and 4 have three different keys."""
    board = vboard_aarch64_2s
    (tmp_path / "small.toml").write_text(SMALL)
    done = platperf(board, "run", "--suite", "small.toml", "--target", f"ssh://{board.alias}",
                    "--cpus", "0,1,4", "--db", "s.db", "--label", "2s", "--json", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run = shown(board, "2s", "s.db", tmp_path)
    clusters = run["fingerprint"]["topology"]["clusters"]
    assert sorted(sorted(c["cpus"]) for c in clusters) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    key_of = {r["cpu"]: (r.get("package"), r["cluster"], r["core"]) for r in run["results"]}
    assert len(set(key_of.values())) == 3          # three CPUs, three keys for compare
    assert (key_of[0][-1], key_of[1][-1], key_of[4][-1]) == (0, 1, 0)


# -- the psci suite: PSCI CPU_OFF / CPU_ON and CPU_SUSPEND through QEMU's firmware -----------------
@pytest.fixture(scope="module")
def psci_run(vboard_aarch64, tmp_path_factory):
    """`platperf run --suite psci` on the board, once for the tests that read it."""
    cwd = tmp_path_factory.mktemp("psci")
    done = platperf(vboard_aarch64, "run", "--suite", "psci", "--target", "ssh://vboard-aarch64",
                    "--db", "p.db", "--label", "psci", "--quiet", cwd=cwd, timeout=900)
    return done, cwd


def test_psci_suite_measures_each_core_and_leaves_every_cpu_online(vboard_aarch64, psci_run):
    done, cwd = psci_run
    assert done.returncode == 0, done.stderr
    assert online(vboard_aarch64) == "0-3"
    tables = report_tables(vboard_aarch64, "psci", "p.db", cwd)
    hotplug = table(tables, "CPU hotplug latencies")
    # A one-package board's table reads as TF-A's: Cluster, Core; CPU 0 issues the requests.
    assert hotplug["headers"] == ["Cluster", "Core", "Offline", "Online"]
    assert [row[:2] for row in hotplug["rows"]] == [["0", "1"], ["1", "0"], ["1", "1"]]
    assert all(is_figure(c) and float(c) > 0 for row in hotplug["rows"] for c in row[2:])
    phases = table(tables, "CPU offline latency")
    assert phases is not None and len(phases["rows"]) == 3


def test_an_idle_state_the_firmware_rejects_is_said_and_has_no_figures(vboard_aarch64, psci_run):
    """QEMU's PSCI answers CPU_SUSPEND to the power-down state with a WFI and a return, which
    Linux counts in the state's `rejected`: the state was never entered, so there is no wake-up
    latency of it to show. The retention state is entered and measured on every CPU."""
    done, cwd = psci_run
    assert done.returncode == 0, done.stderr
    rejected = vboard_aarch64.ssh("cat /sys/devices/system/cpu/cpu1/cpuidle/state2/rejected").stdout
    assert int(rejected) > 0                    # the board does reject it
    tables = report_tables(vboard_aarch64, "psci", "p.db", cwd)
    for mode in ("serial", "parallel"):          # one CPU at a time, then all four at once
        retention = table(tables, "Idle state cpu-retention ", f" in {mode} (")
        assert len(retention["rows"]) == 4
        assert all(is_figure(row[2]) for row in retention["rows"])
        power_down = table(tables, "Idle state cpu-power-down ", f" in {mode} (")
        if power_down is not None:
            lateness = power_down["headers"].index("Wakeup Lateness")
            assert not [row for row in power_down["rows"] if is_figure(row[lateness])], power_down["rows"]
    findings = table(tables, "Findings")
    code = findings["headers"].index("Code")     # the probe's findings about the idle states
    said = [row for row in findings["rows"] if str(row[code]).startswith("idle-state")
            and "cpu-power-down" in " ".join(map(str, row))]
    assert said and all("rejected" in " ".join(map(str, row)) for row in said), said
    # One line for the four CPUs, with a count, not one per CPU.
    assert len(said) == 1, said


def test_a_cut_connection_during_hotplug_brings_every_cpu_back(vboard_aarch64, tmp_path):
    """The ssh client dies while CPU 1 is offline: the probe on the board loses its output,
    stops, and its guardian brings the CPU back; no probe process stays on the board."""
    from platperf.targets.ssh import SshTarget
    target = SshTarget("ssh://vboard-aarch64", remote_dir="/tmp/pp-cut", ssh_options=vboard_aarch64.ssh_options())
    try:
        remote = target.run(["run", "cpu-hotplug", "--cpus", "1", "--samples", "1000",
                             "--offline-for", "3000", "--trace", "off"])
        assert wait_for(lambda: online(vboard_aarch64) == "0,2-3", 120), "CPU 1 never went offline"
        remote.proc.kill()          # the session's ssh client: the channel closes under the probe
        remote.proc.wait(30)
    finally:
        target.close()
    assert wait_for(lambda: online(vboard_aarch64) == "0-3", RESTORE_WAIT_S)
    assert wait_for(lambda: not probes_on(vboard_aarch64), RESTORE_WAIT_S), probes_on(vboard_aarch64)


def test_a_connection_cut_on_the_board_leaves_a_partial_run_and_every_cpu_online(vboard_aarch64, tmp_path):
    """The board's SSH server loses platperf's connection while CPUs go offline and online
    (its dropbear processes killed): platperf keeps what arrived as a partial run, says so in
    one line and exits 2; the probe's guardian brings every CPU back, and no probe stays."""
    (tmp_path / "hotplug.toml").write_text(HOTPLUG)
    env = dict(os.environ, PLATPERF_SSH_CONFIG=str(vboard_aarch64.client_config))
    proc = subprocess.Popen([sys.executable, "-m", "platperf", "run", "--suite", "hotplug.toml",
                             "--target", "ssh://vboard-aarch64", "--db", "d.db", "--json", "--quiet"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # CPU 1's offline and online figures are in: CPU 2's turn.
        assert wait_for(lambda: stored(tmp_path / "d.db") >= 2 or proc.poll() is not None, 300)
        # Every connection of the listening dropbear (init's child) but the one this command
        # arrives on (busybox has no pgrep).
        cut = vboard_aarch64.ssh("kill -9 $(ps -o pid,ppid,args | "
                                 "awk -v me=$PPID '$3 ~ /dropbear/ && $2 != 1 && $1 != me {print $1}')")
        assert cut.returncode == 0, cut.stderr
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2, stderr
    out = json.loads(stdout)
    assert out["status"] == "partial" and 2 <= out["results"] < 6
    assert stored(tmp_path / "d.db") == out["results"]
    assert "connection to vboard-aarch64 lost" in out["error"]
    assert wait_for(lambda: online(vboard_aarch64) == "0-3", RESTORE_WAIT_S)
    assert wait_for(lambda: not probes_on(vboard_aarch64), RESTORE_WAIT_S), probes_on(vboard_aarch64)


# -- interference on the board --------------------------------------------------------------------
def test_interference_matrix_runs_on_the_board(vboard_aarch64, tmp_path):
    done = platperf(vboard_aarch64, "interference", "--target", "ssh://vboard-aarch64", "--victim", "3",
                    "--aggressors", "2", "--patterns", "none,way_hammer", "--loops", "plain",
                    "--duration", "0.2", "--db", "i.db", "--label", "guest", "--json", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["status"] == "complete" and out["cells"] == 2 and out["histograms"] == 2
    run = shown(vboard_aarch64, "guest", "i.db", tmp_path)
    assert run["target"] == "ssh://vboard-aarch64" and run["fingerprint"]["cpu"]["arch"] == "aarch64"
    assert {(r["cpu"], r["cluster"], r["core"]) for r in run["results"]} == {(3, 1, 1)}
    assert online(vboard_aarch64) == "0-3"


# -- armv7 ---------------------------------------------------------------------------------------
def test_the_armv7_board_end_to_end(vboard_armv7, tmp_path):
    """Debian's armmp kernel on a Cortex-A15: the armv7 probe is picked, uploaded, run, and
    the run stored and reported."""
    (tmp_path / "small.toml").write_text(SMALL)
    done = platperf(vboard_armv7, "run", "--suite", "small.toml", "--target", "ssh://vboard-armv7",
                    "--db", "s.db", "--label", "a15", "--json", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "complete"
    run = shown(vboard_armv7, "a15", "s.db", tmp_path)
    assert run["meta"]["arch"] == "armv7"
    assert run["fingerprint"]["cpu"]["count"] == 2
    assert run["fingerprint"]["kernel"]["release"] == vboard_armv7.image.kernel_version
    assert {r["cpu"] for r in run["results"]} == {0, 1}
    report = platperf(vboard_armv7, "report", "a15", "--db", "s.db", "--format", "md", cwd=tmp_path,
                      timeout=120)
    assert report.returncode == 0 and "mem-latency" in report.stdout, report.stderr
