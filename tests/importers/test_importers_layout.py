"""How the importers lay out steps the shared records do not exercise, on small crafted records.

Each crafted record is a legal game fragment; the test checks both the event
layout and, where it decides an outcome, that the engine's replay of the
import gives the exit the rules call for.
"""
from __future__ import annotations

import copy
import json

import pytest

from engine.importers import import_record
from engine.protocol import schema_issues
from importers_support import POLEMICA, load, order_problems, run_check

ROLES = {2: "maf", 5: "maf", 8: "don", 3: "sheriff"}


def mr_record(rules="0000000000000", features="gsdutclhvnwr", **players) -> dict:
    """A mafiaratings record; `p6={...}` sets seat 6's fields."""
    out = []
    for seat in range(1, 11):
        p = {"id": 100 + seat, "name": f"P{seat}"}
        if seat in ROLES:
            p["role"] = ROLES[seat]
        p.update(players.get(f"p{seat}", {}))
        out.append(p)
    return {"id": 1, "rules": rules, "features": features, "players": out}


def replay(tmp_path, doc) -> dict:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, check = run_check(path)
    assert check["valid"], check["issues"]
    return check


def kinds(doc, *types):
    return [ev for ev in doc["events"] if ev["type"] in types]


def tie_record(**extra) -> dict:
    """Round 0: seat 2 nominates 1, seat 4 nominates 2; 5-5 twice."""
    players = {f"p{s}": {"voting": [[2, 2]]} for s in (1, 7, 8, 9, 10)}
    players.update({f"p{s}": {"voting": [[1, 1]]} for s in (2, 3, 4, 5, 6)})
    players["p2"]["nominating"] = [1]
    players["p4"]["nominating"] = [2]
    for key, value in extra.items():
        players.setdefault(key, {}).update(value)
    return players


def test_raise_ballots_are_used_when_the_record_has_them(tmp_path):
    players = tie_record()
    for s in range(1, 11):  # trailing bool: the "all leave?" answer; 6 ayes of 10
        players[f"p{s}"]["voting"][0].append(s <= 6)
    players["p1"]["death"] = {"round": 0, "type": "day"}
    players["p2"]["death"] = {"round": 0, "type": "day"}
    doc = import_record("mafiaratings", mr_record(features="gsdutclhvnwrk", **players))
    assert kinds(doc, "raise_vote") == [{"type": "raise_vote", "voters": [1, 2, 3, 4, 5, 6]}]
    assert not any(ev.get("taken_from_record") for ev in doc["events"])
    assert sorted((e["seat"], e["round"], e["type"]) for e in replay(tmp_path, doc)["exits"]) == [
        (1, 0, "day"), (2, 0, "day")]


def test_raise_ballots_saying_no_keep_both(tmp_path):
    players = tie_record()
    for s in range(1, 11):  # 5 ayes of 10: an even split keeps them (MC 001 2.4.15)
        players[f"p{s}"]["voting"][0].append(s <= 5)
    doc = import_record("mafiaratings", mr_record(features="gsdutclhvnwrk", **players))
    assert kinds(doc, "raise_vote") == [{"type": "raise_vote", "voters": [1, 2, 3, 4, 5]}]
    assert replay(tmp_path, doc)["exits"] == []


def test_split_order_reverse_reverses_the_revote_calls_only():
    doc = import_record("mafiaratings", mr_record(rules="0000010000000", **tie_record()))
    calls = [ev["candidate"] for ev in kinds(doc, "vote")]
    assert calls == [1, 2, 2, 1]
    ties = [ev["seat"] for ev in kinds(doc, "speech") if ev.get("kind") == "tie"]
    assert ties == [1, 2]  # tie speeches stay in nomination order


def test_revote_ballots_differ_from_first_pass():
    players = tie_record(p3={"voting": [[1, 2]]}, p7={"voting": [[2, 1]]})
    doc = import_record("mafiaratings", mr_record(**players))
    votes = kinds(doc, "vote")
    assert [v["candidate"] for v in votes] == [1, 2, 1, 2]
    assert 3 in votes[0]["voters"] and 3 in votes[3]["voters"]
    assert 7 in votes[1]["voters"] and 7 in votes[2]["voters"]


@pytest.mark.parametrize("rules,opener", [("0000000000000", 2), ("1000000000000", 3)])
def test_opener_rotation_follows_the_rules_code(rules, opener):
    """Seat 1 opens day 0 and is shot in night 1. `first`: seat 2 opens day 1. `last`: the
    closer must move on, and seat 10 closed day 0, so seat 3 opens (MC 2.5.8)."""
    players = {"p2": {"shooting": [1]}, "p5": {"shooting": [1]}, "p8": {"shooting": [1]},
               "p1": {"death": {"round": 1, "type": "night"}},
               "p4": {"nominating": [None, 6]}}
    doc = import_record("mafiaratings", mr_record(rules=rules, **players))
    mornings = [i for i, ev in enumerate(doc["events"]) if ev["type"] == "morning"]
    first_speech = next(ev for ev in doc["events"][mornings[1]:] if ev["type"] == "speech")
    assert first_speech["seat"] == opener
    assert order_problems(doc) == []


def _removal_record(death_type: str, warnings: int = 0, rules="0000000000000") -> dict:
    p6 = {"death": {"round": 0, "type": death_type,
                    "time": {"round": 0, "time": "speaking", "speaker": 3}},
          "warnings": [{"round": 0, "time": "speaking", "speaker": 1}] * warnings}
    return mr_record(rules=rules, p6=p6)


@pytest.mark.parametrize("death_type,rules,events", [
    ("kickOut", "0000000000000", [{"type": "removal", "seat": 6, "reason": "kickOut"}]),
    ("teamKickOut", "0000000000000",
     [{"type": "removal", "seat": 6, "reason": "teamKickOut", "team": True}]),
    ("giveUp", "0000000000000", [{"type": "give_up", "seat": 6}]),
])
def test_removals_land_at_their_game_time(tmp_path, death_type, rules, events):
    doc = import_record("mafiaratings", _removal_record(death_type, rules=rules))
    evs = doc["events"]
    at = next(i for i, ev in enumerate(evs) if ev.get("seat") == 6 and ev["type"] != "speech")
    assert evs[at - 1] == {"type": "speech", "seat": 3}  # during seat 3's speech, round 0
    assert evs[at:at + len(events)] == events
    assert {"type": "speech", "seat": 6} not in evs  # removed before their turn
    exits = replay(tmp_path, doc)["exits"]
    assert [(e["seat"], e["round"], e["type"]) for e in exits] == [(6, 0, death_type)]


def test_tech_foul_removal_is_stated_as_two_marked_technical_fouls(tmp_path):
    doc = import_record("mafiaratings", _removal_record("techFouls", rules="0000000000001"))
    fouls = kinds(doc, "foul")
    assert len(fouls) == 2
    assert all(f["kind"] == "technical" and f["taken_from_record"] for f in fouls)
    exits = replay(tmp_path, doc)["exits"]
    assert [(e["seat"], e["round"], e["type"]) for e in exits] == [(6, 0, "techFouls")]


def test_missing_warnings_of_a_fouls_removal_are_added_and_marked(tmp_path):
    doc = import_record("mafiaratings", _removal_record("warnings", warnings=2))
    fouls = kinds(doc, "foul")
    assert [bool(f.get("taken_from_record")) for f in fouls] == [False, False, True, True]
    exits = replay(tmp_path, doc)["exits"]
    assert [(e["seat"], e["round"], e["type"]) for e in exits] == [(6, 0, "warnings")]


def _muted_record() -> dict:
    warnings = [{"round": 0, "time": "speaking", "speaker": s} for s in (1, 2, 3)]
    return mr_record(p6={"warnings": warnings, "nominating": [1]})


def test_third_foul_before_the_turn_costs_the_speech_but_not_the_nomination(tmp_path):
    doc = import_record("mafiaratings", _muted_record())
    speakers = [ev["seat"] for ev in kinds(doc, "speech")]
    assert speakers == [1, 2, 3, 4, 5, 7, 8, 9, 10]
    evs = doc["events"]
    # the nomination sits at seat 6's turn: after seat 5's speech, before seat 7's
    i = evs.index({"type": "nominate", "by": 6, "target": 1})
    assert evs[i - 1] == {"type": "speech", "seat": 5} and evs[i + 1] == {"type": "speech", "seat": 7}
    check = replay(tmp_path, doc)
    assert not [i for i in check["issues"] if i["code"] == "muted_speech"]


def test_engine_accepts_a_muted_players_nomination_at_their_turn(tmp_path):
    check = replay(tmp_path, import_record("mafiaratings", _muted_record()))
    assert [i["code"] for i in check["issues"] if i["severity"] == "audit"] == []


def test_last_word_nomination_comes_first():
    """A player killed at night may nominate in the last word (MC profile)."""
    players = {"p2": {"shooting": [1]}, "p5": {"shooting": [1]}, "p8": {"shooting": [1]},
               "p1": {"death": {"round": 1, "type": "night"}, "nominating": [None, 8]},
               "p3": {"nominating": [None, 5]}}
    doc = import_record("mafiaratings", mr_record(**players))
    assert [ev["target"] for ev in kinds(doc, "nominate")] == [8, 5]


def test_missing_revote_is_reported_in_a_note_not_guessed():
    players = tie_record()
    for s in range(1, 11):
        players[f"p{s}"]["voting"] = [players[f"p{s}"]["voting"][0][:1]]  # first pass only
    doc = import_record("mafiaratings", mr_record(**players))
    notes = [ev["text"] for ev in kinds(doc, "note")]
    assert any("ended in a tie" in n for n in notes)
    assert kinds(doc, "raise_vote") == []


# ---------------------------------------------------------------- polemica

def pl_record(**fields) -> dict:
    roles = {7: 0, 2: 1, 9: 1, 8: 3}
    players = [{"position": s, "username": f"U{s}", "role": roles.get(s, 2), "fouls": [],
                "techs": []} for s in range(1, 11)]
    out = {"id": 9, "started": "2025-04-05T13:00:00", "players": players, "votes": [],
           "shots": [], "checks": [], "result": None}
    out.update(fields)
    return out


def test_polemica_live_record_stopped_mid_speeches():
    rec = pl_record(stage={"type": "speech", "day": 1, "player": 4},
                    votes=[{"day": 1, "num": 0, "voter": 2, "candidate": 5}])
    doc = import_record("polemica", rec)
    assert schema_issues(doc) == []
    assert [ev["seat"] for ev in kinds(doc, "speech")] == [1, 2, 3, 4]
    assert kinds(doc, "vote_announce", "result") == []
    assert kinds(doc, "nominate") == [{"type": "nominate", "by": 2, "target": 5}]


def test_polemica_disqualification_and_fouls_at_their_stage(tmp_path):
    rec = pl_record(stage={"type": "speech", "day": 1, "player": 8})
    rec["players"][5]["disqual"] = {"day": 1, "stage": {"type": "speech", "day": 1, "player": 3}}
    rec["players"][0]["fouls"] = [{"time": "2025-04-05T13:05:00",
                                   "stage": {"type": "speech", "day": 1, "player": 2}}]
    rec["players"][0]["techs"] = [{"time": "2025-04-05T13:06:00",
                                   "stage": {"type": "speech", "day": 1, "player": 4}}]
    doc = import_record("polemica", rec)
    evs = [ev for ev in doc["events"] if ev["type"] != "note"]
    i = evs.index({"type": "removal", "seat": 6, "reason": "disqual"})
    assert evs[i - 1] == {"type": "speech", "seat": 3}
    assert {"type": "foul", "seat": 1, "t": 300.0} == evs[evs.index({"type": "speech", "seat": 2}) + 1]
    assert {"type": "foul", "seat": 1, "kind": "technical", "t": 360.0} in evs
    assert [ev["seat"] for ev in kinds(doc, "speech")] == [1, 2, 3, 4, 5, 7, 8]
    exits = replay(tmp_path, doc)["exits"]
    assert [(e["seat"], e["round"], e["type"]) for e in exits] == [(6, 0, "kickOut")]


@pytest.mark.parametrize("zero,option", [("respeech", "to-talk"), ("liftOnly", "no-break"),
                                         ("none", "no-break"), (None, None)])
def test_polemica_zero_voting_maps_to_the_first_day_option(zero, option):
    rec = pl_record()
    if zero is not None:
        rec["zeroVoting"] = zero
    overrides = import_record("polemica", rec)["game"]["overrides"]
    assert overrides.get("first_day_voting") == option


def test_polemica_first_killed_guess_comes_after_the_checks():
    rec = load([p for p in POLEMICA if "334187" in p.name][0])
    doc = import_record("polemica", rec)
    evs = doc["events"]
    g = evs.index({"type": "guess", "seat": 4, "targets": [6, 8]})
    night = max(i for i in range(g) if evs[i]["type"] == "nightfall")
    # the shooting's seat calls (importers/shooting_calls.py) come between the shots
    assert [ev["type"] for ev in evs[night + 1:g + 2] if ev["type"] != "shooting_call"] == [
        "shot", "shot", "shot", "don_check", "sheriff_check", "guess", "morning"]


def test_polemica_muted_players_keep_their_nomination():
    """334187: seat 6's third foul comes in the day-5 morning; seat 6 opens day 5, so the
    speech is lost but the nomination of seat 7 stands (MC 4.4)."""
    doc = import_record("polemica", load([p for p in POLEMICA if "334187" in p.name][0]))
    evs = doc["events"]
    mornings = [i for i, ev in enumerate(evs) if ev["type"] == "morning"]
    day5 = evs[mornings[4]:mornings[5]]
    assert {"type": "speech", "seat": 6} not in day5 and {"type": "speech", "seat": 9} not in day5
    assert {"type": "nominate", "by": 6, "target": 7} in day5


def test_input_is_not_modified():
    rec = load([p for p in POLEMICA if "334187" in p.name][0])
    before = copy.deepcopy(rec)
    import_record("polemica", rec)
    assert rec == before
