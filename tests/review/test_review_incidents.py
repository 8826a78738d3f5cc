import json

import pytest

from review.incidents import (
    INCIDENTS_FORMAT, VIOLATION_OF, Evidence, EvidenceKind, Impact, Incident,
    IncidentFormatError, IncidentType, Phase, Source, incident_id, load_incidents,
    save_incidents, sort_by_priority,
)

VOTE5 = Phase(label="Day 2, vote on seat 5", key="day 2 vote on 5")


def _full_incident() -> Incident:
    return Incident.create(
        IncidentType.EARLY_VOTE, [6], 723.4, 725.0, VOTE5, 0.87,
        clause="MC 2.4.11", sanction="foul",
        evidence=[Evidence(EvidenceKind.FRAME, "analysis/frames/a.jpg", 723.4),
                  Evidence("crop", "analysis/frames/a_seat6.jpg", 723.4),
                  Evidence("clip", "analysis/clips/x.mp4")],
        impact=Impact(changes_exit=True, changes_result=False, summary="ties 5 and 8"),
        details={"candidate": 5, "t_call_end": 724.1, "nested": {"a": [1, 2]}},
    )


def test_incident_json_round_trip_preserves_every_field():
    inc = _full_incident()
    back = Incident.from_json(json.loads(json.dumps(inc.to_json())))
    assert back == inc
    assert back.type is IncidentType.EARLY_VOTE and back.violation == "V16"
    assert back.evidence[1].kind is EvidenceKind.CROP and back.evidence[2].t is None
    assert back.source is Source.VIDEO


def test_every_type_has_its_violation_code():
    assert set(VIOLATION_OF) == set(IncidentType)
    assert VIOLATION_OF[IncidentType.MASK_LATE] == "V1"
    assert VIOLATION_OF[IncidentType.VOTE_GESTURE] == "V22"
    assert VIOLATION_OF[IncidentType.MISCOUNT] is None


def test_id_is_stable_across_reruns_and_jitter_but_not_across_findings():
    base = incident_id("peek", [7, 3], "night 2", 1000.2)
    assert base == incident_id(IncidentType.PEEK, [3, 7], "night 2", 999.8)  # same second
    assert base.startswith("peek-")
    assert base != incident_id("peek", [3], "night 2", 1000.2)  # other seats
    assert base != incident_id("peek", [3, 7], "night 3", 1000.2)  # other phase
    assert base != incident_id("peek", [3, 7], "night 2", 1003.0)  # other time
    assert base != incident_id("mask_touch", [3, 7], "night 2", 1000.2)  # other type
    assert base != incident_id("peek", [3, 7], "night 2", 1000.2, extra="b")
    assert incident_id("protocol_audit", [], "event 17", None).startswith("protocol_audit-")


def test_invalid_incidents_are_refused_with_a_message():
    with pytest.raises(IncidentFormatError, match="unknown incident type"):
        Incident.create("sneeze", [1], 1.0, 2.0, VOTE5, 0.5)
    with pytest.raises(IncidentFormatError, match="seat 11"):
        Incident.create("peek", [11], 1.0, 2.0, VOTE5, 0.5)
    with pytest.raises(IncidentFormatError, match="confidence"):
        Incident.create("peek", [1], 1.0, 2.0, VOTE5, 1.5)
    with pytest.raises(IncidentFormatError, match="before t0"):
        Incident.create("peek", [1], 5.0, 2.0, VOTE5, 0.5)
    with pytest.raises(IncidentFormatError, match="relative"):
        Evidence("frame", "/etc/passwd")
    with pytest.raises(IncidentFormatError, match="relative"):
        Evidence("frame", "../other_game/x.jpg")


def test_save_and_load_file(tmp_path):
    audit = Incident.create("protocol_audit", [], None, None, Phase("Day 1", "event 17"), 1.0,
                            source="protocol", clause="MC 2.4.14",
                            details={"code": "vote_sum", "event": 17})
    path = tmp_path / "incidents.json"
    save_incidents(path, [_full_incident(), audit], game={"number": 3})
    doc = json.loads(path.read_text())
    assert doc["format"] == INCIDENTS_FORMAT and doc["version"] == 1
    assert doc["game"] == {"number": 3}
    loaded = load_incidents(path)
    assert loaded.incidents == (_full_incident(), audit)
    assert loaded.by_id()[audit.id].source is Source.PROTOCOL
    assert [p.name for p in tmp_path.iterdir()] == ["incidents.json"]  # no temp file left


def test_load_refuses_other_formats_versions_and_duplicates(tmp_path):
    path = tmp_path / "incidents.json"
    path.write_text("{not json")
    with pytest.raises(IncidentFormatError, match="not readable JSON"):
        load_incidents(path)
    path.write_text(json.dumps({"format": "something-else", "version": 1}))
    with pytest.raises(IncidentFormatError, match="not a mafvar-incidents"):
        load_incidents(path)
    path.write_text(json.dumps({"format": INCIDENTS_FORMAT, "version": 2, "incidents": []}))
    with pytest.raises(IncidentFormatError, match="version 2"):
        load_incidents(path)
    inc = _full_incident().to_json()
    path.write_text(json.dumps({"format": INCIDENTS_FORMAT, "version": 1, "incidents": [inc, inc]}))
    with pytest.raises(IncidentFormatError, match="duplicate"):
        load_incidents(path)
    with pytest.raises(IncidentFormatError, match="duplicate"):
        save_incidents(tmp_path / "x.json", [_full_incident(), _full_incident()])
    assert not (tmp_path / "x.json").exists()


def test_priority_orders_by_impact_then_confidence_then_time():
    def make(t, conf, exit_=False, result=False):
        return Incident.create("peek", [1], t, t, Phase("n", f"night {t}"), conf,
                               impact=Impact(changes_exit=exit_, changes_result=result))
    low_sure = make(10, 0.99)
    exit_unsure = make(20, 0.40, exit_=True)
    exit_sure = make(30, 0.90, exit_=True)
    result = make(40, 0.30, result=True)
    tie_a, tie_b = make(50, 0.5), make(5, 0.5)
    ordered = sort_by_priority([low_sure, tie_a, exit_unsure, result, tie_b, exit_sure])
    assert ordered == [result, exit_sure, exit_unsure, low_sure, tie_b, tie_a]


from hypothesis import given, settings, strategies as st  # noqa: E402

_text = st.text(max_size=20)
_time = st.one_of(st.none(), st.floats(0, 20000, allow_nan=False))


@settings(max_examples=60, deadline=None)
@given(type_=st.sampled_from(list(IncidentType)),
       seats=st.lists(st.integers(1, 10), max_size=4, unique=True),
       t0=_time, dur=st.floats(0, 60, allow_nan=False), key=_text, conf=st.floats(0, 1),
       summary=_text, exit_=st.booleans(), result=st.booleans(),
       details=st.dictionaries(st.text(max_size=5), st.one_of(st.integers(), _text, st.none()),
                               max_size=3))
def test_any_incident_survives_json_and_keeps_its_id(type_, seats, t0, dur, key, conf, summary,
                                                    exit_, result, details):
    t1 = None if t0 is None else t0 + dur
    inc = Incident.create(type_, seats, t0, t1, Phase(key.upper(), key), conf,
                          impact=Impact(exit_, result, summary), details=details)
    back = Incident.from_json(json.loads(json.dumps(inc.to_json())))
    assert back == inc
    # The id depends on what was found, not on the order the seats were listed in.
    again = Incident.create(type_, list(reversed(seats)), t0, t1, Phase("other label", key), conf)
    assert again.id == inc.id
