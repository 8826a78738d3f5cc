"""Helpers for the store tests: a game folder whose analysis names the incidents decided on."""
from __future__ import annotations

import json
from pathlib import Path

# every incident id the store tests decide on or attach
IDS = (["peek-1", "peek-2", "peek-3", "x-1", "orphan-123"] + [f"inc-{i}" for i in range(20)])


def write_incidents(game_dir: Path, ids=IDS) -> Path:
    """A minimal, valid analysis/incidents.json listing `ids` (the store refuses a decision
    on an incident the game does not have)."""
    path = Path(game_dir) / "analysis" / "incidents.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"format": "mafvar-incidents", "version": 1, "game": {},
           "incidents": [{"id": i, "type": "peek", "seats": [1], "t0": 1.0, "t1": 2.0,
                          "phase": {"label": "Night 1", "key": "r1.night"}, "confidence": 0.5}
                         for i in ids]}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path
