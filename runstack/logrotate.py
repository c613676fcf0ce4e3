"""Size-rotation of log files that a running process keeps open: ``copytruncate``.

The launcher sends each child's stdout and stderr to ``DATA_DIR/logs/<service>.out``, a
file the child (and whatever it forks) holds open for its whole life. Renaming such a
file would not help (the writers follow the old name's inode), and the children cannot be
told to reopen it (``langgraph dev`` has no such signal). So, like logrotate's
``copytruncate``: the file is copied to ``<name>.1`` (older copies shifted to ``.2`` ...)
and then truncated in place. Children write with ``O_APPEND``, so they go on at the new
end of the file. Lines written between the copy and the truncation (a few milliseconds)
are lost: the price of rotating a file nobody reopens.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

__all__ = ["rotate_if_large"]


def rotate_if_large(path: Path, *, max_bytes: int, backups: int) -> bool:
    """Rotate ``path`` when it is larger than ``max_bytes``, keeping ``backups`` old copies
    (``path.1`` the newest); True when it rotated. A missing file is left alone; with
    ``backups`` 0 the file is only truncated."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return False
    if size <= max_bytes:
        return False
    if backups > 0:
        oldest = path.with_name(f"{path.name}.{backups}")
        with contextlib.suppress(FileNotFoundError):
            oldest.unlink()
        for n in range(backups - 1, 0, -1):
            with contextlib.suppress(FileNotFoundError):
                path.with_name(f"{path.name}.{n}").rename(path.with_name(f"{path.name}.{n + 1}"))
        shutil.copyfile(path, path.with_name(f"{path.name}.1"))
    os.truncate(path, 0)
    return True
