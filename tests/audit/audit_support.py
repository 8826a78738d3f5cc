"""Helpers shared by the audit tests."""
from __future__ import annotations

import json
import shutil
from pathlib import Path


def incident_keys(game: Path) -> list[tuple[str, str, tuple[int, ...]]]:
    """What an analysis found, without timings: (id, type, seats) per incident."""
    doc = json.loads((game / "analysis" / "incidents.json").read_text(encoding="utf-8"))
    return sorted((i["id"], i["type"], tuple(i["seats"])) for i in doc["incidents"])


def findings(game: Path) -> tuple:
    """What an analysis concluded, without timings: its incidents, every vote call's
    recount (candidate, announced, recounted, cells left open) and whether the record
    fits. The 4-second clip shows no vote, so honest analyses raise no incident there;
    the recounts still differ with each game's protocol and never come out empty."""
    calls = json.loads((game / "analysis" / "recount.json").read_text(encoding="utf-8"))["calls"]
    fit = json.loads((game / "analysis" / "record_fit.json").read_text(encoding="utf-8"))
    recount = tuple((c["round"], c["pass"], c["candidate"], c["announced"], c["recount"],
                     tuple(sorted(u["seat"] for u in c.get("unverified") or ()))) for c in calls)
    return tuple(incident_keys(game)), recount, (fit["fits"], fit["marks_expected"], fit["marks_found"])


def build_folder(path: Path, sources: dict[str, Path], clip: Path, broken: tuple[str, ...] = ()) -> Path:
    """A fresh tournament folder holding the three games; names in `broken` (new or
    existing) get a corrupt protocol.json next to a real video."""
    path.mkdir(parents=True)
    for name, src in sources.items():
        game = path / name
        game.mkdir()
        for f in ("protocol.json", "calibration.json", "truth.json"):
            shutil.copy(src / f, game / f)
        shutil.copy(clip, game / "video.mp4")
    for name in broken:
        game = path / name
        if not game.exists():
            shutil.copytree(path / next(iter(sources)), game)
        (game / "protocol.json").write_text('{"format": "mafvar-protocol", "events": [', encoding="utf-8")
    return path
