"""Every clause the fouls cite opens to its rulebook paragraph (app.rule_text)."""
from __future__ import annotations

import pytest

from app.rule_text import clause_text, rulebook_dir
from engine.profiles import all_profiles
from review.fouls import FOULS

pytestmark = pytest.mark.skipif(rulebook_dir() is None, reason="the rulebooks (../shared/seeds) are not here")


def _profile(code: str):
    return next(p for p in all_profiles() if p.code == code)


def test_every_cited_clause_has_its_text_in_the_profiles_rulebook():
    missing = []
    for profile in all_profiles():
        for foul in FOULS:
            clause, _ = foul.cite(profile)
            if clause and not clause.startswith("rules-spec") and not clause_text(clause, profile):
                missing.append(f"{profile.code} {foul.type.value}: {clause}")
    assert not missing, missing


def test_the_classic_clubs_conduct_list_and_named_paragraphs():
    cc = _profile("CC")
    # R12 is item 12 of 002's conduct list, not its section "1." of the game's description
    assert clause_text("CC 002 R12", cc).startswith("12. While voting, players should keep their hands")
    assert clause_text("CC R17", cc).startswith("17. Players")
    assert clause_text("CC 002 R40", cc) is None
    assert 'announces, "Night,"' in clause_text("CC 002 ¶Night", cc)
    assert "receive an equal" in clause_text("CC 002 ¶Tie", cc)


def test_ranges_and_another_books_wording_open_the_first_paragraph():
    assert clause_text("SM 003 6.5-6.6", _profile("SM")).startswith("6.5")
    mc = _profile("MC")
    assert clause_text("MC 000 2.4.12 (001 wording)", mc) == clause_text("MC 001 2.4.12", mc)
    assert clause_text("MC 000 2.4.12", mc) != clause_text("MC 001 2.4.12", mc)
