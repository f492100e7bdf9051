"""A stand-in for platperf-probe in the runner tests: same CLI, JSON Lines on stdout.

FAKE_PROBE_BEHAVIOUR picks how a `run` ends:
  complete         every result, then `end`
  die-after=K      K results, then killed (SIGKILL) without `end`
  malformed-at=K   K results, then a line that is not JSON
  error            an `error` record and `end` with status failed
  slow             a result every 0.05 s until SIGINT, then `end` interrupted, exit 130
FAKE_PROBE_BEHAVIOUR_<target> overrides it for the target platperf names in PLATPERF_TARGET
(inventory boards that are all this machine).
FAKE_PROBE_LOG, when set, gets one line per invocation: the argv as JSON.
FAKE_PROBE_PREEMPTED=1 writes a `sample-preempted` warning before each result, as the real probe
does for a CPU that is busy.
--events LIST: each result carries the counters of docs/results-format.md "events" (an access
and its refill for l1d, l2d, llc), counter k of a sample i counting iterations * (k + 1) / 4 + i
per sample, every group running for all of it; FAKE_PROBE_NO_PMU=1 counts only page_faults and
writes the probe's `events-unavailable` warning (this machine's kernel: no hardware events).
"""
import json
import os
import signal
import sys
import time

KERNELS = [   # the real probe's shape (tests/test_fake_probe_contract.py): defaults as text, kinds, help
    {"name": "mem-latency", "help": "pointer chase",
     "params": [{"name": "pattern", "default": "seq", "choices": ["seq", "random"], "kind": "choice",
                 "help": "ring order"},
                {"name": "size", "default": "auto", "choices": None, "kind": "size-list",
                 "help": "ring sizes"},
                {"name": "stride", "default": "64", "choices": None, "kind": "size",
                 "help": "bytes between ring elements"}]},
    {"name": "mem-bandwidth", "help": "bw_mem and STREAM kernels",
     "params": [{"name": "kernel", "default": "rd",
                 "choices": ["rd", "wr", "rdwr", "cp", "frd", "fwr", "fcp", "bzero", "bcopy",
                             "copy", "scale", "add", "triad"], "kind": "choice", "help": "access patterns"},
                {"name": "size", "default": "16m", "choices": None, "kind": "size-list",
                 "help": "bytes of each buffer"}]},
    {"name": "latency-loop", "help": "duration-bounded loop with a histogram",
     "params": [{"name": "duration", "default": "1", "choices": None, "kind": "number",
                 "help": "seconds the loop runs"}]},
]
META = {"type": "meta", "schema": 1, "probe_version": "0.0-fake", "build_id": "fake0001",
        "arch": "x86_64", "compiler": "none", "cflags": "", "counter": {"name": "fake", "freq_hz": 1e9},
        "start_time": "2026-11-22T00:00:00Z", "cpus_online": [0, 1]}


def emit(rec):
    sys.stdout.write((rec if isinstance(rec, str) else json.dumps(rec)) + "\n")
    sys.stdout.flush()


def options(argv):
    opts, i = {}, 0
    while i < len(argv):
        if argv[i].startswith("--"):
            opts[argv[i][2:]] = argv[i + 1]
            i += 2
        else:
            i += 1
    return opts


def size_bytes(text):
    mult = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}
    return int(text[:-1]) * mult[text[-1]] if text[-1] in mult else int(text)


PAIRS = {"l1d": ("l1d", "l1d_refill"), "l2d": ("l2d", "l2d_refill"), "llc": ("llc", "llc_miss")}


def events_of(opts, samples, iterations):
    """The `events` field a result record gains with --events (docs/results-format.md)."""
    if "events" not in opts:
        return {}
    asked = [(item, name) for item in opts["events"].split(",") for name in PAIRS.get(item, (item,))]
    if os.environ.get("FAKE_PROBE_NO_PMU") == "1":
        asked = [(item, name) for item, name in asked if name == "page_faults"]
    counters = [{"name": name, "asked": item, "event": name.upper(), "pmu": "armv8_pmuv3_0",
                 "code": hex(0x10 + k), "unit": "events",
                 "counts": [iterations * (k + 1) // 4 + i for i in range(samples)],
                 "enabled_ns": [5000] * samples, "running_ns": [5000] * samples}
                for k, (item, name) in enumerate(asked)]
    return {"events": {"per": "access", "counters": counters}}


def results(kernel, opts):
    cpus = [int(c) for c in opts.get("cpus", "0").split(",")]
    samples = int(opts.get("samples", 3))
    mode = opts.get("mode", "serial")
    sizes = [s for s in opts.get("size", "4k").split(",")]
    if kernel == "latency-loop":
        for cpu in cpus:
            yield {"type": "histogram", "benchmark": kernel, "params": {"variant": "plain"}, "cpu": cpu,
                   "mode": mode, "unit": "ns", "count": 10, "sum": 100.0, "min": 9.0, "max": 12.0,
                   "buckets": [[9.0, 10.0, 6], [10.0, 12.5, 4]]}
        return
    for size in sizes:
        for cpu in cpus:
            if kernel == "mem-latency":
                params = {"pattern": opts.get("pattern", "seq"), "size": size_bytes(size),
                          "stride": int(opts.get("stride", 64))}
                metric, unit, direction = "latency", "ns", "lower"
            else:
                params = {"kernel": opts.get("kernel", "rd"), "size": size_bytes(size)}
                metric, unit, direction = "bandwidth", "MB/s", "higher"
            yield {"type": "result", "benchmark": kernel, "params": params, "cpu": cpu, "mode": mode,
                   "metric": metric, "unit": unit, "direction": direction,
                   "samples": [1.0 + cpu + i / 10 for i in range(samples)], "iterations": 1000,
                   **events_of(opts, samples, 1000)}


def run(kernel, opts):
    behaviour = os.environ.get(f"FAKE_PROBE_BEHAVIOUR_{os.environ.get('PLATPERF_TARGET', '')}",
                               os.environ.get("FAKE_PROBE_BEHAVIOUR", "complete"))
    emit(META)
    if behaviour == "error":
        emit({"type": "error", "code": "cpu-offline", "message": "CPU 7 is not online (online: 0-1)"})
        emit({"type": "end", "status": "failed"})
        return 1
    if behaviour == "slow":
        stopping = []
        signal.signal(signal.SIGINT, lambda *_: stopping.append(1))
        n = 0
        while not stopping:
            for rec in results(kernel, opts):
                emit(rec)
                n += 1
            time.sleep(0.05)
        emit({"type": "end", "status": "interrupted", "results": n})
        return 130
    emit({"type": "warning", "code": "fake-counter", "message": "fake counter, numbers are made up"})
    if "events" in opts and os.environ.get("FAKE_PROBE_NO_PMU") == "1":
        emit({"type": "warning", "code": "events-unavailable", "message": "hardware events are not available "
              "here (event sources: software, msr, tracepoint): counting page_faults only"})
    n = 0
    for rec in results(kernel, opts):
        if behaviour == f"die-after={n}":
            os.kill(os.getpid(), signal.SIGKILL)
        if behaviour == f"malformed-at={n}":
            emit('{"type": "result", "benchmark": ')
            return 0
        if os.environ.get("FAKE_PROBE_PREEMPTED") == "1" and "cpu" in rec:
            emit({"type": "warning", "code": "sample-preempted", "cpu": rec["cpu"],
                  "message": f"{n % 3 + 1} of 3 samples are kept although preempted"})
        emit(rec)
        n += 1
    emit({"type": "end", "status": "complete", "results": n, "elapsed_s": 0.01})
    return 0


def main(argv):
    if os.environ.get("FAKE_PROBE_LOG"):
        with open(os.environ["FAKE_PROBE_LOG"], "a") as log:
            log.write(json.dumps(argv) + "\n")
    if argv[:2] == ["list", "--json"]:
        print(json.dumps({"kernels": KERNELS}))
        return 0
    if argv[:1] == ["info"]:
        emit(META)
        emit({"type": "end", "status": "complete"})
        return 0
    if argv[:1] == ["run"] and len(argv) > 1:
        return run(argv[1], options(argv[2:]))
    print(f"fake probe: cannot do {argv}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


def install(directory, monkeypatch, behaviour="complete"):
    """Point PLATPERF_PROBE at this script (through a shell wrapper); returns the argv log."""
    import pathlib
    wrapper = pathlib.Path(directory) / "platperf-probe"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {pathlib.Path(__file__).resolve()} \"$@\"\n")
    wrapper.chmod(0o755)
    log = pathlib.Path(directory) / "probe-argv.log"
    monkeypatch.setenv("PLATPERF_PROBE", str(wrapper))
    monkeypatch.setenv("FAKE_PROBE_BEHAVIOUR", behaviour)
    monkeypatch.setenv("FAKE_PROBE_LOG", str(log))
    return log
