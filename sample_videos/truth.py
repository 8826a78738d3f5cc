"""`truth.json`: what really happened in a synthetic game (docs/synth.md).

Versioned (`{"format": "mafvar-truth", "version": 1}`); written with sorted
keys and fixed rounding so the same seed and options give identical bytes.
"""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from .director.model import Plan
from .director.script import all_acts
from .director.segments import all_segments
from .director.voting import announced, outcome, placement_status, raise_passes, recount

FORMAT = "mafvar-truth"
VERSION = 1


def _r(x: float) -> float:
    return round(float(x), 2)


def _vote_rounds(plan: Plan) -> list[dict]:
    out = []
    for r in plan.rounds:
        true = recount(plan, r)
        judged = announced(r)
        row = {
            "round": r.id, "day": r.day, "kind": r.kind, "eligible": list(r.eligible),
            "announce": None if r.t_announce is None else _r(r.t_announce),
            "calls": [{
                "candidate": c.candidate, "event": c.event, "call": _r(c.t), "call_end": _r(c.t_call_end),
                "thanks": _r(c.t_thanks), "announced": c.announced, "true_count": true[c.candidate],
                "judge_voters": list(c.voters),
            } for c in r.calls],
        }
        if r.kind == "raise":
            row["judge_outcome"] = "passed" if raise_passes(judged["raise"], len(r.eligible)) else "failed"
            row["true_outcome"] = "passed" if raise_passes(true["raise"], len(r.eligible)) else "failed"
        else:
            row["judge_outcome"] = outcome(judged)
            row["true_outcome"] = outcome(true)
        out.append(row)
    return out


def build_truth(plan: Plan, seed: int, options: dict) -> dict:
    acts = all_acts(plan)
    states = []
    for seg in all_segments(acts, plan.duration):
        row = {"seat": seg.seat, "layer": seg.layer, "state": seg.state, "t0": _r(seg.t0), "t1": _r(seg.t1)}
        if seg.params:
            row["params"] = dict(seg.params)
        states.append(row)
    votes = []
    for p in sorted(plan.placements, key=lambda p: (p.t_place, p.seat)):
        call = plan.rounds[p.round_id].calls[p.call]
        votes.append({
            "seat": p.seat, "round": p.round_id, "call": p.call, "candidate": p.candidate,
            "t_place": _r(p.t_place), "t_lift": _r(p.t_lift), "form": p.form, "hand": p.hand,
            "status": placement_status(p, call, plan.profile), "counts": bool(p.counts),
            "seen_by_judge": p.judge_counted,
        })
    nights = [{
        "index": n.index, "nightfall": _r(n.t_nightfall),
        "morning": None if n.t_morning is None else _r(n.t_morning),
        "shooting": None if not n.t_shooting else [_r(n.t_shooting[0]), _r(n.t_shooting[1])],
        "calls": [{"seat": s, "t": _r(t)} for s, t in n.calls],
        "checks": [{"by": who, "target": target, "t0": _r(a), "t1": _r(b)} for who, target, a, b in n.checks],
    } for n in plan.nights]
    return {
        "format": FORMAT,
        "version": VERSION,
        "seed": seed,
        "profile": plan.profile,
        "duration": _r(plan.duration),
        "options": options,
        "roles": {str(s): role for s, role in sorted(plan.roles.items())},
        "phases": {
            "nights": nights,
            "days": [{"t0": _r(a), "t1": _r(b)} for a, b in plan.days],
            "speeches": [{"seat": s, "t0": _r(a), "t1": _r(b), "kind": k} for s, a, b, k in plan.speeches],
            "votes": _vote_rounds(plan),
        },
        "exits": [{"seat": s, "t": _r(t), "how": plan.exit_how.get(s, "removal")}
                  for s, t in sorted(plan.exits.items())],
        "seat_states": states,
        "votes": votes,
        "violations": [asdict(v) for v in sorted(plan.violations, key=lambda v: (v.t0, v.type))],
    }


def dumps(obj: dict) -> str:
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"


def load_truth(path: str | Path) -> dict:
    doc = json.loads(Path(path).read_text())
    if doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise ValueError(f"{path}: not a {FORMAT} v{VERSION} document")
    return doc
