"""The mafiaratings exporter, the importer's counterpart: a record written from a native
protocol reads back through the importer into the same game."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from importers_support import MAFIARATINGS, load

from engine.exporters import ExportError, export_record
from engine.importers import import_record
from engine.protocol import parse_protocol
from engine.replay import replay
from mafvar.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_videos" / "demo" / "protocol.json"


def game_of(doc: dict) -> dict:
    """What a game is, as the engine derives it: exits, result, every call's voters, shots,
    checks, fouls and the issues it finds."""
    rep = replay(parse_protocol(json.dumps(doc)))
    events = parse_protocol(json.dumps(doc)).events
    return {"exits": [e.to_dict() for e in rep.exits], "result": rep.result,
            "calls": [(c.round, c.pass_index, c.candidate, sorted(c.voters or ())) for c in rep.vote_calls],
            "raises": [(r.round, r.tied, r.passed) for r in rep.final.raises],
            # the order of shots inside one night is not part of a record
            "shots": sorted((rep.states[i].round, ev.by, ev.target) for i, ev in enumerate(events) if ev.type == "shot"),
            "checks": [(ev.type, ev.target) for ev in events if ev.type in ("don_check", "sheriff_check")],
            "fouls": [ev.seat for ev in events if ev.type == "foul"],
            "issues": sorted(i.code for i in rep.issues if i.severity.value != "note"),
            "roles": {s.seat: s.role for s in parse_protocol(json.dumps(doc)).seats}}


def round_trip(doc: dict) -> dict:
    record = json.loads(json.dumps(export_record("mafiaratings", doc)))
    return import_record("mafiaratings", record)


@pytest.mark.skipif(not SAMPLE.is_file(), reason="the committed sample is not built")
def test_the_samples_protocol_round_trips():
    doc = load(SAMPLE)
    assert game_of(round_trip(doc)) == game_of(doc)
    record = export_record("mafiaratings", doc)
    assert record["rules"].isdigit() and len(record["rules"]) == 13
    assert len(record["players"]) == 10
    # the format keeps ballots per player and round: seat 1 voted in both passes of day 0
    assert isinstance(record["players"][0]["voting"][0], list)


@pytest.mark.parametrize("path", MAFIARATINGS, ids=lambda p: p.stem)
def test_real_records_survive_import_export_import(path):
    native = import_record("mafiaratings", load(path))
    again = round_trip(native)
    assert game_of(again) == game_of(native)
    # and the exported record says what the original says about each player's fate
    original = load(path)
    exported = export_record("mafiaratings", native)
    for before, after in zip(original["players"], exported["players"]):
        if "death" in before:
            assert after["death"]["round"] == before["death"]["round"]
            assert after["death"]["type"] == before["death"]["type"]
        assert after.get("role", "civ") == before.get("role", "civ")
    assert exported["winner"] == original["winner"]


def test_a_game_under_other_rules_is_refused_by_name():
    doc = load(SAMPLE)
    doc["game"] = {**doc.get("game", {}), "profile": "classic-club", "overrides": {}}
    doc["game"].pop("rules_code", None)
    with pytest.raises(ExportError, match="profile classic-club: a mafiaratings record carries the mafclub-2023"):
        export_record("mafiaratings", doc)


def test_the_command_writes_the_record_and_never_overwrites(tmp_path, capsys):
    out = tmp_path / "game.json"
    assert main(["protocol", "export", "--to", "mafiaratings", str(SAMPLE), "-o", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["players"][1]["role"] == json.loads(SAMPLE.read_text())["seats"][1]["role"]
    assert "not in that format: announced vote counts, event times" in capsys.readouterr().out
    before = out.read_bytes()
    assert main(["protocol", "export", "--to", "mafiaratings", str(SAMPLE), "-o", str(out)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err and out.read_bytes() == before
    back = tmp_path / "back.json"
    assert main(["protocol", "import", "--from", "mafiaratings", str(out), "-o", str(back)]) == 0
    assert game_of(load(back)) == game_of(load(SAMPLE))
