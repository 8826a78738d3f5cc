"""Local audits of real rendered games: every game analysed, re-runs skip, a broken game fails alone."""
from __future__ import annotations

import json
import os

import pytest
from audit_support import findings, incident_keys

from mafvar.cli import main
from review.audit import audit

pytestmark = pytest.mark.slow


def test_a_local_audit_analyses_every_game_into_its_own_workspace(local_audit):
    folder, report = local_audit
    assert [g.status.value for g in report.games] == ["done", "done", "done"], report.to_json()
    doc = json.loads((folder / "audit.json").read_text())
    assert (doc["format"], doc["version"], doc["backend"]) == ("mafvar-audit", 1, "local")
    keys = {}
    for g, row in zip(report.games, doc["games"]):
        game = folder / row["game"]
        assert (game / "analysis" / "clips.done").is_file()
        keys[row["game"]] = findings(game)
        assert row["incidents"] == len(incident_keys(game))
        assert keys[row["game"]][1], row["game"]          # its protocol's vote calls were recounted
        assert row["open_appeals"] is None  # nobody reviewed these games: no review.db ...
        assert not (game / "review.db").exists()  # ... and the audit made none
    # the three protocols differ, so must their findings
    assert len(set(keys.values())) == 3, keys
    assert doc["totals"]["incidents"] == sum(len(k[0]) for k in keys.values())
    # two processes ran the games, none of them the test's own
    workers = {g.worker for g in report.games}
    assert all(not w.endswith(f":{os.getpid()}") for w in workers)


def _analysis_files(folder, games) -> dict:
    return {p: p.stat().st_mtime_ns for g in games for p in sorted((folder / g / "analysis").rglob("*"))
            if p.is_file()}


def test_a_re_run_skips_finished_games_without_touching_them_and_redoes_a_changed_one(local_audit, capsys):
    # "Skipped" is shown by what the re-run leaves alone (no analysis file of a
    # finished game is written again), not by a wall-clock bound that depends
    # on the machine.
    folder, first = local_audit
    games = ("game11", "game12", "game13")
    before = _analysis_files(folder, games)
    assert before
    assert main(["audit", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out.count("skipped") >= 3, out
    doc = json.loads((folder / "audit.json").read_text())
    assert [g["status"] for g in doc["games"]] == ["skipped"] * 3
    assert [g["incidents"] for g in doc["games"]] == [g.incidents for g in first.games]
    assert _analysis_files(folder, games) == before
    # an edited protocol makes its game stale again; the others stay skipped
    proto = folder / "game12" / "protocol.json"
    proto.write_text(proto.read_text())
    again = audit(folder)
    assert [g.status.value for g in again.games] == ["skipped", "done", "skipped"]
    assert again.games[1].incidents == first.games[1].incidents


def test_a_broken_game_fails_with_the_engines_message_and_the_others_are_done(make_folder, tmp_path, capsys):
    folder = make_folder(tmp_path / "t", broken=("game12",))
    assert main(["audit", str(folder), "--json", "--workers", "2"]) == 1
    out, err = capsys.readouterr()
    doc = json.loads(out)
    status = {g["game"]: (g["status"], g["message"]) for g in doc["games"]}
    assert status["game11"] == ("done", "") and status["game13"] == ("done", "")
    state, message = status["game12"]
    assert state == "failed" and "protocol.json" in message and "\n" not in message
    assert "Traceback" not in out + err
    assert not (folder / "game12" / "analysis" / "incidents.json").exists()
    assert (folder / "game13" / "analysis" / "incidents.json").is_file()
