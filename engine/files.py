"""Reading a record file with one-line errors that name it."""
from __future__ import annotations

from pathlib import Path


def read_text(path: str | Path, error: type[Exception]) -> str:
    """The file's text (UTF-8), or `error` saying why it cannot be read."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{p}: cannot read: {exc}") from None
