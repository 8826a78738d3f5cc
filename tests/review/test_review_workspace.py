import hashlib
import json

import pytest

from review.workspace import ANALYSIS_STEPS, GameWorkspace, WorkspaceError


def _protocol(cameras=None):
    doc = {"format": "mafvar-protocol", "version": 1, "game": {"number": 1},
           "seats": [{"seat": i, "name": f"P{i}", "role": "civ"} for i in range(1, 11)],
           "events": []}
    if cameras is not None:
        doc["cameras"] = cameras
    return json.dumps(doc)


def test_missing_folder_and_inputs_name_the_path(tmp_path):
    with pytest.raises(WorkspaceError, match=str(tmp_path / "nope")):
        GameWorkspace(tmp_path / "nope")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(WorkspaceError, match="not a folder"):
        GameWorkspace(tmp_path / "file.txt")
    for empty in ("", "  "):  # not the current folder: nothing may land where the command ran
        with pytest.raises(WorkspaceError, match="no game folder given"):
            GameWorkspace(empty)
    ws = GameWorkspace(tmp_path)
    with pytest.raises(WorkspaceError, match=f"protocol not found: {tmp_path / 'protocol.json'}"):
        ws.require_protocol()
    with pytest.raises(WorkspaceError, match="no video in"):
        ws.require_videos()
    with pytest.raises(WorkspaceError, match="calibration not found"):
        ws.require_calibration()
    (tmp_path / "protocol.json").write_text(_protocol([{"id": "cam1", "file": "cam1.mp4"},
                                                       {"id": "cam2", "file": "cam2.mp4"}]))
    (tmp_path / "cam1.mp4").write_bytes(b"\0")
    with pytest.raises(WorkspaceError, match=f"video not found: {tmp_path / 'cam2.mp4'}"):
        ws.require_videos()
    (tmp_path / "cam2.mp4").write_bytes(b"\0")
    assert ws.require_videos() == (tmp_path / "cam1.mp4", tmp_path / "cam2.mp4")


def test_videos_without_cameras_are_found_by_suffix(tmp_path):
    (tmp_path / "protocol.json").write_text(_protocol())
    (tmp_path / "video.MP4").write_bytes(b"\0")
    (tmp_path / "notes.txt").write_text("x")
    assert GameWorkspace(tmp_path).videos() == (tmp_path / "video.MP4",)


def test_state_reports_inputs_and_steps(tmp_path):
    ws = GameWorkspace(tmp_path)
    st = ws.state()
    assert not st.has_protocol and not st.has_review_db and st.videos == ()
    assert st.steps == {step: False for step in ANALYSIS_STEPS}
    assert not st.analysed and st.next_step == ANALYSIS_STEPS[0]

    (tmp_path / "protocol.json").write_text(_protocol([{"id": "cam1", "file": "video.mp4"}]))
    (tmp_path / "calibration.json").write_text("{}")
    ws.mark_done(ANALYSIS_STEPS[0], {"frames": 12})
    ws.mark_done("extract")
    ws.mark_done("custom_step")
    st = ws.state()
    assert st.has_protocol and st.protocol_error is None and st.has_calibration
    assert st.missing_videos == (tmp_path / "video.mp4",)
    assert st.steps["calibration_check"] and st.steps["extract"] and st.steps["custom_step"]
    assert not st.steps["align"] and st.next_step == "align"
    assert ws.marker_info("calibration_check")["info"] == {"frames": 12}
    assert ws.clips_dir.is_dir()
    json.dumps(st.to_json())  # serialisable for the app and the CLI

    for step in ANALYSIS_STEPS:
        ws.mark_done(step)
    assert ws.state().analysed and ws.state().next_step is None
    ws.clear_marker("align")
    assert ws.state().next_step == "align"

    (tmp_path / "protocol.json").write_text("{broken")
    assert "not readable JSON" in ws.state().protocol_error
    with pytest.raises(WorkspaceError, match="not readable JSON"):
        ws.read_protocol()


def test_workspace_operations_never_touch_user_files(tmp_path):
    files = {"protocol.json": _protocol(), "calibration.json": '{"seats": []}',
             "review.db": "pretend", "truth.json": "{}"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    before = {n: hashlib.sha256((tmp_path / n).read_bytes()).hexdigest() for n in files}
    ws = GameWorkspace(tmp_path)
    ws.state()
    ws.ensure_analysis_dirs()
    for step in ANALYSIS_STEPS:
        ws.mark_done(step)
        ws.clear_marker(step)
    after = {n: hashlib.sha256((tmp_path / n).read_bytes()).hexdigest() for n in files}
    assert after == before


def test_resolve_keeps_evidence_inside_the_game(tmp_path):
    ws = GameWorkspace(tmp_path)
    assert ws.resolve("analysis/clips/a.mp4") == tmp_path.resolve() / "analysis/clips/a.mp4"
    assert ws.resolve("../elsewhere.jpg") is None
    with pytest.raises(ValueError):
        ws.marker_path("../x")


def test_atomic_writes_are_readable_and_keep_modes(tmp_path):
    import os

    from review.atomic_write import write_json_atomic, write_text_atomic

    new = write_json_atomic(tmp_path / "a.json", {"x": [1, 2]})
    assert json.loads(new.read_text()) == {"x": [1, 2]}
    assert os.stat(new).st_mode & 0o777 == 0o644  # not mkstemp's private 0600
    os.chmod(new, 0o640)
    write_text_atomic(new, "replaced")
    assert new.read_text() == "replaced" and os.stat(new).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]  # no temp file left
