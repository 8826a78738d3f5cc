"""Venue models beside the games (review.venues): choice, corrupt versions, rollback,
and what `mafvar analyze --venue` records."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_review_pipeline import blank_video, workspace

from mafvar.cli import main
from review import venues
from vision.appearance import MODEL_PATH, committed_models


def _version(folder: Path, name: str = "hall-a") -> int:
    return venues.add_version(folder, name, committed_models(), {"games": ["g"], "examples": {"total": 0}},
                              {"trained_on": {"venue": name}})


def test_no_venue_or_nothing_learned_runs_the_committed_model(tmp_path):
    assert venues.choose(tmp_path, None).version == 0
    c = venues.choose(tmp_path, "hall-a")
    assert (c.venue, c.version, c.fallback, c.key) == ("hall-a", 0, None, "committed")
    assert c.to_json()["model"] == "committed" and c.sha256 == venues.sha256_file(MODEL_PATH)


def test_a_learned_version_is_chosen_and_keyed_by_its_hash(tmp_path):
    assert _version(tmp_path) == 1
    c = venues.choose(tmp_path, "hall-a")
    assert c.version == 1 and c.fallback is None and c.key.startswith("hall-a/v1/")
    assert c.to_json()["model_version"] == 1


@pytest.mark.parametrize("damage", ["edit", "truncate", "delete", "record"])
def test_a_corrupt_venue_model_falls_back_to_the_committed_one_and_says_why(tmp_path, damage):
    _version(tmp_path)
    model = tmp_path / "venues" / "hall-a" / "v1" / "model.json"
    if damage == "edit":
        model.write_text(model.read_text().replace("0.", "9.", 5))
    elif damage == "truncate":
        model.write_bytes(model.read_bytes()[:1000])
    elif damage == "delete":
        model.unlink()
    else:
        (tmp_path / "venues" / "hall-a" / "venue.json").write_text("{not json")
    c = venues.choose(tmp_path, "hall-a")
    assert c.version == 0 and c.models == committed_models()
    assert c.fallback and "committed model was used" in c.fallback
    assert ("venue.json" if damage == "record" else "model.json") in c.fallback


def test_rollback_refuses_a_broken_target_and_deletes_nothing(tmp_path):
    _version(tmp_path)
    _version(tmp_path)
    (tmp_path / "venues" / "hall-a" / "v1" / "model.json").write_text("{}")
    with pytest.raises(venues.VenueError, match="corrupt"):
        venues.rollback(tmp_path, "hall-a")
    assert venues.read_venue(tmp_path, "hall-a").current == 2
    assert venues.rollback(tmp_path, "hall-a", 0) == (2, 0)
    assert venues.choose(tmp_path, "hall-a").version == 0
    with pytest.raises(venues.VenueError, match="already"):
        venues.rollback(tmp_path, "hall-a", 0)
    assert sorted(p.name for p in (tmp_path / "venues" / "hall-a").iterdir()) == ["v1", "v2", "venue.json"]


@pytest.mark.parametrize("name", ["", "../x", "a/b", ".hidden", "x" * 65, "bad name"])
def test_bad_venue_names_are_refused(tmp_path, name):
    with pytest.raises(venues.VenueError, match="venue name"):
        venues.choose(tmp_path, name)


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("games") / "synth"
    assert main(["synth", "--seed", "3", "--out", str(out), "--no-video"]) == 0
    return out


@pytest.mark.slow
def test_analyze_with_a_corrupt_venue_model_says_so_and_runs_the_committed_one(game, tmp_path, capsys):
    folder = tmp_path / "hall"
    folder.mkdir()
    ws = workspace(game, folder, "g1")
    blank_video(ws / "video.mp4", 70)
    _version(folder)
    model = folder / "venues" / "hall-a" / "v1" / "model.json"
    model.write_bytes(model.read_bytes()[:-50])
    rc = main(["analyze", str(ws), "--venue", "hall-a", "--phase", "r0.vote", "--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert "error:" in out.err and "model.json" in out.err and "committed model was used" in out.err
    stats = json.loads(out.out)
    assert stats["appearance_model"]["model_version"] == 0 and stats["appearance_model"]["venue"] == "hall-a"
    assert "corrupt" in stats["appearance_model"]["fallback"]
    recorded = json.loads((ws / "analysis" / "appearance_model.json").read_text())
    assert recorded["format"] == "mafvar-appearance-choice" and recorded["fallback"] == \
        stats["appearance_model"]["fallback"]
    incidents = json.loads((ws / "analysis" / "incidents.json").read_text())
    assert incidents["game"]["appearance_model"]["fallback"]
    # repaired (rolled back to nothing learned): the same store serves, nothing re-extracted
    venues.rollback(folder, "hall-a", 0)
    rc = main(["analyze", str(ws), "--venue", "hall-a", "--phase", "r0.vote", "--json"])
    out = capsys.readouterr()
    assert rc == 0 and json.loads(out.out)["frames_decoded"] == 0
