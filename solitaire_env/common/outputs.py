"""Where an output file or folder can go: the one check every writer runs before its work starts.

Every verb of the CLI, and :func:`agents.evaluate`, checks its output paths with
:func:`output_path_problem` before any game is played or any deal searched, and makes missing
parent folders when it writes (the CLI reference: docs/cli.md).
"""

from __future__ import annotations

import os
from pathlib import Path


def output_path_problem(path: str | os.PathLike[str], *, folder: bool = False) -> str | None:
    """Why ``path`` cannot take an output file (with ``folder``: an output folder), or ``None``.

    Every verb checks its outputs with this before any work starts and makes missing parent
    folders when it writes, so a missing folder is fine.  Refused: an empty path, a folder
    where a file is wanted (or a file where a folder is wanted), a parent that is a file, a
    read-only file, and a nearest existing folder this process may not write in.  The answer
    is a clause to follow the quoted path: ``"'x.json' is an existing folder, not a file"``.
    """
    text = os.fspath(path)
    if not text.strip():
        return "is empty: want a path"
    p = Path(text)
    if p.is_dir():
        if not folder:
            return "is an existing folder, not a file"
        base = p
    elif p.exists():
        if folder:
            return "is an existing file, not a folder"
        if not os.access(p, os.W_OK):
            return "cannot be written: the file is read-only"
        base = p.parent
    else:
        base = p.parent
    while not base.exists() and base != base.parent:  # the nearest existing folder (or a file in the way)
        base = base.parent
    if not base.is_dir():
        return f"cannot be made: {str(base)!r} is a file, not a folder"
    if not os.access(base, os.W_OK | os.X_OK):
        return f"cannot be written: no permission to write in {str(base)!r}"
    return None
