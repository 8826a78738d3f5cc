"""The app and `mafvar analyze` give the same verdict on every calibration the tests use.

For each calibration: a game workspace with the fixture's real 1280x720
video; the command line's verdict is what `mafvar analyze` says before any
work (its refusal, or its warnings), the app's is what the Calibration page
and the Games page show. Refused by one means refused by the other, with the
same words; every warning the command line prints is on the page.
"""
from __future__ import annotations

import copy
import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from app_testlib import ROOT, app_on, fixtures, no_exceptions, texts  # noqa: E402

from review.pipeline import AnalysisError, load_game  # noqa: E402

CORPUS = ROOT / "tests" / "fuzz" / "corpus"
SAMPLE = ROOT / "sample_videos" / "demo" / "calibration.json"


def _variant(change) -> dict:
    doc = copy.deepcopy(fixtures.calibration())
    change(doc["cameras"]["cam1"]["seats"], doc["cameras"]["cam1"])
    return doc


def _set(seat, key, value):
    def change(seats, cam):
        seats[str(seat)][key] = value
    return change


def calibrations() -> dict[str, str]:
    """name -> calibration.json text: the fixtures', the committed sample's, the fuzz
    corpus's, a rendered game's, and one of each kind of problem."""
    out = {"fixture": json.dumps(fixtures.calibration())}
    if SAMPLE.is_file():
        out["sample"] = SAMPLE.read_text()
    for path in sorted(CORPUS.glob("calibration_*.json")):
        out[f"corpus:{path.stem}"] = path.read_text()

    def drop(seats, cam):
        del seats["7"]

    def small(seats, cam):
        seats["5"]["body"] = [1030, 30, 1250, 250]           # 220 px tall: a hand of 44 px

    def overlap(seats, cam):
        seats["3"]["body"] = [440, 30, 700, 330]             # over seat 2 and seat 4, not on them

    def same(seats, cam):
        seats["3"]["body"] = list(seats["2"]["body"])

    def other_frames(seats, cam):
        cam["width"], cam["height"] = 640, 480

    for name, change in (("missing seat", drop), ("small seat", small), ("overlap", overlap),
                         ("two seats on one player", same), ("another camera's frames", other_frames),
                         ("off the frame", _set(2, "body", [1200, 30, 1420, 330]))):
        out[name] = json.dumps(_variant(change))
    out["not JSON"] = "{not json"
    return out


CALIBRATIONS = calibrations()


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return fixtures.make_game(tmp_path_factory.mktemp("verdict"), "game1", with_analysis=False)


def cli_verdict(game: Path) -> tuple[bool, list[str]]:
    """What `mafvar analyze` says about the calibration before it starts: (usable, lines)."""
    try:
        loaded = load_game(game)
    except AnalysisError as exc:
        text = str(exc)
        assert "the calibration is not usable: " in text or "calibration.json" in text, text
        lines = text.split("the calibration is not usable: ", 1)[-1].split("; ")
        return False, [line.split(": ", 1)[-1] if line.startswith(str(game)) else line for line in lines]
    return True, [w.split("calibration.json: ", 1)[-1] for w in loaded.warnings]


@pytest.mark.parametrize("name", list(CALIBRATIONS))
def test_the_app_and_the_command_line_agree(name, template, tmp_path):
    game = tmp_path / "game1"
    shutil.copytree(template, game)
    (game / "calibration.json").write_text(CALIBRATIONS[name])
    usable, lines = cli_verdict(game)

    at = app_on("calibration", game)
    no_exceptions(at)
    page = texts(at) + "\n" + "\n".join(str(getattr(e, "label", "")) for e in at.expander)
    errors = "\n".join(e.value for e in at.error)
    successes = "\n".join(s.value for s in at.success)
    games = app_on("games", game)
    no_exceptions(games)
    games_errors = "\n".join(e.value for e in games.error)
    if usable:
        assert "calibration.json: usable" in successes, (name, page)
        assert not errors and "refused" not in games_errors, (name, errors, games_errors)
        for line in lines:           # every warning the command line prints, in the same words
            assert line in page, (name, line)
        assert (len(lines) == 0) == ("warning(s)" not in page), name
    else:
        assert "refused" in errors and not successes, (name, page)
        assert "The analysis is refused" in games_errors, (name, games_errors)
        for line in lines:
            assert line.strip() in errors, (name, line, errors)
