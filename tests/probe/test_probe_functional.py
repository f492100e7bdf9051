"""What platperf-probe does, run for real: the self-check of the timed loops natively and
under qemu-user, the JSON Lines it writes (read with platperf.records.read_stream), the
command line's answers to bad input, and interruption. Small sizes, no timing asserted.
Builds: `make probe probe-cross`. Missing build or qemu: skipped, except under CI=true.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from platperf.records import read_stream, result_from_record
from platperf.stats import summary as stats_summary

ROOT = Path(__file__).resolve().parents[2]
QEMU = {"native": None, "aarch64": "qemu-aarch64-static", "armv7": "qemu-arm-static"}
SMALL = ["--samples", "2", "--warmup", "0", "--min-time", "0"]


from conftest import missing as _missing


def command(build: str, program: str = "platperf-probe") -> list[str]:
    binary = ROOT / "build" / "probe" / build / program
    if not binary.exists():
        _missing(f"{binary} is not built (make probe probe-cross)")
    if QEMU[build]:
        if not shutil.which(QEMU[build]):
            _missing(f"{QEMU[build]} is not installed (make deps)")
        return [QEMU[build], str(binary)]
    return [str(binary)]


def run_probe(build: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([*command(build), *args], capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def records(text: str) -> list[dict]:
    return list(read_stream(text.splitlines(), "probe"))


@pytest.mark.parametrize("build", ["native", "aarch64", "armv7"])
def test_selfcheck_passes(build):
    proc = subprocess.run(command(build, "probe-selfcheck"), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ", 0 failed" in proc.stdout


@pytest.mark.parametrize("build", ["native", "aarch64", "armv7"])
def test_mem_latency_stream_follows_the_results_format(build):
    recs = records(run_probe(build, "run", "mem-latency", "--size", "4k,64k", "--pattern", "random",
                             *SMALL).stdout)
    meta, end = recs[0], recs[-1]
    assert meta["type"] == "meta" and meta["schema"] == 1
    assert meta["arch"] == {"native": meta["arch"], "aarch64": "aarch64", "armv7": "armv7"}[build]
    assert len(meta["build_id"]) == 16 and meta["counter"]["freq_hz"] > 0
    assert end == {**end, "type": "end", "status": "complete"}
    results = [r for r in recs if r["type"] == "result"]
    assert end["results"] == len(results)
    keys = {(r["params"]["size"], r["metric"]) for r in results}
    assert keys == {(s, m) for s in (4096, 65536) for m in ("latency", "latency_cycles")}
    for rec in results:
        res = result_from_record(rec)
        assert res.params["pattern"] == "random" and res.params["stride"] == 64
        assert res.direction == "lower" and res.mode == "serial" and len(res.samples) == 2
        assert rec["unit"] == {"latency": "ns", "latency_cycles": "cycles"}[rec["metric"]]
        floor = 1000 * meta["counter"]["step_ticks"] - 1        # 1000 counter steps
        assert len(rec["ticks"]) == 2 and all(t >= floor for t in rec["ticks"])
        expected = stats_summary(res.samples)
        for name in ("min", "median", "max"):
            assert rec["summary"][name] == pytest.approx(getattr(expected, name, None) or expected[name])


@pytest.mark.parametrize("build", ["native", "aarch64", "armv7"])
def test_mem_bandwidth_runs_every_kernel(build):
    recs = records(run_probe(build, "run", "mem-bandwidth", "--size", "8k", *SMALL).stdout)
    results = [r for r in recs if r["type"] == "result"]
    names = [r["params"]["kernel"] for r in results]
    assert names == ["rd", "wr", "rdwr", "cp", "frd", "fwr", "fcp", "bzero", "bcopy", "copy", "scale",
                     "add", "triad", "peak-read", "peak-write", "peak-copy"]
    for r in results:
        assert r["unit"] == "MB/s" and r["direction"] == "higher" and r["params"]["size"] == 8192
        assert all(s > 0 for s in r["samples"])
    # bytes counted per sample: bw_mem counts the size once, STREAM 16/16/24/24 per element,
    # the peak copy reads + writes
    per_pass = {"rd": 1, "cp": 1, "bcopy": 1, "copy": 2, "scale": 2, "add": 3, "triad": 3, "peak-copy": 2}
    for r in results:
        if r["params"]["kernel"] in per_pass:
            assert r["iterations"] % (8192 * per_pass[r["params"]["kernel"]]) == 0


def test_latency_in_cycles_uses_the_clock_of_its_own_cpu():
    recs = records(run_probe("native", "run", "mem-latency", "--size", "16k", *SMALL).stdout)
    ns = next(r for r in recs if r["type"] == "result" and r["metric"] == "latency")
    cycles = next(r for r in recs if r["type"] == "result" and r["metric"] == "latency_cycles")
    clock = cycles["core_clock"]
    assert clock["hz"] > 0 and clock["cycles_per_tick"] > 0
    for t, c in zip(cycles["ticks"], cycles["samples"]):
        assert c == pytest.approx(t * clock["cycles_per_tick"] / cycles["iterations"], rel=1e-5)
    for n, c in zip(ns["samples"], cycles["samples"]):   # the same samples, in two units
        assert c == pytest.approx(n * 1e-9 * clock["hz"], rel=1e-5)


def test_list_json_names_kernels_and_parameters():
    listing = json.loads(run_probe("native", "list", "--json").stdout)
    kernels = {k["name"]: k for k in listing["kernels"]}
    assert {"mem-latency", "mem-bandwidth"} <= set(kernels)
    params = {p["name"]: p for p in kernels["mem-latency"]["params"]}
    assert params["pattern"]["choices"] == ["seq", "random"] and params["pattern"]["default"] == "random"
    assert params["stride"]["default"] == "64" and params["size"]["choices"] is None
    bw = {p["name"]: p for p in kernels["mem-bandwidth"]["params"]}
    assert "peak-copy" in bw["kernel"]["choices"] and "bcopy" in bw["kernel"]["choices"]


def test_explicit_isa_is_part_of_the_peak_params():
    isa = next(r for r in records(run_probe("native", "info").stdout) if r["type"] == "meta")["peak_isa"]
    recs = records(run_probe("native", "run", "mem-bandwidth", "--kernel", "rd,peak-read", "--isa", isa,
                             "--size", "4k", *SMALL).stdout)
    params = [r["params"] for r in recs if r["type"] == "result"]
    assert params == [{"kernel": "rd", "size": 4096}, {"isa": isa, "kernel": "peak-read", "size": 4096}]


def test_info_is_meta_and_end():
    recs = records(run_probe("native", "info").stdout)
    # and what the meta warns of this machine's counter (a VM's TSC moving in 10 ns steps)
    warned = {r["code"] for r in recs if r["type"] == "warning"}
    assert warned <= {"counter-coarse-step", "counter-low-resolution", "counter-fallback"}
    assert [r["type"] for r in recs if r["type"] != "warning"] == ["meta", "end"]
    assert recs[0]["core_clock"]["method"] == "add-chain"


def test_parallel_mode_reports_each_cpu(tmp_path):
    online = os.sched_getaffinity(0)
    if len(online) < 2:
        pytest.skip("needs two CPUs")
    cpus = sorted(online)[:2]
    out = tmp_path / "par.jsonl"
    proc = run_probe("native", "run", "mem-latency", "--size", "16k", "--cpus", f"{cpus[0]},{cpus[1]}",
                     "--mode", "parallel", "--output", str(out), *SMALL)
    assert proc.stdout == ""
    results = [r for r in records(out.read_text()) if r["type"] == "result" and r["metric"] == "latency"]
    assert sorted(r["cpu"] for r in results) == cpus and {r["mode"] for r in results} == {"parallel"}


def test_seq_pattern_and_stride_are_recorded():
    recs = records(run_probe("native", "run", "mem-latency", "--size", "3000", "--pattern", "seq",
                             "--stride", "128", *SMALL).stdout)
    params = [r["params"] for r in recs if r["type"] == "result"]
    assert params[0] == {"pattern": "seq", "size": 2944, "stride": 128}   # whole strides only


@pytest.mark.parametrize("args,names", [
    (["run", "mem-lat"], ["unknown kernel 'mem-lat'", "mem-latency|mem-bandwidth"]),
    (["run", "mem-latency", "--sizes", "4k"], ["unknown option '--sizes'", "--size"]),
    (["run", "mem-latency", "--cpus", "4000"], ["CPU 4000 is not online", "online:"]),
    (["run", "mem-latency", "--size", "0"], ["--size 0", "too small"]),
    (["run", "mem-latency", "--size", "4q"], ["--size '4q' is not valid"]),
    (["run", "mem-latency", "--pattern", "zigzag"], ["--pattern 'zigzag'", "seq|random"]),
    (["run", "mem-latency", "--mode", "both"], ["--mode 'both'", "serial|parallel"]),
    (["run", "mem-latency", "--size", "64m", "--max-memory", "1m"],
     # whole 2 MiB pages (--pages auto): the ring and its skew take 33 of them
     ["--max-memory '1m' (1.0 MiB) is too small", "size 67108864 needs 66.0 MiB", "at least 66.0 MiB"]),
    (["run", "mem-latency", "--max-memory", "1k"], ["--max-memory '1k' (1.0 KiB) is too small", "at least"]),
    (["run", "mem-bandwidth", "--size", "16k", "--max-memory", "20k"],
     ["--max-memory '20k' (20.0 KiB) is too small", "size 16384 needs"]),
    (["run", "mem-latency", "--size", "16k,32k", "--cpus", "0", "--mode", "parallel", "--max-memory", "30k"],
     ["size 32768 on every CPU at once needs"]),
    (["run", "mem-latency", "--size", "16384g"],
     ["size 17592186044416 needs 16384.0 GiB, over the memory cap", "the default: 50% of MemAvailable",
      "set --max-memory to at least 16384.0 GiB"]),
    (["run", "mem-latency", "--max-memory", "0"], ["--max-memory '0' is not valid", "a size above 0"]),
    (["run", "mem-latency", "--samples", "1000000000"], ["--samples '1000000000'", "an integer from 1 to 1000000"]),
    (["run", "mem-latency", "--samples", "0"], ["--samples '0'", "an integer from 1 to 1000000"]),
    (["run", "mem-latency", "--warmup", "-1"], ["--warmup '-1'", "an integer from 0 to 1000"]),
    (["run", "mem-latency", "--min-time", "nan"], ["--min-time 'nan'", "seconds from 0 to 3600"]),
    (["run", "mem-latency", "--min-time", "3601"], ["--min-time '3601'", "seconds from 0 to 3600"]),
    (["run", "mem-latency", "--size", ",".join(["4k"] * 257)], ["--size lists too many sizes", "at most 256"]),
    (["run", "mem-bandwidth", "--kernel", "rd,triadd"], ["'triadd' is not valid", "peak-read"]),
    (["run", "mem-bandwidth", "--size", "100"], ["too small"]),
    (["run", "mem-bandwidth", "--isa", "altivec"], ["--isa 'altivec' is not valid", "auto"]),
    (["bench"], ["unknown command 'bench'", "list|info|run"]),
    ([], ["which command?", "list|info|run"]),
    (["run"], ["which kernel?", "mem-latency"]),
    (["list", "--yaml"], ["unknown option '--yaml'", "--json"]),
])
def test_bad_input_is_one_line_and_exit_2(args, names):
    proc = run_probe("native", *args, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    for name in names:
        assert name in lines[0]
    if "--max-memory" in args:   # a cap that was set is not called the default
        assert "default" not in lines[0]


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["run", "mem-latency", "--help"]])
def test_help_states_the_bounds_and_prints_percent_once(args):
    text = run_probe("native", *args).stdout
    assert "%%" not in text and "default 50% of MemAvailable" in text
    assert "--samples N" in text and "1 to 1000000" in text and "0 to 3600" in text


@pytest.mark.parametrize("sig,code,mode", [(signal.SIGINT, 130, "serial"), (signal.SIGTERM, 143, "serial"),
                                           (signal.SIGINT, 130, "parallel")])
def test_signal_finishes_the_sample_and_ends_interrupted(sig, code, mode):
    cpus = ",".join(map(str, sorted(os.sched_getaffinity(0))[:2]))
    cmd = command("native") + ["run", "mem-latency", "--size", "16k,32k,64k,128k,256k", "--samples", "50",
                               "--mode", mode, "--cpus", cpus]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()          # meta: the run has started
    proc.send_signal(sig)
    rest, _ = proc.communicate(timeout=120)
    recs = records(first + rest)
    assert proc.returncode == code
    assert recs[-1]["type"] == "end" and recs[-1]["status"] == "interrupted"
    for r in recs:
        if r["type"] == "result":   # whatever was measured is kept, every sample whole
            assert len(r["samples"]) == len(r["ticks"]) >= 1
