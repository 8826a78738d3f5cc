"""Importers of foreign game records into the native protocol (docs/formats.md).

    import_file("mafiaratings", "game_4842.json") -> native protocol dict
    import_record("polemica", data)               -> native protocol dict

Both raise `ImportError_` (a ValueError) naming what is wrong and where. Live
(unfinished) records import too; they simply have no `result` event.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from engine.files import read_text

from . import mafiaratings, polemica
from .errors import ImportError_

CONVERTERS: dict[str, Callable[[dict], dict]] = {
    "mafiaratings": mafiaratings.convert,
    "polemica": polemica.convert,
}
KINDS: tuple[str, ...] = tuple(CONVERTERS)

__all__ = ["ImportError_", "KINDS", "import_file", "import_record"]


def import_record(kind: str, data: Any) -> dict:
    """Convert an already-parsed foreign record (`kind`: mafiaratings or polemica)."""
    try:
        convert = CONVERTERS[kind]
    except KeyError:
        raise ImportError_(f"unknown record kind {kind!r}; expected one of "
                           f"{', '.join(KINDS)}") from None
    if not isinstance(data, dict):
        raise ImportError_(f"{kind} record: expected a JSON object at the top level, "
                           f"got {type(data).__name__}")
    try:
        return convert(data)
    except ImportError_:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        # a shape the checks above did not foresee: still one clear line, no traceback
        raise ImportError_(f"{kind} record: unexpected structure ({type(exc).__name__}: "
                           f"{exc})") from None


def import_file(kind: str, path: str | Path) -> dict:
    """Read a foreign record file and convert it."""
    p = Path(path)
    text = read_text(p, ImportError_)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportError_(f"{p}: not valid JSON: {exc.msg} at line {exc.lineno}, "
                           f"column {exc.colno}") from None
    except RecursionError:
        raise ImportError_(f"{p}: not valid JSON: nested too deeply") from None
    return import_record(kind, data)
