"""Every shared real record imports into a schema-valid protocol with events in a legal order."""
from __future__ import annotations

import pytest

from engine.importers import import_file, import_record
from engine.protocol import Protocol, schema_issues
from importers_support import MAFIARATINGS, POLEMICA, load, order_problems

ALL = [("mafiaratings", p) for p in MAFIARATINGS] + [("polemica", p) for p in POLEMICA]
IDS = [p.stem for _, p in ALL]


def test_all_six_shared_records_are_present():
    assert len(MAFIARATINGS) == 3 and len(POLEMICA) == 3


@pytest.mark.parametrize("kind,path", ALL, ids=IDS)
def test_record_imports_into_a_valid_protocol(kind, path):
    doc = import_file(kind, path)
    assert schema_issues(doc) == []
    proto = Protocol.from_dict(doc)
    assert [s.seat for s in proto.seats] == list(range(1, 11))
    assert doc["game"]["source"]["platform"] == kind
    assert doc["game"]["profile"] == "mafclub-2023"
    assert order_problems(doc) == []


@pytest.mark.parametrize("kind,path", ALL, ids=IDS)
def test_import_file_and_import_record_agree(kind, path):
    assert import_file(kind, path) == import_record(kind, load(path))


@pytest.mark.parametrize("path", MAFIARATINGS, ids=[p.stem for p in MAFIARATINGS])
def test_mafiaratings_seats_carry_names_and_roles(path):
    record = load(path)
    doc = import_file("mafiaratings", path)
    for i, player in enumerate(record["players"]):
        seat = doc["seats"][i]
        assert seat == {"seat": i + 1, "name": player["name"], "role": player.get("role", "civ")}
    roles = sorted(s["role"] for s in doc["seats"])
    assert roles.count("maf") == 2 and roles.count("don") == 1 and roles.count("sheriff") == 1


@pytest.mark.parametrize("path", MAFIARATINGS, ids=[p.stem for p in MAFIARATINGS])
def test_mafiaratings_ballots_are_copied_not_invented(path):
    """Every vote call lists exactly the record's active ballots; no default votes are added."""
    record = load(path)
    doc = import_file("mafiaratings", path)
    recorded = 0
    for player in record["players"]:
        for entry in player.get("voting", []):
            if isinstance(entry, int):
                recorded += 1
            elif isinstance(entry, list):
                recorded += sum(1 for v in entry if isinstance(v, int) and not isinstance(v, bool))
    listed = sum(len(ev["voters"]) for ev in doc["events"] if ev["type"] == "vote")
    single_candidate_votes = 0
    if path.stem.endswith("4870"):
        # round 1 has one candidate (seat 9): MC 2.4.4 eliminates without a vote, so
        # the 7 recorded ballots on seat 9 are not laid out as a vote call
        single_candidate_votes = 7
    assert listed == recorded - single_candidate_votes


def test_mafiaratings_rules_code_becomes_option_overrides():
    doc = import_file("mafiaratings", MAFIARATINGS[0])
    overrides = doc["game"]["overrides"]
    # code 0000000000000: first value of every option (formats/README.md table)
    assert overrides["opener_rotation"] == "next"          # rotation: first
    assert overrides["first_day_voting"] == "standard"
    assert overrides["kill_all"] == "no"
    assert overrides["third_foul"] == "lose-speech"
    assert overrides["technical_fouls"] is False
    assert doc["game"]["rules_code"] == "0000000000000"
    assert doc["game"]["date"] == "2020-01-25"              # startTime 1579985050 (UTC)
    assert doc["game"]["source"]["tournament_id"] == 32
    assert doc["game"]["source"]["moderator_id"] == 1139


def _marked(doc):
    return [ev for ev in doc["events"] if ev.get("taken_from_record")]


def test_taken_from_record_only_where_the_raise_ballots_are_missing():
    """features 'gsdutclhvnwr' has no 'k': the two round-0 "all leave?" votes lack ballots."""
    by_game = {p.stem.rsplit("_", 1)[1]: import_file("mafiaratings", p) for p in MAFIARATINGS}
    # 4842: seats 1 and 2 tie 5-5 twice on day 0, nobody leaves in round 0 -> failed raise
    assert _marked(by_game["4842"]) == [{"type": "raise_vote", "passed": False,
                                         "taken_from_record": True}]
    # 4870: seats 1 and 2 tie 5-5 twice; both leave by day in round 0 -> passed raise
    assert _marked(by_game["4870"]) == [{"type": "raise_vote", "passed": True,
                                         "taken_from_record": True}]
    # 4872: no repeated tie (the revote settles it) -> nothing taken from the record
    assert _marked(by_game["4872"]) == []


@pytest.mark.parametrize("path", POLEMICA, ids=[p.stem for p in POLEMICA])
def test_polemica_takes_nothing_from_the_record(path):
    """polemica stores the lift ballots, so no outcome needs copying."""
    assert _marked(import_file("polemica", path)) == []


def test_polemica_roles_and_meta():
    doc = import_file("polemica", [p for p in POLEMICA if "334187" in p.name][0])
    roles = {s["seat"]: s["role"] for s in doc["seats"]}
    assert roles[7] == "don" and roles[8] == "sheriff" and roles[2] == roles[9] == "maf"
    assert doc["game"]["judge"] == "Darky" and doc["game"]["number"] == 3
    assert doc["game"]["overrides"] == {"opener_rotation": "next", "first_day_voting": "no-break"}


def test_polemica_times_never_run_backwards():
    for path in POLEMICA:
        times = [ev["t"] for ev in import_file("polemica", path)["events"] if "t" in ev]
        assert times == sorted(times), path.name
    doc = import_file("polemica", [p for p in POLEMICA if "334187" in p.name][0])
    # night 1 starts at timing[1] 14:29:45.277829; the clock starts at `started` 13:00:00
    nightfalls = [ev for ev in doc["events"] if ev["type"] == "nightfall"]
    assert nightfalls[1]["t"] == pytest.approx(5385.278, abs=1e-3)


def test_polemica_live_records_stop_where_the_record_stops():
    live = {p.stem.rsplit("_", 1)[1]: import_file("polemica", p) for p in POLEMICA}
    for game_id in ("328635", "333915"):
        events = live[game_id]["events"]
        assert not any(ev["type"] == "result" for ev in events)
        kinds = [ev["type"] for ev in events if ev["type"] != "note"]
        # both stop in night 2 (stage donCheck / shooting of day 2): the last
        # nightfall has no morning after it
        assert kinds.count("nightfall") == 3 and kinds.count("morning") == 2
        assert kinds[-1] in ("nightfall", "shot")
    # 328635 stops at the Don's check of night 2: its shooting is over, so its seat calls
    # (importers/shooting_calls.py: every seat in play, ascending) and two shots are in,
    # each shot after its target's call
    events = [ev for ev in live["328635"]["events"] if ev["type"] != "note"]
    night = max(i for i, ev in enumerate(events) if ev["type"] == "nightfall")
    tail = events[night + 1:]
    assert [ev["seat"] for ev in tail if ev["type"] == "shooting_call"] == sorted(
        ev["seat"] for ev in tail if ev["type"] == "shooting_call")
    assert tail[-3:] == [{"type": "shooting_call", "seat": 10},
                         {"type": "shot", "by": 2, "target": 10}, {"type": "shot", "by": 4, "target": 10}]
    # 333915 stops during night 2's shooting: how far its calls went is not known, none is made up
    events = [ev for ev in live["333915"]["events"] if ev["type"] != "note"]
    night = max(i for i, ev in enumerate(events) if ev["type"] == "nightfall")
    assert not [ev for ev in events[night + 1:] if ev["type"] == "shooting_call"]


def test_polemica_num0_rows_are_nominations_and_num_k_rows_are_passes():
    """The evidence behind reading `num: 0` as nominations (docs/formats.md)."""
    record = load([p for p in POLEMICA if "334187" in p.name][0])
    by_day: dict[int, dict] = {}
    for row in record["votes"]:
        by_day.setdefault(row["day"], {}).setdefault(row.get("num"), []).append(row)
    alive_per_day = {1: 10, 2: 9, 3: 8, 4: 6, 5: 5, 6: 3}  # from the shots and votes, by hand
    for day, passes in by_day.items():
        noms = passes[0]
        # one row per nominator, each naming a different seat, fewer rows than players
        assert len({r["voter"] for r in noms}) == len(noms) == len({r["candidate"] for r in noms})
        assert len(noms) < alive_per_day[day]
        for num, rows in passes.items():
            if num is not None and num >= 1:
                # every living player votes once in every pass
                assert len(rows) == len({r["voter"] for r in rows}) == alive_per_day[day]
                # and only for that day's nominees
                assert {r["candidate"] for r in rows} <= {r["candidate"] for r in noms}


def test_mafiaratings_bonus_and_comment_follow_the_result():
    doc = import_file("mafiaratings", [p for p in MAFIARATINGS if "4842" in p.name][0])
    tail = doc["events"][-3:]
    assert tail[0] == {"type": "result", "winner": "civ"}
    assert tail[1] == {"type": "bonus", "seat": 5, "points": 0.2, "reason": "other"}
    assert tail[2]["type"] == "note" and "seat 5" in tail[2]["text"]


def test_the_order_checker_catches_misplaced_events():
    doc = import_file("mafiaratings", MAFIARATINGS[0])
    events = doc["events"]
    shot = next(i for i, ev in enumerate(events) if ev["type"] == "shot")
    speech = next(i for i, ev in enumerate(events) if ev["type"] == "speech")
    swapped = dict(doc, events=[events[shot]] + events[:shot] + events[shot + 1:])
    assert any("outside a shooting night" in p for p in order_problems(swapped))
    moved = list(events)
    moved.insert(speech + 3, moved.pop(speech))  # seat 1 now speaks after seats 2 and 3
    assert any("clockwise" in p for p in order_problems(dict(doc, events=moved)))
    late = events + [{"type": "shot", "by": 2, "target": 3}]
    assert any("after the result" in p for p in order_problems(dict(doc, events=late)))


@pytest.mark.parametrize("kind,path", ALL, ids=IDS)
def test_the_deal_night_carries_the_profiles_wakes_no_platform_records(kind, path):
    # the recording shows the mafia meeting and the Don's and the Sheriff's wakes on the
    # deal night: without them the alignment put night 1 there (review.align.CHECK_MARK)
    doc = import_file(kind, path)
    kinds = [e["type"] for e in doc["events"]]
    first_morning = kinds.index("morning")
    assert kinds[:first_morning] == ["nightfall", "mafia_wake", "don_wake", "sheriff_wake"]
    assert not any("t" in e for e in doc["events"][1:first_morning])


def test_the_deal_night_wakes_follow_the_profile():
    from engine.importers.deal_night import deal_night_wakes
    from engine.profiles import get_profile
    wakes = {name: [e["type"] for e in deal_night_wakes(get_profile(name).options())]
             for name in ("mafclub-2023", "classic-club", "sport-mafia", "ru-club")}
    assert wakes["mafclub-2023"] == wakes["classic-club"] == ["mafia_wake", "don_wake", "sheriff_wake"]
    assert wakes["sport-mafia"] == ["mafia_wake", "sheriff_wake"]   # the Don is known at the meeting
    assert wakes["ru-club"] == ["don_wake"]


@pytest.mark.parametrize("kind,path", ALL, ids=IDS)
def test_every_shooting_carries_its_seat_calls_no_platform_records(kind, path):
    # the judge calls every seat in play, ascending, and each shot lands at its target's
    # call: without the calls no night foul could be judged (review.record_fit)
    doc = import_file(kind, path)
    events = doc["events"]
    nights = [i for i, e in enumerate(events) if e["type"] == "nightfall"][1:]
    assert nights
    for start in nights:
        end = next((i for i in range(start + 1, len(events)) if events[i]["type"] in ("morning", "nightfall")),
                   len(events))
        night = events[start + 1:end]
        calls = [e["seat"] for e in night if e["type"] == "shooting_call"]
        if not calls:   # a live record stopped during this shooting: no call is made up
            assert end == len(events)
            continue
        assert calls == sorted(set(calls)) and not any("t" in e for e in night if e["type"] == "shooting_call")
        for k, e in enumerate(night):
            if e["type"] == "shot" and e["target"] in calls:
                before = [x for x in night[:k] if x["type"] == "shooting_call"]
                assert before[-1]["seat"] == e["target"]


def test_the_shooting_calls_go_to_the_seats_in_play_and_a_shot_at_an_empty_chair_comes_last():
    from engine.importers.shooting_calls import shooting_events
    evs = shooting_events({7, 2, 4, 10}, [(4, 7), (2, 3), (10, 7)])
    assert [(e["type"], e.get("seat", e.get("target"))) for e in evs] == [
        ("shooting_call", 2), ("shooting_call", 4), ("shooting_call", 7), ("shot", 7), ("shot", 7),
        ("shooting_call", 10), ("shot", 3)]
    assert [e["by"] for e in evs if e["type"] == "shot"] == [4, 10, 2]
