"""Property tests: random legal games replay cleanly; random corruptions never raise."""
import copy
import json

import pytest

from hypothesis import HealthCheck, given, settings, strategies as st

from engine.check import check_document
from engine.generate import random_game
from engine.protocol import Protocol, ProtocolError, parse_json, schema_issues
from engine.replay import replay

PROFILES = st.sampled_from(["mafclub-2023", "classic-club", "sport-mafia", "ru-club"])
SEATED = {"speech": ("seat",), "nominate": ("by",), "shot": ("by",), "foul": ("seat",)}


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), profile=PROFILES)
def test_random_legal_games_replay_cleanly(seed, profile):
    doc = random_game(seed, profile)
    assert schema_issues(doc) == []
    proto = Protocol.from_dict(doc)
    rep = replay(proto)
    bad = [str(i) for i in rep.issues if i.severity.value in ("error", "audit")]
    assert bad == []
    roles = [s.role.team.value for s in proto.seats]
    assert roles.count("red") == 7 and roles.count("black") == 3
    prev = rep.initial
    fixed = None
    for i, (ev, state) in enumerate(zip(proto.events, rep.states)):
        for a, b in zip(prev.seats, state.seats):
            assert b.fouls >= a.fouls and b.tech_fouls >= a.tech_fouls  # fouls never decrease
            assert not (not a.alive and b.alive)                        # nobody comes back
        if fixed is not None:
            assert state.result == fixed                                # fixed result never changes
        fixed = state.result if state.result is not None else fixed
        # the dead never act: every acting seat was in the game before the event
        if ev.type in SEATED and getattr(ev, "kind", None) in (None, "normal"):
            actor = getattr(ev, SEATED[ev.type][0])
            assert prev.seat(actor).in_game, f"event {i}: seat {actor} acts while out"
        if ev.type == "vote" and ev.voters is not None:
            assert set(ev.voters) <= set(prev.in_game())
        prev = state
    # sum of counts equals the eligible voters in every completed pass
    passes = {}
    for c in rep.vote_calls:
        passes.setdefault((c.round, c.pass_index, c.eligible), []).append(c)
    for (r, p, elig), calls in passes.items():
        assert sum(c.count for c in calls) == len(elig)
    if proto.events and proto.events[-1].type == "result":
        assert rep.result == proto.events[-1].winner


def _mutate(doc: dict, data) -> dict:
    doc = copy.deepcopy(doc)
    events = doc["events"]
    op = data.draw(st.sampled_from(["drop", "dup", "swap", "seat", "type", "field", "role"]))
    if not events:
        return doc
    i = data.draw(st.integers(0, len(events) - 1))
    if op == "drop":
        del events[i]
    elif op == "dup":
        events.insert(i, copy.deepcopy(events[i]))
    elif op == "swap":
        j = data.draw(st.integers(0, len(events) - 1))
        events[i], events[j] = events[j], events[i]
    elif op == "seat":
        for k in ("seat", "by", "target", "candidate"):
            if k in events[i]:
                events[i][k] = data.draw(st.integers(-2, 12))
    elif op == "type":
        events[i]["type"] = data.draw(st.sampled_from(
            ["vote", "shot", "speech", "morning", "nightfall", "raise_vote", "foul", "removal", "result", "x"]))
    elif op == "field":
        events[i][data.draw(st.sampled_from(["voters", "announced", "t", "targets"]))] = \
            data.draw(st.one_of(st.none(), st.integers(-3, 12), st.text(max_size=3),
                                st.lists(st.integers(-1, 12), max_size=4)))
    elif op == "role":
        doc["seats"][data.draw(st.integers(0, 9))]["role"] = data.draw(st.sampled_from(["civ", "maf", "don", "x"]))
    return doc


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), data=st.data())
def test_random_corruptions_never_raise(seed, data):
    doc = random_game(seed % 50)
    for _ in range(data.draw(st.integers(1, 4))):
        doc = _mutate(doc, data)
    rep, issues = check_document(doc)      # must not raise
    assert isinstance(issues, list)
    if rep is not None:
        assert not any(i.code == "internal" for i in issues), [str(i) for i in issues if i.code == "internal"]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 50), cut=st.floats(0.0, 0.999))
def test_truncated_json_text_gives_a_clear_error(seed, cut):
    text = json.dumps(random_game(seed))
    bad = text[: int(len(text) * cut)]
    try:
        parse_json(bad)
    except ProtocolError as exc:
        assert "line" in str(exc) and "column" in str(exc)
    else:
        raise AssertionError("truncated JSON parsed")
