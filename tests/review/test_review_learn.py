"""`mafvar learn` on the committed sample's real video: examples from decisions, versions,
rollback, two venues apart, the committed model untouched, superseded decisions dropped."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from mafvar.cli import main
from review import venues
from review.fouls import IncidentType as T
from review.incidents import Incident, Phase, save_incidents
from review.learn import load_examples
from review.recount_file import VoteCall, VoterRecord, save_recount
from review.store import ReviewStore
from vision.appearance import MODEL_PATH

DEMO = Path(__file__).resolve().parents[2] / "sample_videos" / "demo"
pytestmark = pytest.mark.slow   # reads frames of the sample's video


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# Incidents at the sample's true acts (truth.json): a peek of seat 2, a day touch by 7,
# a late vote of seat 2; the vote call against 7 of day 1 with seat 4's palm.
INCIDENTS = [
    Incident.create(T.PEEK, [2], 177.8, 179.4, Phase("Night 3", "r2.night"), 0.8),
    Incident.create(T.TOUCH_DAY, [7], 129.1, 130.5, Phase("Day 3", "r2.day"), 0.7),
    Incident.create(T.LATE_VOTE, [2], 63.24, 63.9, Phase("Day 1, vote on 7", "r0.vote.p0.c7"), 0.9),
]
CALL = VoteCall(round=0, pass_=1, candidate=7, t_call=60.39, t_thanks=62.94,
                voters=(VoterRecord(4, 61.99, 63.58, "palm", False, "wrong_form"),))


def make_game(folder: Path, name: str, venue: str | None) -> Path:
    """A workspace of the sample (its own video, linked) with an analysis naming the incidents."""
    g = folder / name
    (g / "analysis").mkdir(parents=True)
    for f in ("protocol.json", "calibration.json", "truth.json"):
        (g / f).write_bytes((DEMO / f).read_bytes())
    (g / "video.mp4").symlink_to(DEMO / "video.mp4")
    save_incidents(g / "analysis" / "incidents.json", INCIDENTS, game={})
    save_recount(g / "analysis" / "recount.json", [CALL])
    if venue is not None:
        (g / "analysis" / "appearance_model.json").write_text(json.dumps(
            {"format": "mafvar-appearance-choice", "version": 1, "key": "committed", "venue": venue,
             "model_version": 0, "model": "committed"}))
    return g


def decide(game: Path, incident: Incident, verdict: str, who: str = "Anna"):
    with ReviewStore.open(game / "review.db") as s:
        return s.decide(incident.id, who, "chief_judge", verdict)


def learn_json(folder: Path, venue: str, capsys, *extra: str) -> dict:
    rc = main(["learn", str(folder), "--venue", venue, "--json", *extra])
    out = capsys.readouterr()
    assert rc == 0, out.err
    return json.loads(out.out)


def test_learn_turns_each_kind_of_decision_into_examples_and_keeps_the_committed_model(tmp_path, capsys):
    committed = _sha(MODEL_PATH)
    g = make_game(tmp_path, "g1", "hall-a")
    decide(g, INCIDENTS[0], "rejected")               # the peek: the mask was on
    decide(g, INCIDENTS[1], "confirmed")              # the touch: body window "touch"
    decide(g, INCIDENTS[2], "confirmed")              # the late vote: a fist stood in the zone
    with ReviewStore.open(g / "review.db") as s:
        s.verify_vote(0, 1, 7, 4, "wrong_form", "Boris", "side_judge")    # a palm in 4's zone
        s.verify_vote(0, 1, 7, 5, "not_voted", "Boris", "side_judge")     # 5's zone empty
        s.answer_frame(100.0, 6, "mask", "mask_on", "Boris", "side_judge")
        s.answer_frame(61.5, 1, "fist", "no_fist", "Boris", "side_judge")
    doc = learn_json(tmp_path, "hall-a", capsys)
    assert doc["format"] == "mafvar-learn" and doc["version"] == 1 and doc["model_version"] == 1
    assert doc["games"] == ["g1"] and doc["seconds"]["wall"] > 0
    vdir = tmp_path / "venues" / "hall-a" / "v1"
    examples = load_examples(vdir / "examples.npz")
    rows = {k: rows for k, (_, rows) in examples.items()}
    got = {(r["window"], r["label"], r["negative"], r["source"]) for k in rows for r in rows[k]}
    assert ("head", "mask_on", False, "decision") in got                 # rejected peek
    assert ("body", "touch", False, "decision") in got                   # confirmed touch
    assert ("zone", "vote", False, "decision") in got                    # confirmed late vote
    assert ("zone", "wrong", False, "verification") in got
    assert ("zone", "none", False, "verification") in got
    assert ("head", "mask_on", False, "answer") in got
    assert ("zone", "vote", True, "answer") in got
    for kind, (x, rs) in examples.items():
        assert x.shape[0] == len(rs) and np.isfinite(x).all()
        assert all(r["game"] == "g1" and r["reviewer"] in ("Anna", "Boris") for r in rs)
    report = json.loads((vdir / "report.json").read_text())
    assert report["format"] == "mafvar-venue-training" and report["games"] == ["g1"]
    assert {(p["source"], p["reviewer"]) for p in report["provenance"]} >= {("decision", "Anna"),
                                                                           ("verification", "Boris"),
                                                                           ("answer", "Boris")}
    rec = venues.read_venue(tmp_path, "hall-a")
    assert rec.current == 1 and rec.versions[0]["sha256"] == _sha(vdir / "model.json")
    assert _sha(MODEL_PATH) == committed                                 # never written
    choice = venues.choose(tmp_path, "hall-a")
    assert choice.version == 1 and choice.fallback is None and set(choice.models) == {"head", "zone", "body"}


def test_a_superseded_decision_is_dropped_when_the_model_is_rebuilt(tmp_path, capsys):
    g = make_game(tmp_path, "g1", "hall-a")
    first = decide(g, INCIDENTS[0], "rejected")
    learn_json(tmp_path, "hall-a", capsys)
    second = decide(g, INCIDENTS[0], "confirmed")       # the chief judge changes the verdict
    assert second.supersedes == first.id
    doc = learn_json(tmp_path, "hall-a", capsys)
    assert doc["model_version"] == 2
    old = load_examples(tmp_path / "venues" / "hall-a" / "v1" / "examples.npz")["head"][1]
    new = load_examples(tmp_path / "venues" / "hall-a" / "v2" / "examples.npz")["head"][1]
    assert {(r["ref"], r["label"]) for r in old} == {(str(first.id), "mask_on")}
    judged = [r for r in new if r["source"] == "decision"]
    assert judged and {(r["ref"], r["label"]) for r in judged} == {(str(second.id), "mask_lifted")}


def test_two_venues_do_not_mix(tmp_path, capsys):
    a = make_game(tmp_path, "ga", "hall-a")
    b = make_game(tmp_path, "gb", "hall-b")
    decide(a, INCIDENTS[0], "rejected")
    decide(b, INCIDENTS[1], "confirmed")
    doc_a = learn_json(tmp_path, "hall-a", capsys)
    model_a = _sha(tmp_path / "venues" / "hall-a" / "v1" / "model.json")
    doc_b = learn_json(tmp_path, "hall-b", capsys)
    assert doc_a["games"] == ["ga"] and doc_b["games"] == ["gb"]
    assert doc_b["model_version"] == 1                                   # its own numbering
    rows_b = [r for _, rs in load_examples(tmp_path / "venues" / "hall-b" / "v1" / "examples.npz").values()
              for r in rs]
    assert rows_b and {r["game"] for r in rows_b} == {"gb"}
    assert _sha(tmp_path / "venues" / "hall-a" / "v1" / "model.json") == model_a   # untouched
    assert venues.choose(tmp_path, "hall-a").sha256 != venues.choose(tmp_path, "hall-b").sha256


def test_rollback_walks_back_to_the_committed_model_and_forward_again(tmp_path, capsys):
    g = make_game(tmp_path, "g1", "hall-a")
    decide(g, INCIDENTS[0], "rejected")
    learn_json(tmp_path, "hall-a", capsys)
    decide(g, INCIDENTS[1], "rejected")
    learn_json(tmp_path, "hall-a", capsys)
    assert venues.choose(tmp_path, "hall-a").version == 2
    doc = learn_json(tmp_path, "hall-a", capsys, "--rollback")
    assert (doc["action"], doc["from"], doc["current"]) == ("rollback", 2, 1)
    assert venues.choose(tmp_path, "hall-a").version == 1
    assert learn_json(tmp_path, "hall-a", capsys, "--rollback")["current"] == 0
    assert venues.choose(tmp_path, "hall-a").version == 0                # the committed model
    assert main(["learn", str(tmp_path), "--venue", "hall-a", "--rollback"]) == 2
    assert "already" in capsys.readouterr().err
    assert learn_json(tmp_path, "hall-a", capsys, "--rollback", "--to", "2")["current"] == 2
    assert (tmp_path / "venues" / "hall-a" / "v1" / "model.json").exists()   # nothing deleted
    log = venues.read_venue(tmp_path, "hall-a").log
    assert [e["act"] for e in log] == ["learn", "learn", "rollback", "rollback", "rollback"]


def test_a_window_that_does_not_read_its_held_out_judged_examples_keeps_the_committed_weights(tmp_path, capsys):
    # the first call of day 1 (on 9, 56.8-59.4 s) verified as it was; the next (on 7, 60.4-62.9 s,
    # another fold of the cross-validation) verified "voted" for the six seats whose zones
    # stayed empty: the zone fine-tuned on the other fold does not read those labels (nor the
    # first call's, fine-tuned on the wrong ones), so it is not believed
    g = make_game(tmp_path, "g1", "hall-a")
    save_recount(g / "analysis" / "recount.json",
                 [VoteCall(round=0, pass_=1, candidate=9, t_call=56.78, t_thanks=59.37, voters=()), CALL])
    with ReviewStore.open(g / "review.db") as s:
        for seat in range(1, 11):
            s.verify_vote(0, 1, 9, seat, "voted" if seat in (1, 3, 8, 9, 10) else "not_voted", "Boris", "side_judge")
        for seat in (1, 3, 5, 8, 9, 10):
            s.verify_vote(0, 1, 7, seat, "voted", "Boris", "side_judge")
    doc = learn_json(tmp_path, "hall-a", capsys)
    zone = doc["fit"]["zone"]
    assert zone["held_out"]["judged"] >= 6 and zone["held_out"]["judged_after"] < 0.95
    assert zone["held_out"]["folds"] >= 2
    assert "held-out agreement" in zone["kept_committed"]
    model = json.loads((tmp_path / "venues" / "hall-a" / "v1" / "model.json").read_text())["models"]["zone"]
    committed = json.loads(MODEL_PATH.read_text())["models"]["zone"]
    assert model["w2"] == committed["w2"] and model["mean"] == committed["mean"]


def test_learn_without_decisions_or_venue_games_says_so(tmp_path, capsys):
    make_game(tmp_path, "g1", "hall-a")
    assert main(["learn", str(tmp_path), "--venue", "hall-b"]) == 2
    assert "no game" in capsys.readouterr().err
    assert main(["learn", str(tmp_path), "--venue", "hall-a"]) == 2
    assert "nothing to learn" in capsys.readouterr().err
    assert main(["learn", str(tmp_path), "--venue", "../x"]) == 2
    assert "venue name" in capsys.readouterr().err
    assert not (tmp_path / "venues" / "hall-a").exists()
