"""Manual anchors: "this is where night 2 falls", set by a person, kept in the game folder.

`anchors.json` (format `mafvar-anchors`, version 1) sits beside protocol.json,
outside analysis/ (which is derived and may be deleted): it is what a judge
said, like review.db. It is append-only: setting an anchor adds an entry, and
clearing one adds an entry with `t: null`; the latest entry for a mark is the
one in force, and every earlier entry stays as the record of who moved what.
Each write goes through a temporary file and a rename, and the previous file is
kept as `anchors.json.previous`, so neither a crash nor a bad write loses one.

    {"format": "mafvar-anchors", "version": 1,
     "anchors": [{"mark": "nightfall:r2.night", "t": 171.4, "set_by": "Anna",
                  "role": "chief_judge", "set_at": "2026-11-01T18:02:11+00:00"}]}

`mark` is what `mafvar analyze --anchor` takes: an interval key (`r2.night`,
`r1.vote.p0.c10`) or `kind:key` (`nightfall:r2.night`, `vote_call:...`,
`thanks:...`, `don_check:r1.don_check`, ...); `t` is video seconds.
"""
from __future__ import annotations

import math
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .atomic_write import read_versioned_json, write_json_atomic

ANCHORS_FILE = "anchors.json"
ANCHORS_FORMAT = "mafvar-anchors"
ANCHORS_VERSION = 1
MARK_KINDS = ("nightfall", "morning", "vote_call", "thanks", "shooting_call", "don_check", "don_check_end",
              "sheriff_check", "sheriff_check_end")


class AnchorError(ValueError):
    """anchors.json cannot be read, or an anchor is not valid; the message says which."""


@dataclass(frozen=True)
class Anchor:
    mark: str
    t: float | None          # None: cleared
    set_by: str
    role: str = ""
    set_at: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"mark": self.mark, "t": self.t, "set_by": self.set_by, "role": self.role, "set_at": self.set_at}


def check_mark(mark: str) -> str:
    """`kind:key` or a bare interval key; refuses an unknown kind."""
    if not isinstance(mark, str) or not mark.strip() or len(mark) > 200:
        raise AnchorError(f"anchor mark {mark!r}: expected an interval key or kind:key")
    if ":" in mark:
        kind, key = mark.split(":", 1)
        if kind not in MARK_KINDS or not key:
            raise AnchorError(f"anchor mark {mark!r}: kind {kind!r} is not one of {', '.join(MARK_KINDS)}")
    return mark.strip()


def _path(game_dir: str | Path) -> Path:
    return Path(game_dir) / ANCHORS_FILE


def load_history(game_dir: str | Path) -> list[Anchor]:
    """Every entry ever written, oldest first ([] without a file)."""
    path = _path(game_dir)
    try:
        doc = read_versioned_json(path, ANCHORS_FORMAT, ANCHORS_VERSION, AnchorError)
    except FileNotFoundError:
        return []
    raw = doc.get("anchors")
    if not isinstance(raw, list):
        raise AnchorError(f"{path}: 'anchors' must be a list")
    out = []
    for k, a in enumerate(raw):
        if not isinstance(a, dict) or "mark" not in a:
            raise AnchorError(f"{path}: anchors[{k}] is not an anchor object")
        t = a.get("t")
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t)
                              or t < 0):
            raise AnchorError(f"{path}: anchors[{k}].t {t!r} is not a time in seconds")
        out.append(Anchor(check_mark(a["mark"]), None if t is None else float(t), str(a.get("set_by", "")),
                          str(a.get("role", "")), str(a.get("set_at", ""))))
    return out


def current(game_dir: str | Path) -> dict[str, float]:
    """The anchors in force: mark -> video seconds (the latest entry per mark; cleared ones left out)."""
    latest: dict[str, float | None] = {}
    for a in load_history(game_dir):
        latest[a.mark] = a.t
    return {m: t for m, t in latest.items() if t is not None}


def set_anchor(game_dir: str | Path, mark: str, t: float | None, set_by: str, role: str = "") -> Anchor:
    """Append an anchor (t=None clears the mark); returns the entry written."""
    if not isinstance(set_by, str) or not set_by.strip():
        raise AnchorError("an anchor needs the name of who sets it")
    if t is not None and (not math.isfinite(float(t)) or float(t) < 0):
        raise AnchorError(f"anchor time {t!r} is not a time in seconds")
    entry = Anchor(check_mark(mark), None if t is None else round(float(t), 3), set_by.strip(), role,
                   datetime.now(timezone.utc).isoformat(timespec="seconds"))
    history = load_history(game_dir)  # a damaged file stops here: nothing is overwritten
    path = _path(game_dir)
    if path.is_file():
        shutil.copy2(path, path.with_name(ANCHORS_FILE + ".previous"))
    write_json_atomic(path, {"format": ANCHORS_FORMAT, "version": ANCHORS_VERSION,
                             "anchors": [a.to_json() for a in history + [entry]]})
    return entry


def merged(game_dir: str | Path, given: dict[str, float] | None = None) -> dict[str, float]:
    """The workspace's anchors with those given on the command line on top."""
    out = current(game_dir)
    out.update(given or {})
    return out
