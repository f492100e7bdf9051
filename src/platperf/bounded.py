"""Reading what others wrote with a bound on what it may cost: YAML without alias expansion,
decompression up to a size. Every cap is one constant here, documented in docs/security.md.

A LAVA server, a job log or a board may send a "billion laughs" document (a few kB of YAML
whose aliases expand to gigabytes) or a gzip bomb (kB that inflate to GB); both are refused
with one line instead of being expanded.
"""
from __future__ import annotations

import zlib

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)   # libyaml when it is there

# What a board's /sys and /proc snapshot may hold (targets/remote_sysroot.py). A large server's
# is a few MiB (cpuinfo and /proc/stat grow with the CPUs, /proc/<pid> with the processes);
# more is a board that lies, and reading stops.
MAX_SNAPSHOT_BYTES = 64 << 20
MAX_SNAPSHOT_FILES = 200_000
MAX_SNAPSHOT_FILE_BYTES = 8 << 20

MAX_YAML_BYTES = 16 << 20      # a LAVA job definition carrying a probe is about 2 MB
MAX_YAML_NODES = 1_000_000     # after aliases are expanded


class BoundError(ValueError):
    """Input over a cap, or built to expand: one line saying which."""


def load_yaml(text: str | bytes, what: str = "the YAML document"):
    """``yaml.safe_load`` of ``text`` within bounds: at most MAX_YAML_BYTES, and at most
    MAX_YAML_NODES nodes once every alias is expanded, counted on the composed graph before
    anything is built (a "billion laughs" document is refused at once; a template sharing a
    block through an anchor is read as before). Raises BoundError, or yaml.YAMLError for YAML
    that does not parse."""
    if len(text) > MAX_YAML_BYTES:
        raise BoundError(f"{what} is {len(text) >> 20} MiB, over the {MAX_YAML_BYTES >> 20} MiB platperf reads")
    node = yaml.compose(text, Loader=_LOADER)
    if node is None:
        return None
    if _expanded_size(node) > MAX_YAML_NODES:
        raise BoundError(f"{what} expands to more than {MAX_YAML_NODES} YAML nodes through its "
                         f"aliases (&name / *name); platperf does not build it")
    loader = _LOADER("")
    try:
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _expanded_size(root) -> int:
    """How many nodes ``root`` stands for with every alias expanded: each distinct node is
    visited once (memoised by identity), so a document built to expand costs its own size."""
    sizes: dict[int, int] = {}
    stack = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        if isinstance(node, yaml.ScalarNode):
            sizes[id(node)] = 1
            continue
        children = [n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode) \
            else list(node.value)
        if children_done:
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child in children)
            continue
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in sizes)
    return sizes[id(root)]


def gunzip(data: bytes, limit: int, what: str = "the compressed data") -> bytes:
    """``data`` decompressed (gzip), refused once the output passes ``limit`` bytes."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise BoundError(f"{what} does not decompress ({exc})") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise BoundError(f"{what} decompresses to more than {limit >> 20} MiB; platperf stopped")
    if not inflater.eof:
        raise BoundError(f"{what} is cut short (the gzip stream does not end)")
    return out
