"""The queue's "Teach the model" questions and the Games page's venue setting (AppTest runs on
the fixture game, with window features stored as an analysis stores them)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from app_testlib import app_on, copy_game, fixtures, no_exceptions, texts  # noqa: E402

from review import venues  # noqa: E402
from review.store import ReviewStore  # noqa: E402
from vision.appearance import committed_models  # noqa: E402
from vision.store import ObservationStore  # noqa: E402


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return fixtures.make_game(tmp_path_factory.mktemp("tpl"), "game1")


@pytest.fixture()
def game(template, tmp_path) -> Path:
    g = copy_game(template, tmp_path)
    # night 0 to 5 s, a vote call 6.2-7.4 s (the fixture's recount)
    (g / "analysis" / "alignment.json").write_text(json.dumps({"intervals": [
        {"kind": "night", "round": 0, "t0": 0.0, "t1": 5.0, "in_game": list(range(1, 11))},
        {"kind": "vote_call", "round": 0, "t0": 6.2, "t1": 7.4, "in_game": list(range(1, 11)),
         "details": {"window_close": 7.4}}]}))
    rows = {(3, 2.0): {"app_head_mask_on": 0.55, "far_head": 2.0},     # unsure: asked
            (4, 2.0): {"app_head_mask_on": 0.99, "far_head": 2.0},     # sure: not asked
            (6, 7.0): {"app_zone_vote": 0.48, "far_zone": 2.0}}        # unsure fist: asked
    with ObservationStore(g / "analysis" / "observations.sqlite") as db:
        for (seat, t), f in rows.items():
            db.db.execute("INSERT INTO landmarks VALUES ('cam1', ?, ?, 'features', ?, NULL)",
                          (seat, t, json.dumps({"crop_box": [0, 0, 1, 1], "features": f})))
        db.db.commit()
    return g


def teach_buttons(at) -> list[str]:
    return [b.key for b in at.button if b.key and b.key.startswith("teach_")]


def test_the_queue_asks_the_unsure_frames_and_stores_a_judges_answer(game):
    at = app_on("queue", game, name="Boris", role="side_judge")
    no_exceptions(at)
    assert "Teach the model" in texts(at)
    keys = teach_buttons(at)
    assert {k.split("_")[2] for k in keys} == {"3", "6"}                # seat 4 was sure
    assert "Seat 3 at 0:02.0" in texts(at) and "mask on or off?" in texts(at)
    assert not (game / "review.db").exists()                             # asking writes nothing
    at.button(key="teach_mask_3_2.0_mask_on").click().run()
    no_exceptions(at)
    with ReviewStore.open(game / "review.db") as s:
        answers = s.current_frame_answers()
    assert [(a.t, a.seat, a.question.value, a.answer.value, a.reviewer) for a in answers] == [
        (2.0, 3, "mask", "mask_on", "Boris")]
    at.run()
    assert {k.split("_")[2] for k in teach_buttons(at)} == {"6"}        # answered: not asked again


def test_an_organiser_may_not_answer(game):
    at = app_on("queue", game, name="Olga", role="organiser")
    at.button(key="teach_fist_6_7.0_fist").click().run()
    no_exceptions(at)
    assert any("Organisers do not answer" in e.value for e in at.error)
    assert not (game / "review.db").exists()


def test_the_games_page_offers_the_venues_beside_the_game(game):
    venues.add_version(game.parent, "hall-a", committed_models(), {"games": [], "examples": {}}, {})
    at = app_on("games", game)
    no_exceptions(at)
    box = at.selectbox(key="venue_pick")
    assert box.options == ["(committed model)", "hall-a", "(new venue…)"]
    box.set_value("hall-a").run()
    assert "model v1 in use" in texts(at)
    at.selectbox(key="venue_pick").set_value("(new venue…)").run()
    at.text_input(key="venue_new").input("../bad").run()
    assert any("venue name" in e.value for e in at.error)
