"""Reading a record file with one-line errors that name it.

The size limit (mafvar.limits) is checked on the file before it is read, and
no more than the limit is ever read, so a huge file or a device cannot make
a reader work for long.
"""
from __future__ import annotations

from pathlib import Path

from mafvar.limits import LIMITS, InputLimitError, read_text_file


def read_text(path: str | Path, error: type[Exception], *, max_bytes: int = LIMITS.max_bytes,
              what: str = "file") -> str:
    """The file's text (UTF-8), or `error` saying why it cannot be read."""
    p = Path(path)
    try:
        return read_text_file(p, max_bytes=max_bytes, what=what)
    except FileNotFoundError:
        raise error(f"{p}: no such file") from None
    except IsADirectoryError:
        raise error(f"{p}: is a folder, not a {what}") from None
    except InputLimitError as exc:
        raise error(str(exc)) from None
    except OSError as exc:
        raise error(f"{p}: cannot read: {exc.strerror or exc}") from None
