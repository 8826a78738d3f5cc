"""Events checked against their own type's schema give exactly the full schema's issues.

`engine.protocol.schema_issues` checks each event against the one branch of
the schema that applies to its type (ten times faster than the whole
if/then chain); on mutated real protocols both must report the same issues.
"""
from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import engine.protocol as P

SAMPLE = Path(__file__).resolve().parents[2] / "sample_videos" / "demo" / "protocol.json"
VALUES = [None, True, -1, 0, 3, 11, "x", [], {}, [1, 2], {"a": 1}, 1.5, "vote", "speech", "note"]


def full_schema_issues(doc):
    saved = P._schema_errors
    P._schema_errors = lambda d: P._validator().iter_errors(d)
    try:
        return [i.to_dict() for i in P.schema_issues(doc)]
    finally:
        P._schema_errors = saved


def test_fast_and_full_schema_agree_on_mutated_protocols():
    base = json.loads(SAMPLE.read_text(encoding="utf-8"))
    rng = random.Random(18)
    with_issues = 0
    for _ in range(150):
        doc = copy.deepcopy(base)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(doc["events"]))
            ev = doc["events"][i]
            r = rng.random()
            if r < 0.4 and isinstance(ev, dict):
                ev[rng.choice(["type", "seat", "candidate", "voters", "t", "x", "kind", "by"])] = \
                    rng.choice(VALUES)
            elif r < 0.7 and isinstance(ev, dict) and ev:
                ev.pop(rng.choice(list(ev)))
            else:
                doc["events"][i] = rng.choice(VALUES)
        if rng.random() < 0.1:
            doc[rng.choice(["seats", "game", "format", "zz"])] = rng.choice(VALUES)
        fast = [i.to_dict() for i in P.schema_issues(doc)]
        assert fast == full_schema_issues(doc)
        with_issues += bool(fast)
    assert with_issues > 100  # the mutations did break the schema


def test_a_valid_protocol_has_no_issues_either_way():
    doc = json.loads(SAMPLE.read_text(encoding="utf-8"))
    assert P.schema_issues(doc) == [] and full_schema_issues(doc) == []
