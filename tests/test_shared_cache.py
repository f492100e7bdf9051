"""Which keys a last-level cache shared with a VM's unseen tenants moves (platperf.compare.shared_cache)."""
from __future__ import annotations

import pytest

from platperf.compare.shared_cache import working_set, zone

KVM = {"vm": True, "hypervisor": "KVM", "evidence": ["cpuinfo flag 'hypervisor'"]}
BARE = {"vm": False, "hypervisor": None, "evidence": []}
# this machine's shape: 32 KiB L1d and 1 MiB L2 a CPU, one 32 MiB L3
EPYC = [{"level": 1, "type": "data", "size": 32768}, {"level": 1, "type": "instruction", "size": 32768},
        {"level": 2, "type": "unified", "size": 1048576}, {"level": 3, "type": "unified", "size": 33554432}]


@pytest.mark.parametrize("benchmark, params, expected", [
    ("mem-latency", "pattern=random,size=4194304,stride=64", 4 << 20),
    ("mem-bandwidth", "kernel=rd,size=1048576", 1 << 20),
    ("mem-bandwidth", "kernel=cp,size=1048576", 2 << 20),
    ("mem-bandwidth", "kernel=copy,size=67108864", 128 << 20),     # STREAM copy: a and c
    ("mem-bandwidth", "kernel=triad,size=67108864", 192 << 20),
    ("mem-bandwidth", "kernel=peak-copy,size=8388608", 16 << 20),
    ("mem-bandwidth", "kernel=bcopy,size=16m", 32 << 20),          # an imported size as written
    ("ctx-switch", "procs=2,size=16384", None),                    # not a buffer of its own
    ("mem-latency", "pattern=random", None),
])
def test_the_working_set_counts_every_buffer_the_kernel_touches(benchmark, params, expected):
    assert working_set(benchmark, params) == expected


def test_on_a_virtual_machine_the_zone_runs_from_half_the_private_cache_to_twice_the_llc():
    z = zone([{"virtualization": KVM, "caches": EPYC}])
    assert (z.low, z.high, z.llc, z.hypervisor) == (512 << 10, 64 << 20, 32 << 20, "KVM")
    moved = {params: z.moves(("mem-latency", params)) for params in
             ("size=262144", "size=1048576", "size=4194304", "size=67108864", "size=268435456")}
    assert moved == {"size=262144": False, "size=1048576": True, "size=4194304": True,
                     "size=67108864": True, "size=268435456": False}
    # the DRAM bandwidth keys (STREAM over 64 MiB arrays) stay gated: they catch a memory hog
    assert not any(z.moves(("mem-bandwidth", f"kernel={k},size=67108864")) for k in ("copy", "add", "triad"))
    assert z.moves(("mem-bandwidth", "kernel=rd,size=1048576"))


def test_a_board_or_unknown_caches_hold_no_key():
    assert zone([{"virtualization": BARE, "caches": EPYC}]) is None
    assert zone([{"caches": EPYC}]) is None                           # an import says nothing
    assert zone([{"virtualization": KVM, "caches": []}]) is None      # a device tree without caches
    assert zone([]) is None
    assert zone([{"virtualization": "kvm", "caches": EPYC}]) is None    # not a fingerprint's shape
    assert zone([None, {"virtualization": KVM, "caches": EPYC}]).llc == 32 << 20   # an imported run: no fingerprint


def test_either_side_in_a_virtual_machine_holds_the_keys_with_the_first_caches_listed():
    base = {"virtualization": BARE, "caches": EPYC[:3]}               # L2 the last level it lists
    new = {"virtualization": KVM, "caches": EPYC}
    z = zone([base, new])
    assert (z.low, z.high) == (16 << 10, 2 << 20)
    assert zone([{"virtualization": KVM}, new]).llc == 32 << 20
