"""Records as they really are (issue 17): raw lists with gaps never beat the recorded outcome.

Each test takes a real mafiaratings record, cuts or changes its raw data in one
way real records do (a shooting list a night short, shots at different seats,
a recorded miss whose shots agree, ballots or nominations left out, ballots
naming another player, a day the record ends without an exit), imports it and
checks the protocol replays valid to exactly the record's deaths and winner,
with the disagreement reported as an audit `record_outcome` on the event that
opens the phase, which carries the stated outcome (`leaves`, `taken_from_record`).
Without the reconciliation every one of these gives other deaths (checked too).
"""
from __future__ import annotations

import copy
import json

import pytest

from engine.importers import import_record
from engine.importers import mafiaratings as mr
from importers_support import MAFIARATINGS, POLEMICA, load, run_check


def _record(game_id: str) -> dict:
    return load([p for p in MAFIARATINGS if game_id in p.name][0])


def _seat(rec: dict, seat: int) -> dict:
    return rec["players"][seat - 1]


def _short_shooting_list(rec):
    """4842: seat 2's shooting list stops after night 1; night 2 killed seat 9 (record)."""
    _seat(rec, 2)["shooting"] = [10]
    return "night", 2


def _targets_differ(rec):
    """4842: the Don's night-2 shot names seat 3, the others seat 9 (record: 9 killed)."""
    _seat(rec, 8)["shooting"] = [10, 3, 7]
    return "night", 2


def _recorded_miss(rec):
    """4842: the record has nobody killed on night 3, yet the only shooter shot seat 7."""
    del _seat(rec, 7)["death"]
    return "night", 3


def _ballots_missing(rec):
    """4842: every ballot of day 1 is missing; the record has seat 4 voted out."""
    for p in rec["players"]:
        if isinstance(p.get("voting"), list) and len(p["voting"]) > 1:
            p["voting"][1] = None
    return "day", 1


def _nomination_missing(rec):
    """4842: seat 3's nomination of seat 2 on day 2 is missing; the record has seat 2 voted out."""
    _seat(rec, 3)["nominating"] = [None, 5]
    return "day", 2


def _ballots_disagree(rec):
    """4842: two day-2 ballots moved to seat 5, who then leads; the record has seat 2 out."""
    _seat(rec, 1)["voting"][2] = 5
    _seat(rec, 3)["voting"][2] = 5
    return "day", 2


def _recorded_nobody(rec):
    """4842: day 0's ballots give seat 1 a majority; the record has nobody leave that day."""
    for seat in (7, 8, 9, 10):
        _seat(rec, seat)["voting"][0] = [1, 1]
    return "day", 0


GAPS = [_short_shooting_list, _targets_differ, _recorded_miss, _ballots_missing,
        _nomination_missing, _ballots_disagree, _recorded_nobody]


def _recorded(rec) -> list[tuple[int, int, str]]:
    return sorted((i + 1, p["death"]["round"], p["death"]["type"])
                  for i, p in enumerate(rec["players"]) if "death" in p)


def _check(tmp_path, doc) -> tuple[int, dict]:
    out = tmp_path / "p.json"
    out.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return run_check(out)


def _exits(check) -> list[tuple[int, int, str]]:
    return sorted((e["seat"], e["round"], e["type"]) for e in check["exits"])


@pytest.mark.parametrize("gap", GAPS, ids=[g.__name__.strip("_") for g in GAPS])
def test_the_recorded_outcome_stands_over_a_gap(tmp_path, gap):
    rec = _record("4842")
    kind, r = gap(rec)
    doc = import_record("mafiaratings", rec)
    code, check = _check(tmp_path, doc)
    errors = [i for i in check["issues"] if i["severity"] == "error"]
    assert code == 0 and check["valid"], errors
    assert _exits(check) == _recorded(rec)
    assert check["result"] == rec["winner"]
    opener = [ev for ev in doc["events"] if ev["type"] == ("nightfall" if kind == "night" else "morning")][r]
    assert opener.get("taken_from_record") is True
    assert opener["leaves"] == sorted(s for s, rr, k in _recorded(rec) if rr == r and k == kind)
    index = doc["events"].index(opener)
    audits = [i for i in check["issues"] if i["code"] == "record_outcome"]
    assert audits and all(i["severity"] == "audit" for i in audits)
    assert index in {i["event"] for i in audits}


@pytest.mark.parametrize("gap", GAPS, ids=[g.__name__.strip("_") for g in GAPS])
def test_without_the_reconciliation_the_gap_changes_the_game(tmp_path, gap, monkeypatch):
    """The constructed gaps are real ones: the raw lists alone give other deaths."""
    rec = _record("4842")
    gap(rec)
    monkeypatch.setattr(mr, "reconcile", lambda doc, deaths: doc)
    code, check = _check(tmp_path, import_record("mafiaratings", rec))
    assert not check["valid"] or _exits(check) != _recorded(rec)


def test_a_clean_record_states_no_outcome():
    for path in MAFIARATINGS:
        doc = import_record("mafiaratings", load(path))
        assert not any("leaves" in ev for ev in doc["events"]), path.name


def test_a_ballot_by_a_player_already_out_is_set_aside_with_a_note(tmp_path):
    """4842: seat 10 (killed on night 1) has a ballot on day 1 in the record."""
    rec = _record("4842")
    _seat(rec, 10)["voting"] = [[2, 2], 1]
    doc = import_record("mafiaratings", rec)
    code, check = _check(tmp_path, doc)
    assert check["valid"], [i for i in check["issues"] if i["severity"] == "error"]
    assert _exits(check) == _recorded(rec)
    mornings = [i for i, ev in enumerate(doc["events"]) if ev["type"] == "morning"]
    assert not any(10 in ev.get("voters", ()) for ev in doc["events"][mornings[1]:]
                   if ev["type"] == "vote")
    assert any("seat(s) 10 already out" in ev.get("text", "") for ev in doc["events"])


def test_several_gaps_in_one_record(tmp_path):
    rec = _record("4842")
    for gap in (_short_shooting_list, _ballots_missing, _recorded_nobody):
        gap(rec)
    code, check = _check(tmp_path, import_record("mafiaratings", rec))
    assert check["valid"] and _exits(check) == _recorded(rec) and check["result"] == rec["winner"]


def _finished(path) -> bool:
    rec = load(path)
    return rec.get("winner") is not None if path in MAFIARATINGS else rec.get("result") is not None


@pytest.mark.parametrize("path", MAFIARATINGS + POLEMICA, ids=[p.stem for p in MAFIARATINGS + POLEMICA])
def test_every_shared_record_imports_valid(tmp_path, path):
    """Every record in ../shared/formats: valid; a finished one with the record's winner
    (and, for mafiaratings, exactly its recorded deaths)."""
    kind = "mafiaratings" if path in MAFIARATINGS else "polemica"
    rec = load(path)
    code, check = _check(tmp_path, import_record(kind, copy.deepcopy(rec)))
    assert code == 0 and check["valid"], [i for i in check["issues"] if i["severity"] == "error"]
    if not _finished(path):
        return
    if kind == "mafiaratings":
        assert _exits(check) == _recorded(rec)
        assert check["result"] == rec["winner"]
    else:
        assert check["result"] == {0: "civ", 1: "maf", 2: "tie"}[rec["result"]]
