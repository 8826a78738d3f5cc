"""Crash-safe file writes: a reader sees the old file or the new one, never half.

Every derived file in a game workspace (incidents.json, reports, markers) is
written this way so an interrupted step never leaves a truncated file behind;
`read_versioned_json` is the matching read, checking format and version.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write `data` to `path` via a temporary file in the same folder and a rename."""
    target = Path(path)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file private (0600); give it the permissions an
        # ordinary write would: the old file's, or rw-r--r--.
        try:
            mode = target.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o644
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(target.parent)
    return target


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: str | os.PathLike[str], obj: Any) -> Path:
    text = json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False) + "\n"
    return write_text_atomic(path, text)


def _fsync_dir(folder: Path) -> None:
    # The rename is durable only once the directory entry is on disk.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_versioned_json(path: Path, fmt: str, version: int, error: type[Exception]) -> dict:
    """A mafvar JSON document of one format and version, or `error` saying what is off.
    A missing file raises FileNotFoundError (callers tell "not yet" from "broken")."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:  # bad JSON, bad UTF-8, an integer past Python's digit limit
        raise error(f"{path}: not readable JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise error(f"{path}: not a {fmt} file")
    if doc.get("version") != version:
        raise error(f"{path}: {fmt} version {doc.get('version')!r} is not supported "
                    f"(this mafvar reads version {version})")
    return doc
