"""The probe's OS kernels (TI's LMBench OS rows), run for real natively and under qemu-user:
each row comes out under its pinned key (platperf.vocab.lmbench.LMBENCH_OS_ROWS) or as
an `os-unsupported` warning, files stay in the run's scratch directory and are gone after
it (also after Ctrl-C), and LMBench's overhead subtractions are the recorded arithmetic.
Functional only: no timing is asserted. Builds: `make probe probe-cross`.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from platperf.vocab.lmbench import LMBENCH_OS_ROWS

from test_probe_functional import SMALL, command, records, run_probe

# kernel -> arguments that keep it small (defaults otherwise: the rows of TI's table)
OS_KERNELS = {
    "os-syscall": [],
    "os-signal": [],
    "os-ipc": [],
    "os-ipc-bw": [],
    "os-ctx": ["--procs", "2,4", "--size", "0,128k"],
    "os-proc": [],
    "os-pagefault": ["--size", "1m"],
    "os-mmap": [],
    "os-file-read": [],
    "os-fs": ["--size", "0,1k"],
}


def _rows(benchmark: str, *params: dict) -> set:
    return {(benchmark, json.dumps(p, sort_keys=True)) for p in params}


# kernels run off TI's own points: the rows they must give
SMALLER = {
    "os-ctx": _rows("os-ctx", *({"procs": p, "size": s} for p in (2, 4) for s in (0, 131072))),
    "os-pagefault": _rows("os-pagefault", {}),
    "os-fs": _rows("os-fs", {"size": 0}, {"size": 1024}),
}


def _key(rec: dict) -> tuple:
    return rec["benchmark"], json.dumps(rec["params"], sort_keys=True), rec["metric"]


@pytest.mark.parametrize("build", ["native", "aarch64", "armv7"])
@pytest.mark.parametrize("kernel", sorted(OS_KERNELS))
def test_each_os_row_is_a_result_under_its_pinned_key_or_a_warning(build, kernel, tmp_path):
    proc = run_probe(build, "run", kernel, *OS_KERNELS[kernel], "--dir", str(tmp_path), *SMALL)
    recs = records(proc.stdout)
    assert recs[-1]["type"] == "end" and recs[-1]["status"] == "complete"
    results = [r for r in recs if r["type"] == "result"]
    unsupported = [r for r in recs if r["type"] == "warning" and r["code"] == "os-unsupported"]
    # a difference of two timings this short (--min-time 0) may come out not positive: said, not given
    exceeded = [r for r in recs if r["type"] == "warning" and r["code"] == "os-overhead-exceeds"]
    for w in exceeded:
        assert w["benchmark"] in ("os-ctx", "os-signal", "os-pagefault") and "overhead subtracted" in w["message"]
    pinned = {(b, json.dumps(p, sort_keys=True), m): u for _, b, p, m, u in LMBENCH_OS_ROWS if b == kernel}
    for r in results:
        if kernel in SMALLER:                 # a smaller file than TI's row, or points off TI's grid
            assert r["unit"] == "us" if kernel != "os-fs" else "files/s"
        else:
            assert _key(r) in pinned, _key(r)
            assert r["unit"] == pinned[_key(r)]
        assert r["direction"] == ("lower" if r["unit"] == "us" else "higher")
        assert len(r["samples"]) == 2 and r["cpu"] == 0 and r["iterations"] > 0
        if r["unit"] != "us" or "overhead_subtracted" in r:   # never a negative difference
            assert all(s > 0 for s in r["samples"])
    # every row asked for: measured, or a warning naming its key
    rows = {(r["benchmark"], json.dumps(r["params"], sort_keys=True)) for r in results + unsupported + exceeded}
    expected = SMALLER.get(kernel) or {(b, p) for b, p, _ in pinned}
    assert rows == expected
    if build == "native":
        assert not unsupported, [w["message"] for w in unsupported]
    for w in unsupported:
        assert w["message"].startswith(kernel) and "not measured here" in w["message"]
    assert list(tmp_path.iterdir()) == []      # the scratch directory is gone


def test_exec_and_shell_run_the_program_given_each_time(tmp_path):
    """--program is what exec and shell run (LMBench: a dynamic hello; default /bin/true)."""
    log = tmp_path / "ran"
    script = tmp_path / "hello"
    script.write_text(f"#!/bin/sh\necho ran >> {log}\n")
    script.chmod(0o755)
    for op in ("exec", "shell"):
        log.unlink(missing_ok=True)
        recs = records(run_probe("native", "run", "os-proc", "--op", op, "--program", str(script), *SMALL).stdout)
        r = next(r for r in recs if r["type"] == "result")
        # another program is another measurement: it is in the key
        assert r["params"] == {"op": op, "program": str(script)}
        assert len(log.read_text().splitlines()) >= r["iterations"] * len(r["samples"])


def test_exec_default_is_a_dynamic_program_under_lmbench_key():
    recs = records(run_probe("native", "run", "os-proc", "--op", "fork,exec", *SMALL).stdout)
    assert [r["params"] for r in recs if r["type"] == "result"] == [{"op": "fork"}, {"op": "exec"}]
    listing = json.loads(run_probe("native", "list", "--json").stdout)
    program = next(p for k in listing["kernels"] if k["name"] == "os-proc" for p in k["params"]
                   if p["name"] == "program")
    assert program["default"] == "/bin/true"
    # dynamically linked, as LMBench's hello: the ELF names its interpreter (the loader)
    assert b"/ld-linux" in open("/bin/true", "rb").read()


@pytest.mark.parametrize("build", ["native", "aarch64", "armv7"])
def test_proccall_is_one_call_per_iteration_and_carries_the_core_clock(build):
    """The record's iterations are the calls (one per repetition of pp_proccall's loop, its
    disassembly checked in test_proccall_disassembly.py) and its core_clock is the measuring
    CPU's, so the figure reads in cycles: ns a call x hz."""
    recs = records(run_probe(build, "run", "os-proc", "--op", "proccall", *SMALL).stdout)
    (res,) = [r for r in recs if r["type"] == "result"]
    assert res["params"] == {"op": "proccall"} and res["unit"] == "us"
    assert res["core_clock"]["hz"] > 0 and res["core_clock"]["cycles_per_tick"] > 0
    assert res["iterations"] > 0 and len(res["samples"]) == len(res["ticks"])
    # us a call = ticks of the sample over the calls in it (iterations counts the samples' calls alike)
    per_call_ticks = res["samples"][0] * 1e-6 * res["core_clock"]["hz"] / res["core_clock"]["cycles_per_tick"]
    assert per_call_ticks * res["iterations"] == pytest.approx(res["ticks"][0], rel=1e-3)


def test_a_program_that_cannot_be_executed_is_a_warning_not_a_crash(tmp_path):
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x7fELF not really")
    junk.chmod(0o755)
    recs = records(run_probe("native", "run", "os-proc", "--op", "fork,exec", "--program", str(junk), *SMALL).stdout)
    assert [r["params"] for r in recs if r["type"] == "result"] == [{"op": "fork"}]
    warned = [r for r in recs if r["type"] == "warning" and r["code"] == "os-unsupported"]
    assert len(warned) == 1 and warned[0]["params"] == {"op": "exec", "program": str(junk)}
    assert "could not exec --program" in warned[0]["message"]


def test_lat_ctx_subtracts_the_overhead_measured_before_it():
    """sample = ring time per hop (ticks / iterations) - the overhead loop's median per hop.
    On a busy machine the overhead may reach the ring's time: then the probe gives no figure
    and says so (os-overhead-exceeds); the test measures again, up to five times."""
    for _ in range(5):
        recs = records(run_probe("native", "run", "os-ctx", "--procs", "2", "--size", "16k", "--samples", "3",
                                 "--min-time", "0.002").stdout)
        found = [r for r in recs if r["type"] == "result"]
        if found:
            break
        exceeded = [w for w in recs if w["type"] == "warning" and w["code"] == "os-overhead-exceeds"]
        assert [w["params"] for w in exceeded] == [{"procs": 2, "size": 16384}], recs
    assert found, "the overhead reached the ring's time in 5 runs: a machine too busy for this test"
    freq = recs[0]["counter"]["freq_hz"]
    r = found[0]
    assert r["params"] == {"procs": 2, "size": 16384}
    overhead = r["overhead_subtracted"]
    assert overhead > 0
    for sample, ticks in zip(r["samples"], r["ticks"]):
        per_hop_us = ticks / freq * 1e6 / r["iterations"]
        # the record's figures are printed to 10 significant digits and the counter's rate
        # rounded to a whole Hz: agreement to 1e-5 of the hop time is exact arithmetic
        assert sample == pytest.approx(per_hop_us - overhead, abs=1e-5 * per_hop_us)


def test_lat_sig_catch_and_prot_subtract_their_baselines():
    # samples long enough that a difference of three timings stays positive (else a warning)
    recs = records(run_probe("native", "run", "os-signal", "--samples", "3", "--min-time", "0.005").stdout)
    by_op = {r["params"]["op"]: r for r in recs if r["type"] == "result"}
    assert "overhead_subtracted" not in by_op["install"]
    # catch less sending signal 0, prot less catch (~0.5 us of two ~3 us timings): on a busy
    # machine a difference may not be positive, and the row is then a warning, never a figure
    exceeded = [w["params"] for w in recs if w["type"] == "warning" and w["code"] == "os-overhead-exceeds"]
    for op in ("catch", "prot"):
        if op in by_op:
            assert by_op[op]["overhead_subtracted"] > 0 and {"op": op} not in exceeded
        else:
            assert {"op": op} in exceeded


def test_sizes_and_counts_are_checked_by_their_declared_kind():
    cases = [
        (["os-ctx", "--procs", "1"], "os-ctx: --procs '1' is not valid (valid: a comma list of integers from 2 to 64)"),
        (["os-ctx", "--procs", "2,x"], "--procs 'x' is not valid"),
        (["os-ipc", "--fds", "0"], "os-ipc: --fds '0' is not valid (valid: an integer from 1 to 400)"),
        (["os-pagefault", "--size", "64k"], "os-pagefault: --size 65536 is too small (valid: at least 1.0 MiB)"),
        (["os-fs", "--size", "0,2m"], "os-fs: --size 2097152 is too large (valid: at most 1.0 MiB)"),
        (["os-syscall", "--op", "null,nope"], "os-syscall: --op 'nope' is not valid (valid: a comma list of null|read"),
        (["os-syscall", "--dir", "/nonexistent/dir"], "--dir '/nonexistent/dir' is not a writable directory"),
        (["os-proc", "--program", "true"], "os-proc: --program 'true' is not an executable file given by its absolute"),
        (["os-proc", "--program", "/nonexistent/hello"], "--program '/nonexistent/hello' is not an executable file"),
    ]
    for args, message in cases:
        proc = run_probe("native", "run", *args, check=False)
        assert proc.returncode == 2 and proc.stdout == ""
        assert len(proc.stderr.splitlines()) == 1 and message in proc.stderr, proc.stderr


def test_ctrl_c_removes_the_scratch_directory(tmp_path):
    proc = subprocess.Popen([*command("native"), "run", "os-fs", "--size", "0", "--samples", "1000",
                             "--min-time", "0.05", "--dir", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(tmp_path.iterdir()):
        time.sleep(0.01)
    assert any(tmp_path.iterdir()), "the run made no scratch directory"
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGINT
    assert records(out)[-1]["status"] == "interrupted"
    assert list(tmp_path.iterdir()) == []


def test_list_json_gives_each_parameter_its_kind():
    listing = json.loads(run_probe("native", "list", "--json").stdout)
    kinds = {(k["name"], p["name"]): p["kind"] for k in listing["kernels"] for p in k["params"]}
    assert kinds[("os-ctx", "procs")] == "count" and kinds[("os-ctx", "size")] == "size-list"
    assert kinds[("os-syscall", "op")] == "choice" and kinds[("mem-latency", "stride")] == "size"
    assert kinds[("latency-loop", "aggressor-cpus")] == "cpu-list"
    assert kinds[("latency-loop", "duration")] == "number"
    assert set(OS_KERNELS) <= {k["name"] for k in listing["kernels"]}


def test_the_guide_prints_os_rows_under_ti_names_and_aliases(tmp_path):
    """platperf run (the real probe) -> store -> report: lat_pipe and pipe_latency are one cell."""
    import sys
    suite = tmp_path / "os.toml"
    suite.write_text('name = "os"\ndescription = "two OS rows"\n\n[[bench]]\nkernel = "os-ipc"\n'
                     'params = { kind = ["pipe"] }\nsamples = 2\nmin_time = 0\n\n'
                     '[[bench]]\nkernel = "os-ipc-bw"\nparams = { kind = ["pipe"] }\nsamples = 2\nmin_time = 0\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    db, out = tmp_path / "runs.db", tmp_path / "report"
    for args in (["run", "--suite", str(suite), "--cpus", "0", "--db", str(db), "--label", "os", "--quiet"],
                 ["report", "latest", "--db", str(db), "--format", "md", "-o", str(out)]):
        proc = subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
    rows = {}
    for line in (out / "guide.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 2:
            rows[cells[0].replace("\\_", "_")] = cells[1]
    assert rows["lat_pipe (us)"] == rows["pipe_latency (microsec)"] != ""
    assert rows["bw_pipe (MB/s)"] == rows["pipe_bandwidth (MBs)"] != ""
    assert "lat_unix (us)" not in rows and "af_unix_sock_stream_latency (microsec)" not in rows


@pytest.mark.parametrize("kernel", sorted(OS_KERNELS))
def test_parallel_mode_measures_each_cpu_to_the_end(kernel, tmp_path):
    """Two CPUs at once: process-wide state (signal handlers, the scratch directory) holds."""
    online = sorted(os.sched_getaffinity(0))
    if len(online) < 2:
        pytest.skip("needs two CPUs")
    cpus = f"{online[0]},{online[1]}"
    recs = records(run_probe("native", "run", kernel, *OS_KERNELS[kernel], "--cpus", cpus, "--mode", "parallel",
                             "--dir", str(tmp_path), *SMALL).stdout)
    assert recs[-1]["type"] == "end" and recs[-1]["status"] == "complete"
    results = [r for r in recs if r["type"] == "result"]
    assert results and {r["cpu"] for r in results} == set(online[:2]) and {r["mode"] for r in results} == {"parallel"}
    assert list(tmp_path.iterdir()) == []


def _child_cpus(pid: int) -> dict[str, str]:
    """{child pid: its Cpus_allowed_list} of the child processes of ``pid`` (its threads' children)."""
    out = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            children = open(f"/proc/{pid}/task/{task}/children").read().split()
        except OSError:
            continue
        for child in children:
            try:
                status = open(f"/proc/{child}/status").read()
            except OSError:
                continue
            out.update({child: line.split()[1] for line in status.splitlines()
                        if line.startswith("Cpus_allowed_list:")})
    return out


def test_peer_cpu_puts_the_child_on_that_cpu_and_in_the_key():
    """--peer-cpu N: the echo peer / server runs on CPU N (its affinity, read from /proc while
    it runs), and the key says so; select-tcp has no child and no peer_cpu in its key."""
    online = sorted(os.sched_getaffinity(0))
    assert len(online) >= 2, "the test needs two CPUs"
    measured, peer = online[-1], online[0]
    argv = [*command("native"), "run", "os-ipc", "--kind", "pipe,connect,select-tcp", "--cpus", str(measured),
            "--peer-cpu", str(peer), "--samples", "3", "--min-time", "0.2"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    last: dict[str, str] = {}       # child -> its affinity when last seen (a child pins itself as it starts)
    while proc.poll() is None:
        last.update(_child_cpus(proc.pid))
        time.sleep(0.02)
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    assert last and set(last.values()) == {str(peer)}, last
    keys = [r["params"] for r in records(out) if r["type"] == "result"]
    assert keys == [{"kind": "pipe", "peer_cpu": peer}, {"kind": "connect", "peer_cpu": peer},
                    {"fds": 200, "kind": "select-tcp"}]
    # without it, both ends share the measured CPU, as TI's rows: no peer_cpu in the key
    recs = records(run_probe("native", "run", "os-ipc", "--kind", "pipe", "--cpus", str(measured), *SMALL).stdout)
    assert [r["params"] for r in recs if r["type"] == "result"] == [{"kind": "pipe"}]


@pytest.mark.parametrize("args, message", [
    (["--cpus", "0", "--peer-cpu", "0"], "CPU 0 is both measured (--cpus) and the peer (--peer-cpu); give another"),
    (["--cpus", "0", "--peer-cpu", "1,2"], "--peer-cpu takes one CPU (got 2)"),
    (["--cpus", "0", "--peer-cpu", "4095"], "peer CPU 4095 is not online"),
])
def test_peer_cpu_is_one_other_online_cpu(args, message):
    proc = run_probe("native", "run", "os-ipc", "--kind", "pipe", *args, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().endswith(message), proc.stderr
