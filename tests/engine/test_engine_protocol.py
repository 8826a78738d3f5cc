"""Native protocol: typed events, schema, round trip, readable errors."""
import dataclasses
import json

import pytest

from engine.generate import random_game
from engine.protocol import (EVENT_TYPES, SCHEMA_PATH, Protocol, ProtocolError, load_protocol,
                             parse_protocol, schema_issues)


def test_schema_and_dataclasses_describe_the_same_events():
    schema = json.loads(SCHEMA_PATH.read_text())
    assert schema["$schema"].endswith("2020-12/schema")
    assert set(schema["properties"]["events"]["items"]["properties"]["type"]["enum"]) == set(EVENT_TYPES)
    for name, cls in EVENT_TYPES.items():
        props = set(schema["$defs"][f"ev_{name}"]["properties"]) - {"type"}
        assert props == {f.name for f in dataclasses.fields(cls)}, name


def test_round_trip():
    doc = random_game(11)
    doc["cameras"] = [{"id": "cam1", "file": "video.mp4", "offset": 1.5}]
    p = Protocol.from_dict(doc)
    assert p.to_dict() == doc
    assert Protocol.from_dict(p.to_dict()) == p


def test_schema_errors_name_event_and_field():
    doc = random_game(12)
    doc["events"][5] = {"type": "vote", "candidate": 11, "voters": [1, "x"]}
    issues = schema_issues(doc)
    assert issues and all(i.event == 5 for i in issues)
    assert any("candidate" in i.message for i in issues) and any("voters.1" in i.message for i in issues)
    with pytest.raises(ProtocolError) as exc:
        parse_protocol(json.dumps(doc))
    assert exc.value.issues[0].event == 5


def test_eleventh_player_and_unknown_event_rejected():
    doc = random_game(13)
    doc["seats"].append({"seat": 10, "role": "civ"})
    doc["events"].append({"type": "teleport"})
    msgs = " ".join(i.message for i in schema_issues(doc))
    assert "seats" in msgs and "teleport" in msgs


def test_bad_json_line_and_column(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{\n  "format": "mafvar-protocol",\n  "version": 1,,\n}')
    with pytest.raises(ProtocolError, match="line 3, column 16"):
        load_protocol(p)
    with pytest.raises(ProtocolError, match="no such file"):
        load_protocol(tmp_path / "missing.json")
