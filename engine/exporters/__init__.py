"""Exporters of native protocols to foreign game records: the importers' counterparts.

    export_record("mafiaratings", protocol_doc) -> mafiaratings record (dict)

Raises `ExportError` (a ValueError) naming what cannot be written and why.
"""
from __future__ import annotations

from typing import Callable

from . import mafiaratings
from .mafiaratings import ExportError

EXPORTERS: dict[str, Callable[[dict], dict]] = {"mafiaratings": mafiaratings.export_protocol}
KINDS: tuple[str, ...] = tuple(EXPORTERS)

__all__ = ["ExportError", "KINDS", "export_record"]


def export_record(kind: str, doc: dict) -> dict:
    try:
        export = EXPORTERS[kind]
    except KeyError:
        raise ExportError(f"unknown record kind {kind!r}; expected one of {', '.join(KINDS)}") from None
    return export(doc)
