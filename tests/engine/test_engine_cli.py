"""`mafvar protocol check / import` through mafvar.cli.main."""
import json

import pytest

from engine.generate import random_game
from mafvar.cli import main


def _write(tmp_path, doc, name="p.json"):
    p = tmp_path / name
    p.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
    return str(p)


def test_check_valid_protocol_json(tmp_path, capsys):
    doc = random_game(3)
    code = main(["protocol", "check", _write(tmp_path, doc), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(out) == {"format", "version", "profile", "valid", "exits", "result", "points", "issues"}
    assert out["format"] == "mafvar-check" and out["valid"] is True
    assert out["result"] == doc["events"][-1]["winner"]
    assert all(set(e) == {"seat", "round", "type"} for e in out["exits"])
    assert len(out["points"]) == 10


def test_check_human_output_lists_exits_and_result(tmp_path, capsys):
    code = main(["protocol", "check", _write(tmp_path, random_game(4))])
    text = capsys.readouterr().out
    assert code == 0 and "result:" in text and "round" in text


@pytest.mark.parametrize("mutate, needle", [
    (lambda d: d["events"].append({"type": "vote", "candidate": 11}), "event"),
    (lambda d: d["seats"].append({"seat": 11, "role": "civ"}), "seats"),
    (lambda d: d["seats"].__setitem__(0, {"seat": 1, "role": "don"}), "roles"),
])
def test_check_invalid_protocols_exit_2(tmp_path, capsys, mutate, needle):
    doc = random_game(5)
    mutate(doc)
    code = main(["protocol", "check", _write(tmp_path, doc), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 2 and out["valid"] is False
    assert any(needle in (i["message"] + i["code"]) for i in out["issues"])


def test_check_act_by_eliminated_player_names_event(tmp_path, capsys):
    doc = random_game(6)
    first_morning = next(i for i, ev in enumerate(doc["events"]) if ev["type"] == "morning")
    # seat 1 gives up right after N0, then "nominates": an act by a player who is out
    doc["events"].insert(first_morning + 1, {"type": "give_up", "seat": 1})
    doc["events"].insert(first_morning + 2, {"type": "nominate", "by": 1, "target": 2})
    code = main(["protocol", "check", _write(tmp_path, doc), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 2
    hits = [x for x in out["issues"] if x["event"] == first_morning + 2 and x["severity"] == "error"]
    assert hits and "seat 1" in hits[0]["message"] and hits[0]["clause"]


def test_check_bad_json_and_missing_file(tmp_path, capsys):
    code = main(["protocol", "check", _write(tmp_path, '{"format": "mafvar-protocol",\n "seats": [')])
    err = capsys.readouterr().out
    assert code == 2 and "line 2" in err and "column" in err
    assert main(["protocol", "check", str(tmp_path / "nope.json")]) == 2


def test_check_profile_override_option(tmp_path, capsys):
    code = main(["protocol", "check", _write(tmp_path, random_game(7)), "--profile", "sport-mafia", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["profile"] == "sport-mafia" and out["points"] == {}
    assert code in (0, 2)


def test_import_refuses_to_overwrite(tmp_path, capsys):
    out = tmp_path / "out.json"
    out.write_text("keep")
    code = main(["protocol", "import", "--from", "mafiaratings",
                 "/work/shared/formats/mafiaratings/game_4842.json", "-o", str(out)])
    assert code == 2 and out.read_text() == "keep"
    assert "--force" in capsys.readouterr().err


def test_check_unknown_override_option_exits_2(tmp_path, capsys):
    doc = random_game(8)
    doc["game"]["overrides"] = {"thre_fouls": "no"}
    code = main(["protocol", "check", _write(tmp_path, doc), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 2 and any(i["code"] == "profile" and "thre_fouls" in i["message"] for i in out["issues"])
