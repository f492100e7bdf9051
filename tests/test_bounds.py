"""Memory stays bounded whatever a board, a log or a server sends (docs/security.md, "Caps").

Each case runs the `platperf` command a user would run as a child process of the test and reads
that child's own peak resident memory from the kernel (``os.wait4``'s rusage): the figure is
the command's, not the test's, and no timing is involved. The inputs are those that made
platperf grow to gigabytes before the caps: a line without an end, millions of records, a
snapshot of one huge file or of 300,000 entries, a gzip bomb in a job log, a YAML bomb as a job
definition. The bound each test states is the cap's cost plus the command's own baseline.
"""
from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
import xmlrpc.client
import zlib
from pathlib import Path

import pytest
from conftest import require_probe

from ingest_samples import SAMPLES, many_keys

PLATPERF = [sys.executable, "-m", "platperf"]
SMALL = ('[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = "16k"\n'
         'samples = 2\nwarmup = 0\nmin_time = 0.002\n')
META = json.dumps({"type": "meta", "schema": 1, "arch": "x86_64"})
RESULT = json.dumps({"type": "result", "benchmark": "mem-latency", "params": {"size": 16384},
                     "cpu": 0, "metric": "latency", "unit": "ns", "direction": "lower",
                     "samples": [1.5, 1.6, 1.7]})


# The command is started by a small launcher that forks it and reports its peak from wait4:
# Linux counts a process's resident memory before its exec in its peak (exec_mmap keeps the old
# mm's high-water mark), so a command forked straight from this test would carry the test
# process's own size (259 MiB late in a full run) in its figure.
LAUNCHER = ("import os, sys\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    os.execvp(sys.argv[1], sys.argv[1:])\n"
            "_, status, usage = os.wait4(pid, 0)\n"
            "sys.stderr.write('\\nPEAK-KIB %d\\n' % usage.ru_maxrss)\n"
            "code = os.waitstatus_to_exitcode(status)\n"
            "sys.exit(code if code >= 0 else 128 - code)\n")


def peak(argv, *, cwd, env=None, timeout=900) -> tuple[int, str, str, float]:
    """(exit code, stdout, stderr, peak RSS in MiB) of ``argv``, from the kernel's accounting of
    that process (and the children it waited for), as the launcher above reads it."""
    import signal
    proc = subprocess.Popen([sys.executable, "-c", LAUNCHER, *argv], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
    out, err = [], []
    drains = [threading.Thread(target=lambda s=s, into=into: into.append(s.read()), daemon=True)
              for s, into in ((proc.stdout, out), (proc.stderr, err))]
    for t in drains:
        t.start()
    watchdog = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
    watchdog.start()
    try:
        proc.wait()
    finally:
        watchdog.cancel()
    for t in drains:
        t.join(30)
    text, _, kib = b"".join(err).decode().rpartition("\nPEAK-KIB ")
    assert kib.strip().isdigit(), f"the launcher did not report a peak: {text[-500:]}"
    return proc.returncode, b"".join(out).decode(), text, int(kib) / 1024


def run_on_liar(sshd, tmp_path, *extra) -> tuple[int, str, str, float]:
    require_probe()
    (tmp_path / "small.toml").write_text(SMALL)
    env = dict(os.environ, PLATPERF_SSH_CONFIG=str(sshd.client_config))
    return peak([*PLATPERF, "run", "--suite", "small.toml", "--target", "ssh://board-liar", "--cpus", "0",
                 "--db", "l.db", "--label", "liar", "--quiet", "--json", *extra], cwd=tmp_path, env=env)


def test_a_line_without_an_end_costs_at_most_the_line_cap(sshd, tmp_path, board_liar):
    """Row 5: a 1 GiB line with no newline took 2.17 GB before the cap (64 MiB)."""
    board_liar("liar-run", f"echo '{META}'\nhead -c 1073741824 /dev/zero | tr '\\0' x\n")
    code, out, err, rss = run_on_liar(sshd, tmp_path)
    assert code != 0 and "a line longer than 64 MiB" in json.loads(out)["error"]
    print(f"\n[peak {rss:.0f} MiB, bound 450]")
    assert rss < 450, f"peak {rss:.0f} MiB"


def test_millions_of_records_wait_for_the_store_instead_of_piling_up(sshd, tmp_path, board_liar):
    """Row 6: 3,000,000 records took 3.3 GB when the queue between reader and store had no
    bound; with back-pressure the peak does not depend on how many come (400,000 here)."""
    board_liar("liar-run", f"echo '{META}'\n"
                     f"awk 'BEGIN {{ for (i = 0; i < 400000; i++) print \"{RESULT.replace(chr(34), chr(92) + chr(34))}\" }}'\n"
                     "echo '{\"type\":\"end\",\"status\":\"complete\"}'\n")
    code, out, err, rss = run_on_liar(sshd, tmp_path)
    assert code == 0, err
    assert json.loads(out)["results"] == 400000
    print(f"\n[peak {rss:.0f} MiB, bound 300]")
    assert rss < 300, f"peak {rss:.0f} MiB"


@pytest.mark.parametrize("snapshot, says", [
    ("printf 'F 3221225472 /proc/cmdline\\n'\nhead -c 3221225472 /dev/zero\n", "more than 64 MiB"),
    ("awk 'BEGIN { for (i = 0; i < 300000; i++) printf \"D /sys/devices/x%d\\n\", i }'\n",
     "more than 200000 files"),
    ("printf 'F 20000000 /proc/cmdline\\n'\nhead -c 20000000 /dev/zero\n", "over the 8 MiB"),
])
def test_a_snapshot_over_its_caps_is_refused_in_bounded_memory(sshd, tmp_path, board_liar, snapshot, says):
    """Row 7: one 3 GB file took 7.7 GB of memory and 3 GB in /tmp; 300,000 directory lines
    819 MB and 207k inodes. Now the snapshot is read up to 64 MiB, 200,000 entries and 8 MiB a
    file, into memory only."""
    require_probe()
    board_liar("liar-snapshot", "cat > /dev/null\n" + snapshot)
    env = dict(os.environ, PLATPERF_SSH_CONFIG=str(sshd.client_config), TMPDIR=str(tmp_path))
    code, out, err, rss = peak([*PLATPERF, "doctor", "--target", "ssh://board-liar", "--no-probe"],
                               cwd=tmp_path, env=env)
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err
    print(f"\n[peak {rss:.0f} MiB, bound 400]")
    assert rss < 400, f"peak {rss:.0f} MiB"
    assert [p.name for p in tmp_path.iterdir()] == []        # nothing unpacked on disk


def bomb_log(tmp_path: Path, inflated: int) -> Path:
    """The recorded LAVA job log of tests/fixtures with its snapshot replaced by a gzip stream
    of ``inflated`` zero bytes (about 1 kB per MiB once compressed)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = bytes(1 << 20)
    packed = b"".join(packer.compress(chunk) for _ in range(inflated >> 20)) + packer.flush()
    text = base64.encodebytes(packed).decode()
    lines = SAMPLES["lava"].read_text().splitlines()
    begin = next(i for i, line in enumerate(lines) if "PLATPERF-SNAPSHOT-BEGIN" in line)
    end = next(i for i, line in enumerate(lines) if "PLATPERF-SNAPSHOT-END" in line)
    records = [f'- {{"dt": "2026-11-23T10:41:17.2", "lvl": "target", "msg": "{b64}"}}'
               for b64 in text.splitlines()]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines[:begin + 1] + records + lines[end:]) + "\n")
    return path


def test_a_gzip_bomb_in_a_lava_log_is_refused_in_bounded_memory(tmp_path):
    """Row 8: a 4.6 MB log whose snapshot inflates to gigabytes took 3.96 GB and was stored
    "complete"; now decompression stops at 64 MiB and the run is partial, saying why."""
    log = bomb_log(tmp_path, 4 << 30)
    code, out, err, rss = peak([*PLATPERF, "ingest", "lava", str(log), "--label", "bomb", "--db", "b.db"],
                               cwd=tmp_path)
    assert code == 2 and "decompresses to more than 64 MiB" in err, err
    assert "partial" in out
    print(f"\n[peak {rss:.0f} MiB, bound 400]")
    assert rss < 400, f"peak {rss:.0f} MiB"


def test_a_yaml_bomb_as_a_job_definition_is_refused_at_once(tmp_path):
    """Row 9: a job definition with a "billion laughs" label ran to 5.1 GB; now the label is
    refused before anything is built."""
    from test_lava_hostile import Hostile, reply
    laughs = "a: &a ['lol','lol','lol','lol','lol','lol','lol','lol','lol']\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join(["*" + chr(97 + i)] * 9) + "]\n" for i in range(8)) \
        + "metadata: {platperf.label: *i}\n"
    log = SAMPLES["lava"].read_bytes()

    def answer(handler):
        if handler.path.startswith("/RPC2"):          # scheduler.jobs.show: the state
            reply(handler, body=xmlrpc.client.dumps(({"id": 1, "state": "Finished", "health": "Complete"},),
                                                    methodresponse=True).encode())
        elif handler.path.endswith("/logs/"):
            reply(handler, body=log)
        else:                                         # jobs/1/: the definition, for the label
            reply(handler, body=json.dumps({"id": 1, "state": "Finished", "health": "Complete",
                                            "definition": laughs}).encode())
    lab = Hostile(answer)
    try:
        (tmp_path / "lavacli.yaml").write_text(f"lab:\n  uri: {lab.url}/RPC2\n  token: t\n")
        code, out, err, rss = peak([*PLATPERF, "ingest", "lava", "1", "--identity", "lab", "--db", "y.db"],
                                   cwd=tmp_path, env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path)),
                                   timeout=300)
    finally:
        lab.close()
    assert code == 2 and "expands to more than" in err and "give --label" in err, err
    print(f"\n[peak {rss:.0f} MiB, bound 300]")
    assert rss < 300, f"peak {rss:.0f} MiB"


# A pool past platperf.ingest.pooling.IN_MEMORY keys waits on disk: what an import holds is
# bounded by that, not by the keys of the log. 150,000 keys took 330-360 MB before.
KEYS_BOUND_MB = 200


@pytest.mark.parametrize("fmt", ["lmbench", "tftf-rt-instr", "stream"])
def test_a_log_of_many_keys_imports_in_bounded_memory(tmp_path, fmt):
    """Row 4 of issue 39: 360,000 lat_mem_rd sizes took 786 MB (2.2 KB a key)."""
    log = tmp_path / f"{fmt}.log"
    log.write_text(many_keys(fmt, 150_000))
    code, out, err, rss = peak([*PLATPERF, "ingest", fmt, str(log), "--label", "many", "--db", "m.db"],
                               cwd=tmp_path)
    assert code == 0, err
    assert "150000 results" in out or "150004 results" in out, out
    print(f"\n[{fmt}: peak {rss:.0f} MiB, bound {KEYS_BOUND_MB}]")
    assert rss < KEYS_BOUND_MB, f"peak {rss:.0f} MiB"
