"""The aggressors' address sequences (probe/src/kernels/aggressors.c) for a small synthetic
cache, checked against the definitions: way_hammer reads one line in each way of a set
before moving to the next set, over 4x the cache; set_crawler walks the sets way by way."""
from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

import pytest
from conftest import require_executable

SRC = Path(__file__).resolve().parents[1] / "probe" / "src" / "kernels" / "aggressors.c"


class Geometry(ctypes.Structure):
    _fields_ = [("sets", ctypes.c_size_t), ("ways", ctypes.c_size_t), ("line", ctypes.c_size_t)]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    require_executable("gcc")
    so = tmp_path_factory.mktemp("agg") / "libagg.so"
    subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Werror", "-shared", "-fPIC", "-pthread",
                    "-o", str(so), str(SRC)], check=True)
    a = ctypes.CDLL(str(so))
    a.aggressor_sequence.restype = ctypes.c_size_t
    a.aggressor_sequence.argtypes = [ctypes.c_int, ctypes.POINTER(Geometry),
                                     ctypes.POINTER(ctypes.c_size_t), ctypes.c_size_t]
    a.aggressor_pattern_from_name.argtypes = [ctypes.c_char_p]
    a.aggressor_buffer_bytes.restype = ctypes.c_size_t
    return a


def sequence(lib, name, sets, ways, line):
    g = Geometry(sets, ways, line)
    pattern = lib.aggressor_pattern_from_name(name.encode())
    n = lib.aggressor_sequence(pattern, ctypes.byref(g), None, 0)
    out = (ctypes.c_size_t * n)()
    assert lib.aggressor_sequence(pattern, ctypes.byref(g), out, n) == n
    return list(out)


def set_of(offset, sets, line):
    return (offset // line) % sets


def test_way_hammer_reads_every_way_of_a_set_before_the_next_set(lib):
    sets, ways, line = 4, 2, 64
    seq = sequence(lib, "way_hammer", sets, ways, line)
    # 4x the cache: 4 * ways lines map to each set
    assert len(seq) == 4 * sets * ways
    assert seq[:8] == [0, 256, 512, 768, 1024, 1280, 1536, 1792]
    assert [set_of(o, sets, line) for o in seq] == [s for s in range(sets) for _ in range(4 * ways)]
    assert sorted(seq) == list(range(0, 4 * sets * ways * line, line))


def test_set_crawler_crosses_every_set_boundary_way_by_way(lib):
    sets, ways, line = 4, 2, 64
    seq = sequence(lib, "set_crawler", sets, ways, line)
    assert len(seq) == 4 * sets * ways
    assert [set_of(o, sets, line) for o in seq] == list(range(sets)) * (4 * ways)
    assert [o // (sets * line) for o in seq] == [w for w in range(4 * ways) for _ in range(sets)]
    assert sorted(seq) == sorted(sequence(lib, "way_hammer", sets, ways, line))


def test_bandwidth_patterns_stream_the_buffer_and_memcpy_reads_the_first_half(lib):
    sets, ways, line = 8, 4, 32
    size = 4 * sets * ways * line
    assert sequence(lib, "bw-read", sets, ways, line) == list(range(0, size, line))
    assert sequence(lib, "bw-write", sets, ways, line) == list(range(0, size, line))
    assert sequence(lib, "memcpy", sets, ways, line) == list(range(0, size // 2, line))
    assert sequence(lib, "none", sets, ways, line) == []
    assert lib.aggressor_buffer_bytes(ctypes.byref(Geometry(sets, ways, line))) == size


def test_unknown_pattern_name_is_refused(lib):
    assert lib.aggressor_pattern_from_name(b"way-hammer") == -1
    assert lib.aggressor_pattern_from_name(b"set_crawler") == 2
