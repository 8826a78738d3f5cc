"""Manual anchors (issue 17): anchors.json is append-only user data, never lost."""
from __future__ import annotations

import json

import pytest

from review.anchors import ANCHORS_FILE, AnchorError, current, load_history, merged, set_anchor


def test_anchors_append_and_the_latest_per_mark_is_in_force(tmp_path):
    assert current(tmp_path) == {}
    set_anchor(tmp_path, "nightfall:r2.night", 171.4, "Anna", "chief_judge")
    set_anchor(tmp_path, "vote_call:r1.vote.p0.c10", 153.2, "Boris", "side_judge")
    set_anchor(tmp_path, "nightfall:r2.night", 171.9, "Anna", "chief_judge")
    assert current(tmp_path) == {"nightfall:r2.night": 171.9, "vote_call:r1.vote.p0.c10": 153.2}
    history = load_history(tmp_path)
    assert [(a.mark, a.t, a.set_by) for a in history] == [
        ("nightfall:r2.night", 171.4, "Anna"), ("vote_call:r1.vote.p0.c10", 153.2, "Boris"),
        ("nightfall:r2.night", 171.9, "Anna")]
    assert all(a.set_at for a in history)
    # clearing appends too: the earlier entries stay as the record of who moved what
    set_anchor(tmp_path, "nightfall:r2.night", None, "Anna")
    assert current(tmp_path) == {"vote_call:r1.vote.p0.c10": 153.2}
    assert len(load_history(tmp_path)) == 4
    # the file before the last write is kept
    previous = json.loads((tmp_path / (ANCHORS_FILE + ".previous")).read_text())
    assert len(previous["anchors"]) == 3
    assert merged(tmp_path, {"thanks:r1.vote.p0.c10": 154.3}) == {
        "vote_call:r1.vote.p0.c10": 153.2, "thanks:r1.vote.p0.c10": 154.3}


def test_a_damaged_anchors_file_is_never_overwritten(tmp_path):
    path = tmp_path / ANCHORS_FILE
    path.write_text("{not json")
    with pytest.raises(AnchorError, match="anchors.json"):
        set_anchor(tmp_path, "nightfall:r1.night", 80.0, "Anna")
    assert path.read_text() == "{not json"


@pytest.mark.parametrize("mark,t,who", [("sunrise:r1.night", 1.0, "A"), ("nightfall:r1.night", -1.0, "A"),
                                        ("nightfall:r1.night", float("nan"), "A"), ("nightfall:r1.night", 2.0, " ")])
def test_bad_anchors_are_refused_with_a_reason(tmp_path, mark, t, who):
    with pytest.raises(AnchorError):
        set_anchor(tmp_path, mark, t, who)
    assert not (tmp_path / ANCHORS_FILE).exists()
