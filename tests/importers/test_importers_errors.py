"""Corrupted records give one clear ImportError_ naming what and where; never a traceback."""
from __future__ import annotations

import contextlib
import copy
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.importers import ImportError_, import_file, import_record
from engine.protocol import schema_issues
from importers_support import MAFIARATINGS, POLEMICA, load

MR = load(MAFIARATINGS[0])
PL = load([p for p in POLEMICA if "334187" in p.name][0])


def _raises(kind, data, *fragments):
    with pytest.raises(ImportError_) as info:
        import_record(kind, data)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_import_error_is_a_value_error():
    assert issubclass(ImportError_, ValueError)


def test_non_json_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"players": [1, 2,', encoding="utf-8")
    with pytest.raises(ImportError_, match=r"not valid JSON: .* line 1, column"):
        import_file("mafiaratings", bad)


def test_missing_file(tmp_path):
    with pytest.raises(ImportError_, match="no such file"):
        import_file("polemica", tmp_path / "nope.json")


def test_unknown_kind():
    _raises("gomafia", MR, "unknown record kind 'gomafia'", "mafiaratings, polemica")


def test_top_level_must_be_an_object():
    _raises("mafiaratings", [MR], "expected a JSON object")


@pytest.mark.parametrize("kind,data", [("mafiaratings", MR), ("polemica", PL)])
def test_missing_players(kind, data):
    bad = {k: v for k, v in data.items() if k != "players"}
    _raises(kind, bad, "'players' is missing")


@pytest.mark.parametrize("kind,data", [("mafiaratings", MR), ("polemica", PL)])
def test_nine_players(kind, data):
    bad = copy.deepcopy(data)
    bad["players"] = bad["players"][:9]
    _raises(kind, bad, "has 9 entries", "exactly 10")


def test_mafiaratings_unknown_role_names_the_player():
    bad = copy.deepcopy(MR)
    bad["players"][3]["role"] = "werewolf"
    _raises("mafiaratings", bad, "players[3] (seat 4)", "'role'", "werewolf")


def test_polemica_unknown_role_names_the_player():
    bad = copy.deepcopy(PL)
    bad["players"][4]["role"] = 7
    _raises("polemica", bad, "players[4] (seat 5)", "'role'", "7")


def test_polemica_duplicate_seat():
    bad = copy.deepcopy(PL)
    bad["players"][1]["position"] = 1
    _raises("polemica", bad, "players[1].position", "seat 1 appears twice")


def test_mafiaratings_seat_out_of_range_names_player_round_and_field():
    bad = copy.deepcopy(MR)
    bad["players"][1]["nominating"] = [1, 11]
    _raises("mafiaratings", bad, "players[1] (seat 2).nominating[1]", "11 is out of range")


def test_mafiaratings_bad_vote_entry():
    bad = copy.deepcopy(MR)
    bad["players"][0]["voting"][1] = "four"
    _raises("mafiaratings", bad, "players[0] (seat 1).voting[1]", "'four'")


def test_mafiaratings_bad_game_time():
    bad = copy.deepcopy(MR)
    bad["players"][1]["warnings"] = [{"round": 2, "time": "lunch"}]
    _raises("mafiaratings", bad, "players[1] (seat 2).warnings[0].time", "'lunch'")


def test_mafiaratings_bad_rules_code():
    bad = copy.deepcopy(MR)
    bad["rules"] = "0009000000000"
    _raises("mafiaratings", bad, "field 'rules'", "digit 4")


def test_mafiaratings_bad_death_type():
    bad = copy.deepcopy(MR)
    bad["players"][9]["death"]["type"] = "eaten"
    _raises("mafiaratings", bad, "players[9] (seat 10).death.type", "'eaten'")


def test_polemica_bad_vote_row():
    bad = copy.deepcopy(PL)
    bad["votes"][5]["voter"] = 0
    _raises("polemica", bad, "votes[5].voter", "out of range")


def test_polemica_double_vote_in_a_pass():
    bad = copy.deepcopy(PL)
    bad["votes"].append(dict(bad["votes"][5]))
    _raises("polemica", bad, "votes twice in pass 1 of day 1")


def test_polemica_bad_zero_voting_and_result():
    bad = copy.deepcopy(PL)
    bad["zeroVoting"] = "sometimes"
    _raises("polemica", bad, "'zeroVoting'", "sometimes")
    bad = copy.deepcopy(PL)
    bad["result"] = 5
    _raises("polemica", bad, "'result'", "5")


def test_cli_import_reports_bad_input_in_one_line(tmp_path):
    from mafvar.cli import main
    bad = tmp_path / "bad.json"
    bad.write_text("not json", encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["protocol", "import", "--from", "polemica", str(bad), "-o",
                     str(tmp_path / "out.json")])
    assert code == 2
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and "not valid JSON" in lines[0] and "Traceback" not in err.getvalue()
    assert not (tmp_path / "out.json").exists()


def test_cli_import_writes_a_protocol(tmp_path):
    from mafvar.cli import main
    out = tmp_path / "out.json"
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["protocol", "import", "--from", "mafiaratings", str(MAFIARATINGS[0]),
                     "-o", str(out)])
    assert code == 0
    assert schema_issues(json.loads(out.read_text(encoding="utf-8"))) == []


# ---------------------------------------------------------------- random corruption

JUNK = st.one_of(st.none(), st.booleans(), st.integers(-3, 14), st.text(max_size=3),
                 st.lists(st.integers(-1, 12), max_size=3),
                 st.dictionaries(st.sampled_from(["round", "time", "day", "type"]),
                                 st.integers(-1, 12), max_size=2))


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


def _corrupt(data, path, junk, delete):
    out = copy.deepcopy(data)
    if not path:
        return junk
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = junk
    return out


@pytest.mark.slow
@pytest.mark.parametrize("kind,data", [("mafiaratings", load(MAFIARATINGS[2])), ("polemica", PL)])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_corruption_gives_a_protocol_or_a_clear_error(kind, data, draw):
    paths = list(_paths(data))
    path = draw.draw(st.sampled_from(paths))
    bad = _corrupt(data, path, draw.draw(JUNK), draw.draw(st.booleans()))
    try:
        doc = import_record(kind, bad)
    except ImportError_ as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    # accepted: what comes out is still a schema-valid protocol
    assert schema_issues(doc) == []
