"""TF-A Test Framework (TFTF) runtime-instrumentation logs.

TFTF's runtime-instrumentation tests (``TESTS=runtime-instrumentation``) read TF-A's
PMF timestamps on every core and print one tag per core, converted to ns with the
generic counter frequency::

    <RT_INSTR:test_rt_instr_susp_deep_parallel<TAB>0<TAB>0<TAB>104580<TAB>241200<TAB>5260/>
    <RT_INSTR:test_rt_instr_psci_version_parallel<TAB>1<TAB>3<TAB>960/>

fields: test, cluster (MPIDR Aff1), core (MPIDR Aff0), then powerdown / wakeup /
cache-flush (PSCI entry to low-power entry, low-power exit to PSCI exit, cache flush)
or, for the PSCI_VERSION test, the round-trip latency. Every other console line (BL
banners, TEST COMPLETE, LAVA prefixes before the tag) is ignored. Figures are stored in
us, the unit of the published TF-A tables.
"""
from __future__ import annotations

import re
from typing import Iterable, Iterator

from ..records import Result
from ..vocab.tfa import TFTF_BENCHMARK
from .errors import IngestError

# What this format reads, shaped like the real thing (`platperf ingest FORMAT --help` prints it).
EXAMPLE = """\
NOTICE:  BL31: v2.10.0(release):v2.10
<RT_INSTR:test_rt_instr_susp_deep_parallel\t0\t0\t242660\t245100\t5400/>
<RT_INSTR:test_rt_instr_susp_deep_parallel\t1\t0\t104360\t27100\t5320/>
<RT_INSTR:test_rt_instr_psci_version_parallel\t1\t3\t960/>
"""

BENCHMARK = TFTF_BENCHMARK

POWER_METRICS = ("powerdown", "wakeup", "cache_flush")
VERSION_METRICS = ("latency",)

_TAG = re.compile(r"<RT_INSTR:(.*?)/>")
_TEST_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EXPECTED = ("expected <RT_INSTR:test\\tcluster\\tcore\\tpowerdown_ns\\twakeup_ns\\tcflush_ns/> "
             "or <RT_INSTR:test\\tcluster\\tcore\\tlatency_ns/>")


def mode_of(test: str) -> str:
    """TFTF names say how the cores ran; a name that says neither ran one core at a time."""
    return "parallel" if "parallel" in test else "serial"


def parse(text: str, name: str) -> list[Result]:
    return list(read(text.splitlines(), name))


def read(lines: Iterable[str], name: str) -> Iterator[Result]:
    """The results of ``lines`` one at a time, as the file is read (see ingest.read_lines)."""
    found = False
    for number, line in enumerate(lines, 1):
        if "<RT_INSTR:" not in line:
            continue
        where = f"{name}:{number}"
        tag = _TAG.search(line)
        if tag is None:
            raise IngestError(where, f"unterminated RT_INSTR tag; {_EXPECTED}")
        fields = tag.group(1).split("\t")
        test = fields[0]
        if not _TEST_NAME.fullmatch(test):
            raise IngestError(where, f"test name {test!r:.40} is not a C identifier; {_EXPECTED}")
        if len(fields) == 6:
            metrics = POWER_METRICS
        elif len(fields) == 4:
            metrics = VERSION_METRICS
        else:
            raise IngestError(where, f"{len(fields)} tab-separated fields; {_EXPECTED}")
        numbers = []
        for field_name, text_value in zip(("cluster", "core") + metrics, fields[1:]):
            # %llu of a uint64_t: at most 20 digits
            if not (text_value.isascii() and text_value.isdigit() and len(text_value) <= 20):
                raise IngestError(where, f"{field_name} {text_value!r:.40} is not an unsigned integer; "
                                         f"{_EXPECTED}")
            numbers.append(int(text_value))
        cluster, core, *values_ns = numbers
        for metric, value_ns in zip(metrics, values_ns):
            found = True
            yield Result(
                benchmark=BENCHMARK, params={"test": test}, metric=metric, unit="us",
                direction="lower", samples=[value_ns / 1000.0], mode=mode_of(test),
                cluster=cluster, core=core, extra={"source": where})
    if not found:
        raise IngestError(f"{name}:1", f"no <RT_INSTR:...> lines in the file; {_EXPECTED} "
                                       "(is this a TFTF runtime-instrumentation log?)")
