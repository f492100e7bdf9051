"""What the machine is: CPU, clusters, caches, kernel, frequency, isolation, VM, toolchain.

``collect(root, probe_meta)`` reads a sysfs/procfs root (tests pass a fixture tree) and returns
a JSON-able dict whose keys are documented in docs/fingerprint.md; ``comparability_keys()`` and
``diff()`` say which differences between two fingerprints change results.
"""
from .collect import SCHEMA, collect, detect_vm, from_probe_meta
from .comparability import Difference, comparability_keys, diff, lookup

__all__ = ["SCHEMA", "collect", "detect_vm", "from_probe_meta", "comparability_keys", "diff", "lookup", "Difference"]
