"""scripts/eval_window_shift.py: the seat windows read at moved boxes on a
rendered game with its truth (the committed sample, real decoding)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "sample_videos" / "demo"


def test_a_game_the_model_was_trained_on_is_refused(script, tmp_path):
    shift = script("eval_window_shift")
    game = tmp_path / "g101"
    game.mkdir()
    (game / "truth.json").write_text(json.dumps({"seed": 101}))
    with pytest.raises(SystemExit, match="seed 101 was trained on"):
        shift.main([str(game)])


def test_moved_boxes_are_read_and_scored_per_window_and_share(script, tmp_path):
    shift = script("eval_window_shift")
    game = tmp_path / "sample"
    shutil.copytree(SAMPLE, game)
    out = tmp_path / "shift.json"
    assert shift.main([str(game), "--shares", "0.1", "--step", "40", "--rare", "0", "--json", str(out)]) == 0
    report = json.loads(out.read_text())["report"]["appearance.json"]
    for kind in ("head", "zone", "body"):
        exact, moved = report[kind]["0.0"], report[kind]["0.1"]
        assert moved["readings"] == 4 * exact["readings"] > 0      # four directions per exact reading
        assert sum(b for _, b in exact["recall"].values()) == exact["readings"]
    assert report["head"]["0.0"]["accuracy"] >= 0.9
