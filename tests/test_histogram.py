"""The probe's log-linear histogram (probe/src/histogram.c), built as a shared library and
driven through ctypes, checked against the definitions in histogram.h."""
from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

import pytest
from conftest import require_executable
from hypothesis import given, settings, strategies as st

SRC = Path(__file__).resolve().parents[1] / "probe" / "src" / "histogram.c"
SUB_BITS = 7
EXACT = 2 << SUB_BITS
BUCKETS = (64 - SUB_BITS + 1) << SUB_BITS
TOP = 16
U64 = ctypes.c_uint64


class Top(ctypes.Structure):
    _fields_ = [("value", U64), ("t", U64)]


class Histogram(ctypes.Structure):
    _fields_ = [("counts", U64 * BUCKETS), ("count", U64), ("sum", U64), ("min", U64),
                ("max", U64), ("threshold", U64), ("over", U64), ("top", Top * TOP),
                ("ntop", ctypes.c_uint), ("raw", ctypes.POINTER(U64)), ("raw_cap", ctypes.c_size_t),
                ("raw_n", ctypes.c_size_t), ("raw_seen", U64)]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    require_executable("gcc")
    so = tmp_path_factory.mktemp("hist") / "libhist.so"
    subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Werror", "-shared", "-fPIC", "-o", str(so),
                    str(SRC)], check=True)
    h = ctypes.CDLL(str(so))
    h.hist_bucket.restype = ctypes.c_uint
    h.hist_bucket.argtypes = [U64]
    for name in ("hist_bucket_lower", "hist_bucket_upper"):
        getattr(h, name).restype = U64
        getattr(h, name).argtypes = [ctypes.c_uint]
    h.hist_quantile.restype = U64
    h.hist_quantile.argtypes = [ctypes.POINTER(Histogram), ctypes.c_double]
    h.hist_record.argtypes = [ctypes.POINTER(Histogram), U64, U64]
    h.hist_init.argtypes = [ctypes.POINTER(Histogram), ctypes.POINTER(U64), ctypes.c_size_t]
    h.hist_merge.argtypes = [ctypes.POINTER(Histogram), ctypes.POINTER(Histogram)]
    h.hist_add_exact.argtypes = [ctypes.POINTER(Histogram), ctypes.POINTER(U64 * EXACT)]
    h.hist_top_sorted.restype = ctypes.c_uint
    h.hist_top_sorted.argtypes = [ctypes.POINTER(Histogram), ctypes.POINTER(Top * TOP)]
    return h


def filled(lib, values, raw_cap=0, threshold=None):
    h = Histogram()
    raw = (U64 * raw_cap)() if raw_cap else None
    lib.hist_init(ctypes.byref(h), raw, raw_cap)
    h._raw_keepalive = raw
    if threshold is not None:
        h.threshold = threshold
    for t, v in enumerate(values):
        lib.hist_record(ctypes.byref(h), v, t)
    return h


values_st = st.lists(st.integers(0, 2**40), min_size=1, max_size=300)


def test_buckets_tile_the_range_without_gaps(lib):
    assert lib.hist_bucket_lower(0) == 0
    for b in range(BUCKETS - 1):
        assert lib.hist_bucket_upper(b) == lib.hist_bucket_lower(b + 1) > lib.hist_bucket_lower(b)
    assert lib.hist_bucket_upper(BUCKETS - 1) == 2**64 - 1
    assert lib.hist_bucket(2**64 - 1) == BUCKETS - 1


def test_values_below_256_ticks_have_their_own_bucket(lib):
    for v in range(EXACT):
        b = lib.hist_bucket(v)
        assert (lib.hist_bucket_lower(b), lib.hist_bucket_upper(b)) == (v, v + 1)


@given(st.integers(0, 2**64 - 2))
def test_a_value_lies_in_its_bucket_and_the_bucket_is_within_1_percent(lib, v):
    b = lib.hist_bucket(v)
    lo, hi = lib.hist_bucket_lower(b), lib.hist_bucket_upper(b)
    assert lo <= v < hi
    assert (hi - lo) == 1 or (hi - lo) / lo <= 1 / 128


@settings(max_examples=50, deadline=None)
@given(values_st)
def test_min_max_count_sum_are_exact(lib, values):
    h = filled(lib, values)
    assert (h.min, h.max, h.count, h.sum) == (min(values), max(values), len(values), sum(values))
    assert sum(h.counts) == len(values)


@settings(max_examples=50, deadline=None)
@given(values_st, st.sampled_from([0.5, 0.9, 0.99, 0.9999, 1.0]))
def test_quantiles_are_within_1_percent_of_the_true_value(lib, values, q):
    h = filled(lib, values)
    s = sorted(values)
    rank = max(1, -(-int(q * len(s) * 10**6) // 10**6))   # ceil without float drift
    true = s[min(rank, len(s)) - 1]
    got = lib.hist_quantile(ctypes.byref(h), q)
    assert true <= got <= max(true + 0, int(true * (1 + 1 / 128)))
    assert lib.hist_quantile(ctypes.byref(h), 1.0) == max(values)


@settings(max_examples=30, deadline=None)
@given(values_st, values_st)
def test_merging_equals_recording_everything_in_one(lib, a, b):
    ha, hb, hab = filled(lib, a), filled(lib, b), filled(lib, a + b)
    lib.hist_merge(ctypes.byref(ha), ctypes.byref(hb))
    assert list(ha.counts) == list(hab.counts)
    assert (ha.min, ha.max, ha.count, ha.sum) == (hab.min, hab.max, hab.count, hab.sum)
    out = (Top * TOP)()
    n = lib.hist_top_sorted(ctypes.byref(ha), ctypes.byref(out))
    assert [out[i].value for i in range(n)] == sorted(a + b, reverse=True)[:TOP]


@settings(max_examples=50, deadline=None)
@given(values_st)
def test_top_keeps_the_largest_values_with_their_time(lib, values):
    h = filled(lib, values)
    out = (Top * TOP)()
    n = lib.hist_top_sorted(ctypes.byref(h), ctypes.byref(out))
    assert n == min(TOP, len(values))
    assert [out[i].value for i in range(n)] == sorted(values, reverse=True)[:TOP]
    for i in range(n):
        assert values[out[i].t] == out[i].value     # t is the index we recorded it at


@given(values_st, st.integers(1, 50))
def test_raw_samples_are_the_first_ones_and_bounded(lib, values, cap):
    h = filled(lib, values, raw_cap=cap)
    assert h.raw_n == min(cap, len(values))
    assert h.raw_seen == len(values)
    assert [h.raw[i] for i in range(h.raw_n)] == values[:cap]


@given(st.lists(st.integers(0, EXACT - 1), min_size=1, max_size=200), st.integers(0, 300))
def test_fast_path_counts_fold_in_exactly(lib, values, threshold):
    exact = (U64 * EXACT)()
    for v in values:
        exact[v] += 1
    h = filled(lib, [], threshold=threshold)
    lib.hist_add_exact(ctypes.byref(h), ctypes.byref(exact))
    ref = filled(lib, values, threshold=threshold)
    assert list(h.counts) == list(ref.counts)
    assert (h.min, h.max, h.count, h.sum, h.over) == (ref.min, ref.max, ref.count, ref.sum, ref.over)
    assert h.over == sum(1 for v in values if v > threshold)
