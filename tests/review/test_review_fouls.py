"""Each foul is one declared entry (review.fouls) and every table is derived from it."""
from __future__ import annotations

import inspect
import re
from pathlib import Path

import review.checks as checks
import review.recount as recount_module
from engine.profiles import all_profiles, get_profile
from review.fouls import (CHECK_NAMES, FOUL_OF, FOULS, RECOUNT_FLAGS, SUBSUMED_BY, VIOLATION_OF, IncidentType)
from review.incidents import VIOLATION_OF as INCIDENTS_VIOLATION_OF


def test_one_entry_per_incident_type():
    assert [f.type for f in FOULS] == list(IncidentType)
    assert INCIDENTS_VIOLATION_OF is VIOLATION_OF
    codes = [f.violation for f in FOULS if f.violation]
    assert len(codes) == len(set(codes))


def test_every_named_check_exists_and_every_check_is_named():
    for name in CHECK_NAMES:
        fn = getattr(checks, name)
        assert list(inspect.signature(fn).parameters) == ["ctx"]
    defined = {n for n, f in vars(checks).items() if inspect.isfunction(f) and f.__module__ == checks.__name__
               and (n.startswith("check_") or n.endswith("_incidents"))}
    assert defined == set(CHECK_NAMES)
    assert checks.all_checks()[0] is checks.check_masking


def test_the_recount_flags_are_declared_fouls():
    text = Path(recount_module.__file__).read_text(encoding="utf-8")
    flagged = set(re.findall(r"flags\.append\(T\.([A-Z_]+)\.value\)", text))
    assert {IncidentType[n].value for n in flagged} == set(RECOUNT_FLAGS)
    assert all(FOUL_OF[IncidentType(f)].checks == ("vote_incidents",) for f in RECOUNT_FLAGS)


def test_citations_follow_the_profile_code():
    mc = get_profile()
    assert FOUL_OF[IncidentType.MASK_LATE].cite(mc) == ("MC 000 4.3.10", "foul")
    # a judge's miscount cites the rule an appeal is ruled on, where the rulebook has one
    assert FOUL_OF[IncidentType.MISCOUNT].cite(mc)[0] == "MC 001 4.20.2"
    assert FOUL_OF[IncidentType.PROTOCOL_AUDIT].cite(mc) == ("", "")
    ru = next(p for p in all_profiles() if p.code == "RU")
    assert FOUL_OF[IncidentType.MISCOUNT].cite(ru) == ("", "")
    for profile in all_profiles():
        for foul in FOULS:
            clause, sanction = foul.cite(profile)
            if foul.violation:
                assert clause.startswith((profile.code + " ", "rules-spec")) and sanction


def test_subsumption_and_evidence_are_declared_consistently():
    assert SUBSUMED_BY[IncidentType.NIGHT_POSE][0] is IncidentType.MASK_LATE
    assert IncidentType.PEEK in SUBSUMED_BY[IncidentType.MASK_TOUCH]
    for foul in FOULS:
        assert foul.type not in foul.subsumed_by
        if foul.violation:
            assert foul.window and foul.evidence, foul.type
