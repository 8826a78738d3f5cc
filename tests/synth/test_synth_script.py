"""The acting scripts the director hands the renderer agree with the truth."""
from __future__ import annotations

import pytest

from sample_videos.director.script import LEAD, TRANSITION, scripts_json


def test_scripts_validate_in_the_acting_format(sample_game):
    script_mod = pytest.importorskip("sample_videos.acting.script")
    doc = scripts_json(sample_game.plan)
    scripts = script_mod.scripts_from_json(doc)  # raises on any unknown action or parameter
    assert sorted(scripts) == list(range(1, 11))
    for sc in scripts.values():
        for ch in script_mod.Channel:
            times = [e.t for e in sc.channel(ch)]
            assert times == sorted(times) and len(set(times)) == len(times)


def test_every_fist_has_a_vote_event_that_lands_on_time(sample_game):
    doc = scripts_json(sample_game.plan)
    for v in sample_game.truth["votes"]:
        events = doc["seats"][str(v["seat"])]
        votes = [e for e in events if e["action"] == "vote" and abs(e["t"] + LEAD["vote"] - v["t_place"]) < 0.02]
        assert votes, v
        assert votes[0]["form"] == v["form"]
        # The next body event after the fist starts the lift at t_lift.
        body = [e for e in events if e["action"] not in ("mask_on", "mask_off", "mask_lift", "speak", "look", "head_turn")]
        after = [e for e in body if e["t"] > votes[0]["t"]]
        assert after and abs(after[0]["t"] - v["t_lift"]) < 0.02


def test_masks_and_shots_in_the_script(sample_game):
    doc = scripts_json(sample_game.plan)
    truth = sample_game.truth
    for s in truth["seat_states"]:
        if s["layer"] == "mask" and s["state"] == "mask_on":
            ev = [e for e in doc["seats"][str(s["seat"])] if e["action"] == "mask_on"]
            assert any(abs(e["t"] + TRANSITION - s["t0"]) < 0.02 for e in ev)
    shots = [e for e in sample_game.protocol["events"] if e["type"] == "shot"]
    assert shots
    for shot in shots:
        ev = [e for e in doc["seats"][str(shot["by"])] if e["action"] == "shot"]
        # The fingers curl at the shot's time: curl_at after the event start.
        assert any(abs(e["t"] + e["curl_at"] - shot["t"]) < 0.02 for e in ev)
