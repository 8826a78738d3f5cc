"""Shared helpers for the importer tests: the real records and an event-order checker."""
from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

# The real records are read where they are (../shared beside the clone, as in CI),
# never copied into the repo.
SHARED = Path(os.environ.get("MAFVAR_SHARED", Path(__file__).resolve().parents[2].parent / "shared"))
RECORDS = SHARED / "formats"
MAFIARATINGS = sorted((RECORDS / "mafiaratings").glob("game_*.json"))
POLEMICA = sorted((RECORDS / "polemica").glob("game_*.json"))
assert MAFIARATINGS and POLEMICA, f"real game records not found under {RECORDS} (set MAFVAR_SHARED)"

NIGHT_ONLY = {"shot", "don_check", "sheriff_check", "guess", "shooting_call"}
DAY_ONLY = {"speech", "nominate", "withdraw", "vote_announce", "vote", "raise_vote"}


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def run_check(protocol_path: Path) -> tuple[int, dict]:
    """`mafvar protocol check FILE --json` through the real CLI entry point."""
    from mafvar.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["protocol", "check", str(protocol_path), "--json"])
    return code, json.loads(out.getvalue())


def order_problems(doc: dict) -> list[str]:
    """Rule-order violations in an imported event list (empty when the order is legal).

    Checks what any legal game obeys regardless of profile: night and day
    alternate starting with the deal night; night actions happen at night and
    day actions by day; each day's normal speeches go round the table once,
    clockwise; each player nominates at most once a day; calls follow the
    vote announcement; the result, if any, is the last game event.
    """
    problems: list[str] = []
    phase = None  # "night" | "day"
    nights = 0
    speakers: list[int] = []
    nominators: set[int] = set()
    announced = False
    result_at = None
    for i, ev in enumerate(doc["events"]):
        kind = ev["type"]
        if result_at is not None and kind not in ("note", "bonus", "appeal"):
            problems.append(f"event {i} ({kind}) after the result")
        if kind == "nightfall":
            if phase == "night":
                problems.append(f"event {i}: nightfall during a night")
            phase, nights = "night", nights + 1
        elif kind == "morning":
            if phase != "night":
                problems.append(f"event {i}: morning outside a night")
            phase, speakers, nominators, announced = "day", [], set(), False
        elif phase is None:
            problems.append(f"event {i} ({kind}) before the first nightfall")
        if kind in NIGHT_ONLY and (phase != "night" or nights < 2):
            problems.append(f"event {i} ({kind}) outside a shooting night")
        if kind in DAY_ONLY and phase != "day":
            problems.append(f"event {i} ({kind}) outside a day")
        if kind == "speech" and ev.get("kind", "normal") == "normal":
            if announced:
                problems.append(f"event {i}: normal speech after the vote announcement")
            if ev["seat"] in speakers:
                problems.append(f"event {i}: seat {ev['seat']} speaks twice in a day")
            if speakers:
                opener = speakers[0]
                if (ev["seat"] - opener) % 10 <= (speakers[-1] - opener) % 10:
                    problems.append(f"event {i}: seat {ev['seat']} speaks out of clockwise order")
            speakers.append(ev["seat"])
        if kind == "nominate":
            if ev["by"] in nominators:
                problems.append(f"event {i}: seat {ev['by']} nominates twice in a day")
            if announced:
                problems.append(f"event {i}: nomination after the vote announcement")
            nominators.add(ev["by"])
        if kind == "vote_announce":
            announced = True
        if kind in ("vote", "raise_vote") and not announced:
            problems.append(f"event {i} ({kind}) before the vote announcement")
        if kind == "result":
            result_at = i
    return problems
