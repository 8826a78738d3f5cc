"""A profile is one declared object: found from its file, cited from its own rulebook.

Adding a profile is adding engine/profiles/<name>.json (docs/extending.md);
these tests add one in a temporary folder and follow it through the replay,
the timeline, the CLI's choices and the review's citations.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import engine.profiles as profiles
from engine.generate import random_game
from engine.profiles import PROFILE_DIR, all_profiles, get_profile, profile_for_game, profile_names
from engine.protocol import Protocol
from engine.replay import replay
from engine.timeline import Kind, build_timeline
from review.fouls import FOUL_OF, IncidentType

ENGINE = Path(profiles.__file__).parent


def cited_keys() -> set[str]:
    """Every clause key the replay and the audit look up in the profile."""
    keys: set[str] = set()
    for name in ("replay.py", "audit.py"):
        text = (ENGINE / name).read_text(encoding="utf-8")
        for call in re.findall(r"(?:step\.c|prof\.clause)\(([^)]*)\)", text):
            keys.update(re.findall(r'"([a-z_0-9]+)"', call))
    return keys


def test_the_engine_cites_no_rulebook_by_itself():
    for name in ("replay.py", "audit.py"):
        text = (ENGINE / name).read_text(encoding="utf-8")
        assert not re.search(r'"(MC|CC|SM|RU) ', text), f"engine/{name} names a rulebook clause itself"
    keys = cited_keys()
    assert {"tie_procedure", "judge_error", "candidate_list_reads"} <= keys
    # the default profile's rulebook has a clause for every rule the engine cites,
    # except the two it has no such rule for (no OTV; a double shot is no foul)
    assert {k for k in keys if not get_profile().clause(k)} == {"otv", "double_shot_foul"}


@pytest.mark.parametrize("profile", all_profiles(), ids=lambda p: p.name)
def test_every_clause_is_in_the_profiles_own_rulebook(profile):
    assert profile.code and profile.sources
    assert all(c.startswith(profile.code + " ") for c in profile.clauses.values())


def test_profiles_are_the_files_in_their_order():
    files = {p.stem for p in PROFILE_DIR.glob("*.json")}
    assert set(profile_names()) == files
    assert profile_names()[0] == profiles.DEFAULT_PROFILE
    assert profiles.PROFILE_NAMES == profile_names()


def test_profile_for_game_reads_name_overrides_and_rules_code():
    assert profile_for_game({}).name == "mafclub-2023"
    p = profile_for_game({"profile": "sport-mafia", "overrides": {"third_foul": "no"}})
    assert (p.name, p.third_foul) == ("sport-mafia", "no")
    assert profile_for_game({"rules_code": "0000000000000"}).opener_rotation == "next"


@pytest.fixture
def new_profile(tmp_path, monkeypatch):
    """A fifth profile, "test-club" (code TC), added as one file beside copies of the four."""
    for path in PROFILE_DIR.glob("*.json"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    doc = json.loads((PROFILE_DIR / "sport-mafia.json").read_text(encoding="utf-8"))
    doc.update(name="test-club", code="TC", order=5, title="A test club", sources=["999"])
    doc["options"]["vote_window_opens"] = "call"
    doc["clauses"] = {"candidate_list_reads": "TC 7", "tie_procedure": "TC 8"}
    (tmp_path / "test-club.json").write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setattr(profiles, "PROFILE_DIR", tmp_path)
    profiles._documents.cache_clear()
    yield get_profile("test-club")
    profiles._documents.cache_clear()


def test_a_new_profile_is_one_file(new_profile):
    assert profile_names()[-1] == "test-club" and new_profile.code == "TC"
    doc = random_game(3, "test-club")
    doc["events"].append({"type": "raise_vote", "for": [1]})  # a raise with no repeated tie
    proto = Protocol.from_dict(doc)
    rep = replay(proto)
    assert rep.profile.name == "test-club"
    wrong = [i for i in rep.issues if i.code == "raise_out_of_place"]
    assert wrong and wrong[0].clause == "TC 8"
    # nothing of another rulebook is cited under it
    assert all(not i.clause or i.clause.startswith(("TC ", "rules-spec")) for i in rep.issues)
    # its options drive the timeline: the window opens at the call itself
    call = next(iv for iv in build_timeline(proto, rep) if iv.kind is Kind.VOTE_CALL)
    assert call.details["window_open"] == call.t0
    # a foul it has no clause for cites the spec row and says so
    clause, sanction = FOUL_OF[IncidentType.PEEK].cite(new_profile)
    assert clause == "rules-spec §3 V4 (TC: no clause)" and "discretion" in sanction


def test_a_profile_file_must_carry_its_name(tmp_path, monkeypatch):
    (tmp_path / "x.json").write_text(json.dumps({"name": "y", "code": "Y", "options": {}}), encoding="utf-8")
    monkeypatch.setattr(profiles, "PROFILE_DIR", tmp_path)
    profiles._documents.cache_clear()
    try:
        with pytest.raises(profiles.ProfileError, match="named after it"):
            profile_names()
    finally:
        profiles._documents.cache_clear()
