"""`mafvar audit` without video: finding games, bad folders, failures per game, the re-run stamp."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from mafvar.cli import main
from review.audit import AuditError, audit, find_games, is_finished, open_appeals, write_stamp
from review.incidents import save_incidents
from review.store import ReviewStore, ReviewerRole, Ruling
from review.workspace import GameWorkspace


@pytest.fixture(scope="module")
def game_files(tmp_path_factory) -> Path:
    """A synthetic game's protocol, calibration and truth (no video)."""
    out = tmp_path_factory.mktemp("audit-nv") / "synth"
    assert main(["synth", "--seed", "5", "--out", str(out), "--no-video"]) == 0
    return out


def copy_game(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True)
    for f in ("protocol.json", "calibration.json"):
        shutil.copy(src / f, dst / f)
    return dst


def test_find_games_walks_sub_folders_but_not_into_games_or_hidden_ones(tmp_path):
    for rel in ("round1/table1", "round1/table2", "final", ".trash/old", "final/analysis/x"):
        (tmp_path / rel).mkdir(parents=True)
    for rel in ("round1/table1", "round1/table2", "final", ".trash/old", "final/analysis/x"):
        (tmp_path / rel / "protocol.json").write_text("{}")
    (tmp_path / "notes").mkdir()
    found = [p.relative_to(tmp_path.resolve()).as_posix() for p in find_games(tmp_path)]
    assert found == ["final", "round1/table1", "round1/table2"]
    # a game folder given directly is the only game
    assert find_games(tmp_path / "final") == [(tmp_path / "final").resolve()]


def test_bad_folders_are_refused_with_exit_2(tmp_path, capsys):
    with pytest.raises(AuditError, match="not found"):
        find_games(tmp_path / "nope")
    (tmp_path / "file.txt").write_text("x")
    assert main(["audit", str(tmp_path / "file.txt")]) == 2
    assert main(["audit", str(tmp_path / "nope")]) == 2
    (tmp_path / "empty").mkdir()
    assert main(["audit", str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err
    assert "not a folder" in err and "folder not found" in err and "no game" in err
    assert "Traceback" not in err
    assert not (tmp_path / "empty" / "audit.json").exists()


def test_a_malformed_cluster_address_is_refused_before_connecting(tmp_path, game_files, capsys):
    copy_game(game_files, tmp_path / "g")
    assert main(["audit", str(tmp_path), "--cluster", "scheduler-without-port"]) == 2
    err = capsys.readouterr().err
    assert "tcp://HOST:PORT" in err and "Traceback" not in err
    assert not (tmp_path / "audit.json").exists()


def test_only_one_task_per_game_is_supported(tmp_path, game_files):
    copy_game(game_files, tmp_path / "g")
    with pytest.raises(AuditError, match="per game"):
        audit(tmp_path, per="phase")


def test_each_broken_game_fails_with_its_own_message_and_exit_1(tmp_path, game_files, capsys):
    copy_game(game_files, tmp_path / "novideo")
    (copy_game(game_files, tmp_path / "nocal") / "calibration.json").unlink()
    (tmp_path / "nocal" / "video.mp4").write_bytes(b"")  # present, so the calibration is what is missing
    assert main(["audit", str(tmp_path), "--json"]) == 1
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert (doc["format"], doc["version"]) == ("mafvar-audit", 1)
    by_name = {g["game"]: g for g in doc["games"]}
    assert set(by_name) == {"novideo", "nocal"}
    assert by_name["novideo"]["status"] == "failed" and "video" in by_name["novideo"]["message"]
    assert by_name["nocal"]["status"] == "failed" and "calibration.json" in by_name["nocal"]["message"]
    assert doc["totals"]["failed"] == 2 and doc["totals"]["done"] == 0
    assert "Traceback" not in out + err
    # audit.json on disk is the same document
    assert json.loads((tmp_path / "audit.json").read_text())["games"] == doc["games"]


def _finish(game: Path) -> None:
    """Stand in for a finished analysis: the markers of a complete run and an incidents file."""
    ws = GameWorkspace(game)
    ws.ensure_analysis_dirs()
    save_incidents(ws.incidents_path, [])
    for step in ("extract", "checks", "clips"):
        ws.mark_done(step, {"incidents": 0})


def test_stamp_goes_stale_when_an_input_or_a_final_marker_changes(tmp_path, game_files):
    game = copy_game(game_files, tmp_path / "g")
    (game / "video.mp4").write_bytes(b"not really a video")
    assert not is_finished(game)  # never analysed
    _finish(game)
    assert not is_finished(game)  # analysed, but not by an audit: nothing vouches for it
    write_stamp(game, 0)
    assert is_finished(game)
    os.utime(game / "protocol.json", ns=(1, 1))  # an edited protocol
    assert not is_finished(game)
    write_stamp(game, 0)
    assert is_finished(game)
    GameWorkspace(game).mark_done("clips", {"incidents": 0})  # e.g. `mafvar analyze --phase` since
    assert not is_finished(game)
    write_stamp(game, 0)
    (game / "video.mp4").write_bytes(b"another video")
    assert not is_finished(game)
    # an extraction with failed chunks leaves no extract marker: nothing to vouch for
    GameWorkspace(game).clear_marker("extract")
    write_stamp(game, 0)
    assert not is_finished(game)


def test_open_appeals_are_counted_and_a_missing_review_db_is_not_created(tmp_path, game_files):
    ws = GameWorkspace(copy_game(game_files, tmp_path / "g"))
    assert open_appeals(ws) == (None, None)
    assert not ws.review_db_path.exists()
    with ReviewStore.open(ws.review_db_path) as store:
        a = store.file_appeal(3, "vote miscounted", reviewer="Anna", role=ReviewerRole.CHIEF_JUDGE)
        store.file_appeal(7, "foul not called", reviewer="Anna", role=ReviewerRole.CHIEF_JUDGE)
    assert open_appeals(ws) == (2, None)
    with ReviewStore.open(ws.review_db_path) as store:
        store.rule_appeal(a.id, "Anna", ReviewerRole.CHIEF_JUDGE, Ruling.REJECTED, "recount matches")
    assert open_appeals(ws) == (1, None)
    ws.review_db_path.write_bytes(b"not a database at all, just bytes" * 10)
    count, note = open_appeals(ws)
    assert count is None and "appeals not counted" in note
