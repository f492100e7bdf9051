"""A tap between platperf and the real probe, for the durability test: runs the probe
given by PROBE_TAP_REAL with the same arguments, forwards each line of its stdout at once,
and appends ``<time.monotonic()> <line>`` to PROBE_TAP_FILE after forwarding it.

PROBE_TAP_PAUSE_S holds the probe's `end` record back that long: a quiet spell after a
burst of results, as a probe has while it measures its next point, so that records which
platperf only commits when more arrive would be caught uncommitted."""
import os
import signal
import subprocess
import sys
import time


def main():
    # The tap is the probe's parent: the probe dies with its parent (PR_SET_PDEATHSIG), and kills
    # itself at once when its parent is not the one PLATPERF_PARENT_PID names (probe/src/exec.c).
    probe = subprocess.Popen([os.environ["PROBE_TAP_REAL"], *sys.argv[1:]], stdout=subprocess.PIPE,
                             text=True, bufsize=1, env={**os.environ, "PLATPERF_PARENT_PID": str(os.getpid())})
    # Ctrl-C from platperf reaches the probe, which finishes its sample and writes `end`.
    signal.signal(signal.SIGINT, lambda *_: probe.send_signal(signal.SIGINT))
    with open(os.environ["PROBE_TAP_FILE"], "a", buffering=1) as tap:
        pause = float(os.environ.get("PROBE_TAP_PAUSE_S", "0"))
        for line in probe.stdout:
            if line.startswith('{"type":"end"'):
                time.sleep(pause)
            try:
                sys.stdout.write(line)
                sys.stdout.flush()
            except BrokenPipeError:   # platperf is gone: so is the run
                probe.kill()
                return 1
            tap.write(f"{time.monotonic():.6f} {line}")
    return probe.wait()


if __name__ == "__main__":
    sys.exit(main())
