"""The lowest layer: reading one machine's /sys and /proc, and naming its CPUs.

``SysRoot`` is the only way platperf reads a machine — this one (``SysRoot("/")``), a fixture
tree in the tests, or a snapshot fetched from a board over SSH (a subclass). ``cpuinfo`` parses
/proc/cpuinfo and ``cpu_models`` names cores from MIDR_EL1 or x86 family/model.

This package imports nothing else of platperf but its words (``platperf.vocab``), so ``topology`` and ``fingerprint`` can both
build on it without importing each other in a circle.
"""
from .sysroot import SysRoot, format_cpu_list, parse_cpu_list

__all__ = ["SysRoot", "format_cpu_list", "parse_cpu_list"]
