"""Files written whole or not at all: the new text goes to a temporary file beside the old one,
is flushed to the disk, and is renamed over it. A full disk or a kill midway leaves the old
file as it was (and no temporary file), never a truncated one."""
from __future__ import annotations

import os
from pathlib import Path


def write_text(path: Path, text: str):
    """``text`` into ``path`` (UTF-8), atomically; OSError as open() and write() raise it."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
