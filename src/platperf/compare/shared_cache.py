"""Keys a last-level cache shared with tenants platperf cannot see moves (issue 24).

In a virtual machine the host's last-level cache serves the other guests too. A working set
that lives in it is fast while they leave it room and slow when one of them fills it:
mem-latency random 4 MiB reads 12 ns or 100 ns (DRAM) on this KVM guest's 32 MiB L3,
from one minute to the next. The two modes are a property of the host's tenants, not of
the code, and nothing measured inside the guest tells a change of mode from a change of
code when each side met one mode only. ``platperf run --against`` therefore does not decide
such keys on a virtual machine: they stay *undecided*, with this reason, and are not
measured again (docs/gate.md has the A/A gates that showed it: every false regression in
10 gates was such a key).

The zone: a working set above half the largest cache private to a CPU (a private cache is
not fully associative and holds the code, the stack and the page walks too, so a buffer of
its size already spills: mem-bandwidth ``rd`` 1 MiB on the 1 MiB L2 was called regressed
falsely), up to twice the last-level cache (a random chase over twice the LLC still hits it
about half the time). Streaming kernels over more than that are DRAM figures: they stay
gated. On a board (no hypervisor) every key is gated.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..records import params_of
from ..vocab.sizes import size_label, size_or_none

# Buffers a mem-bandwidth kernel touches, each of `size` bytes (probe/src/kernels/mem_bandwidth.c);
# the others touch one. STREAM's copy and scale use two of their three arrays.
BUFFERS = {"cp": 2, "fcp": 2, "bcopy": 2, "peak-copy": 2, "copy": 2, "scale": 2, "add": 3, "triad": 3}


def working_set(benchmark: str, params: str) -> int | None:
    """Bytes a key's kernel cycles through (``params`` as stored: ``kernel=cp,size=1048576``),
    or None for a benchmark without a buffer of its own."""
    values = params_of(params)
    size = size_or_none(values.get("size"))
    if size is None:
        return None
    if benchmark == "mem-latency":
        return size
    if benchmark == "mem-bandwidth":
        return size * BUFFERS.get(values.get("kernel", ""), 1)
    return None


@dataclass(frozen=True)
class Zone:
    low: int            # working sets above this ...
    high: int           # ... and up to this live in the shared cache
    llc: int
    hypervisor: str

    def moves(self, key) -> bool:
        ws = working_set(key[0], key[1])
        return ws is not None and self.low < ws <= self.high

    def why(self) -> str:
        return (f"the working set lies in the {size_label(self.llc)} last-level cache that this virtual "
                f"machine ({self.hypervisor}) shares with the host's other tenants "
                f"(working sets over {size_label(self.low)}, up to {size_label(self.high)}): their use of it "
                "moves the figure between a cache's and DRAM's, which no statistics of the runs can tell "
                "from a change of code")


def zone(fingerprints: list[dict]) -> Zone | None:
    """The shared-cache zone when any side ran in a virtual machine and the caches are known
    (from the first fingerprint that lists them), else None: every key is gated."""
    fingerprints = [fp for fp in fingerprints if isinstance(fp, dict)]
    found = (fp.get("virtualization") for fp in fingerprints)
    vm = next((v for v in found if isinstance(v, dict) and v.get("vm")), None)
    if vm is None:
        return None
    for fp in fingerprints:
        caches = [(c.get("level"), size_or_none(c.get("size"))) for c in fp.get("caches") or []
                  if isinstance(c, dict) and not str(c.get("type", "")).lower().startswith("instr")]
        caches = [(level, size) for level, size in caches if isinstance(level, int) and size]
        if not caches:
            continue
        top = max(level for level, _ in caches)
        llc = max(size for level, size in caches if level == top)
        private = max((size for level, size in caches if level < top), default=llc)
        return Zone(private // 2, 2 * llc, llc, vm.get("hypervisor") or "unknown hypervisor")
    return None
