"""`mafvar eval`: score a game's analysis against its ground truth (synthetic games).

- vote recount accuracy per (vote call, eligible voter): does "this seat's vote
  counts for this candidate" agree with the truth;
- miscounts: every injected one found (a miscount incident on the same
  candidate's call), and with the right impact (who leaves changes or not);
- per incident type: true positives, false positives, false negatives,
  precision and recall, matching incidents to injected violations by type,
  seat and time (with a tolerance);
- alignment: every truth nightfall, vote call and vote window edge against
  the time the analysis placed it at on the video clock (analysis/
  alignment.json): absolute errors, max and mean, how many within 1 s, and
  the misses. Issue #5 asks for all of them within 1 s without protocol times.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vision.view_quality import Blind

from .fouls import FOUL_OF, IncidentType
from .incidents import load_incidents
from .recount_file import load_recount
from .stakes import load_stakes
from .view import Abstention, foul_windows, seat_intervals
from .workspace import GameWorkspace, WorkspaceError

TIME_TOLERANCE = 2.0   # seconds between an injected violation and the incident that reports it
CALL_TOLERANCE = 3.0   # seconds between a truth vote call and the recount's call
ALIGN_TOLERANCE = 1.0  # seconds between a truth nightfall / vote call / window edge and its placement


class EvalError(Exception):
    pass


@dataclass
class TypeScore:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    fn_abstained: int = 0     # of the misses, acts where the analysis said it cannot judge the seat

    @property
    def recall_judged(self) -> float | None:
        """Recall over the acts the analysis did not abstain on."""
        n = self.tp + self.fn - self.fn_abstained
        return self.tp / n if n else None

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def to_json(self) -> dict:
        r = lambda v: None if v is None else round(v, 4)
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "precision": r(self.precision), "recall": r(self.recall),
                "fn_abstained": self.fn_abstained, "recall_judged": r(self.recall_judged)}


def _load(ws: GameWorkspace):
    truth_path = ws.truth_path
    if not truth_path.is_file():
        raise EvalError(f"{truth_path}: no ground truth here (only synthetic games have truth.json)")
    truth = json.loads(truth_path.read_text())
    if truth.get("format") != "mafvar-truth":
        raise EvalError(f"{truth_path}: not a mafvar-truth document")
    if not ws.incidents_path.is_file() or not ws.recount_path.is_file():
        raise EvalError(f"{ws.analysis_dir}: no analysis yet; run `mafvar analyze {ws.root}` first")
    return truth, load_incidents(ws.incidents_path), load_recount(ws.recount_path)


def truth_cells(truth: dict) -> list[dict]:
    """Per truth vote call: time, candidate, eligible voters and the seats whose vote counts (defaults included)."""
    calls = []
    votes = truth.get("votes", [])
    for rid, (rnd, pass_index) in enumerate(_with_passes(truth)):
        if rnd.get("kind") == "raise":
            continue
        counted_any: set[int] = set()
        per_call = []
        for ci, call in enumerate(rnd["calls"]):
            seats = {v["seat"] for v in votes if v["round"] == rid and v["call"] == ci and v["counts"]}
            counted_any |= seats
            per_call.append({"t": call["call"], "candidate": call["candidate"], "eligible": rnd["eligible"],
                             "counted": seats, "true_count": call.get("true_count"),
                             "call_key": _call_key(rnd.get("day"), rnd.get("kind"), pass_index,
                                                   call["candidate"])})
        if per_call:
            per_call[-1]["counted"] = per_call[-1]["counted"] | (set(rnd["eligible"]) - counted_any)
        calls.extend(per_call)
    return calls


def implied_miscounts(truth: dict) -> list[dict]:
    """Passes whose announced counts differ from the true ones without an
    injected miscount: a void vote (wrong form, late) the judge did not notice
    and counted. The rules make that a miscount too (usually without changing
    who leaves), so the analysis should report it; truth lists only the
    deliberate one."""
    injected = {(v.get("details") or {}).get("round") for v in truth.get("violations", [])
                if v["type"] == "miscount"}
    out = []
    for rnd in truth["phases"]["votes"]:
        if rnd.get("kind") == "raise" or rnd.get("round") in injected:
            continue
        wrong = [c for c in rnd["calls"] if c.get("true_count") is not None and c.get("announced") is not None
                 and c["true_count"] != c["announced"]]
        if wrong:
            out.append({"type": "miscount", "seats": [], "t0": rnd["calls"][0]["call"],
                        "t1": rnd["calls"][-1].get("thanks", rnd["calls"][-1]["call"]),
                        "details": {"round": rnd.get("round"), "implied": True,
                                    "changes_exit": rnd.get("judge_outcome") != rnd.get("true_outcome")}})
    return out


@dataclass
class CellScore:
    """The recount's (call, eligible voter) cells against the truth."""
    cells: int = 0
    agree: int = 0               # "counts for this candidate" as in the truth (unverified = not counted)
    verified: int = 0            # cells the analysis judged (not "unverified")
    agree_verified: int = 0

    @property
    def accuracy(self) -> float:
        return self.agree / self.cells if self.cells else 1.0

    @property
    def verified_share(self) -> float:
        return self.verified / self.cells if self.cells else 1.0

    @property
    def accuracy_verified(self) -> float:
        return self.agree_verified / self.verified if self.verified else 1.0


def recount_cells(truth: dict, recount_calls) -> CellScore:
    sc = CellScore()
    for tc in truth_cells(truth):
        # the same call first (its key): placed elsewhere, its cells are the analysis's
        # verdict where it judged them (a wrong one), open where it left them open. By
        # time only where the keys differ: a misplaced call of the same candidate on
        # another day lies within seconds of it and has other players eligible
        # (fresh seed 2304 muted: day 2's call took a day-1 cell's place, and the seats
        # dead by then scored as judged where the analysis had judged nothing)
        rc = next((c for c in recount_calls if tc["call_key"] is not None and _key_of(c) == tc["call_key"]), None)
        if rc is None:
            rc = min((c for c in recount_calls if c.candidate == tc["candidate"] and c.t_call is not None
                      and abs(c.t_call - tc["t"]) <= CALL_TOLERANCE),
                     key=lambda c: abs(c.t_call - tc["t"]), default=None)
        counted = {v.seat for v in rc.voters if v.counted} if rc else set()
        open_ = rc.unverified_seats if rc else frozenset()
        if rc is None and any(c.candidate == tc["candidate"] and c.t_call is None for c in recount_calls):
            # the analysis could not place this call and judged none of its cells; a call
            # placed too far away is a verdict, and a wrong one
            open_ = frozenset(tc["eligible"])
        for seat in tc["eligible"]:
            ok = (seat in counted) == (seat in tc["counted"])
            sc.cells += 1
            sc.agree += ok
            if seat not in open_:
                sc.verified += 1
                sc.agree_verified += ok
    return sc


def _matches(inc, v) -> bool:
    if inc.type.value != v["type"]:
        return False
    if v["type"] == "miscount":
        # truth names the voter the judge missed; the incident names the candidate's call
        cand = v.get("details", {}).get("candidate")
        if cand is not None and inc.details.get("candidate") != cand:
            return False
    elif v["seats"] and inc.seats and not set(inc.seats) & set(v["seats"]):
        return False
    if inc.t0 is None:
        return True
    t1 = inc.t1 if inc.t1 is not None else inc.t0
    return inc.t0 <= v["t1"] + TIME_TOLERANCE and t1 >= v["t0"] - TIME_TOLERANCE


def evaluate(game_dir: str | Path) -> dict:
    try:
        ws = GameWorkspace(game_dir)
    except WorkspaceError as exc:
        raise EvalError(str(exc)) from exc
    truth, inc_file, rec_file = _load(ws)
    incidents = list(inc_file.incidents)
    # the announced counts a void vote made wrong are scored as miscounts too
    # (not counted as injected: `miscounts_injected` stays the deliberate ones)
    violations = truth.get("violations", []) + implied_miscounts(truth)
    types = sorted({v["type"] for v in violations} | {i.type.value for i in incidents})
    per_type: dict[str, TypeScore] = {t: TypeScore() for t in types}
    used: set[str] = set()
    abstained = [Abstention.from_json(a) for a in inc_file.abstentions]
    cells = truth_cells(truth)
    for v in violations:
        hit = next((i for i in incidents if i.id not in used and _matches(i, v)), None)
        if hit is None:
            per_type[v["type"]].fn += 1
            per_type[v["type"]].fn_abstained += _abstained(v, abstained, list(rec_file.calls), cells)
        else:
            used.add(hit.id)
            per_type[v["type"]].tp += 1
    for i in incidents:
        if i.id not in used:
            per_type[i.type.value].fp += 1
    mis_truth = [v for v in violations if v["type"] == "miscount" and not v["details"].get("implied")]
    found = right_impact = 0
    for v in mis_truth:
        hit = _miscount_found(v, incidents)
        if hit is not None:
            found += 1
            d = v.get("details", {})
            want = d.get("changes_exit")
            if want is None and "judge_outcome" in d and "true_outcome" in d:
                want = d["judge_outcome"] != d["true_outcome"]
            right_impact += want is None or bool(want) == hit.impact.changes_exit
    sc = recount_cells(truth, list(rec_file.calls))
    placed = load_placed_intervals(ws)
    video_s = float(truth.get("duration") or 0.0)
    return {"format": "mafvar-eval", "version": 1, "game": str(ws.root),
            "recount_accuracy": round(sc.accuracy, 4), "recount_cells": sc.cells, "recount_agree": sc.agree,
            "miscounts_injected": len(mis_truth), "miscounts_found": found,
            "miscounts_right_impact": right_impact,
            "per_type": {t: s.to_json() for t, s in per_type.items()},
            "alignment": None if placed is None else alignment_score(truth, placed),
            # additive (issue 16): the judged cells, the false incidents, the abstentions
            "recount_verified": round(sc.verified_share, 4), "recount_cells_verified": sc.verified,
            "recount_accuracy_verified": round(sc.accuracy_verified, 4),
            "miscounts_unverified": miscounts_unverified(mis_truth, incidents, list(rec_file.calls), cells),
            # additive (session 44): not found, but their vote named as one its unread seats could decide
            "miscounts_at_stake": miscounts_at_stake(mis_truth, incidents, load_stakes(ws.analysis_dir)),
            "false_incidents": sum(s.fp for t, s in per_type.items() if t != "protocol_audit"),
            "video_hours": round(video_s / 3600.0, 4),
            "abstentions": seat_intervals(abstained)}


def _miscount_found(v: dict, incidents):
    """The miscount incident that finds the injected miscount `v`, or None."""
    return next((i for i in incidents if i.type.value == "miscount" and _matches(i, v)), None)


def miscounts_unverified(mis_truth: list[dict], incidents, recount_calls, cells: Sequence[dict] = ()) -> int:
    """Injected miscounts not found whose missed voter's cell the recount left unverified
    (the judge is told to look there: an honest answer, not a miss)."""
    return sum(_miscount_found(v, incidents) is None and _cell_open(v, recount_calls, cells) for v in mis_truth)


def miscounts_at_stake(mis_truth: list[dict], incidents, stakes: Sequence[dict]) -> int:
    """Injected miscounts not found whose vote the analysis named as one that seats it
    could not judge could have decided (review.stakes): the judge is sent to that vote."""
    return sum(_miscount_found(v, incidents) is None
               and any(s.get("decides") and s.get("t0") is not None and s.get("t1") is not None
                       and s["t0"] - CALL_TOLERANCE <= v["t0"] <= s["t1"] + CALL_TOLERANCE for s in stakes)
               for v in mis_truth)


def _cell_open(v: dict, recount_calls, cells: Sequence[dict] = ()) -> bool:
    """Is the cell of the act's voter left unverified in a call near the act, or in
    the act's own call wherever the analysis placed it (`cells`: the truth's calls,
    which name it by its key)?"""
    seats = set(v.get("seats") or ())
    candidate = v.get("details", {}).get("candidate")
    keys = {tc["call_key"] for tc in cells if tc["call_key"] is not None and tc["candidate"] == candidate
            and v["t0"] - CALL_TOLERANCE <= tc["t"] <= v["t1"]}
    return any(c.unverified_seats & seats
               and (_key_of(c) in keys
                    or (v["t0"] - 2 * CALL_TOLERANCE <= c.t_call <= v["t1"] + CALL_TOLERANCE if c.t_call is not None
                        else c.candidate == candidate))   # a call the analysis could not place: its cells are open
               for c in recount_calls)


def _abstained(v: dict, abstained: list[Abstention], recount_calls, cells: Sequence[dict] = ()) -> bool:
    """Did the analysis say it cannot judge the act's seat there (a missed act that was
    not judgeable by its own account)?"""
    type_ = IncidentType(v["type"])
    if type_ is IncidentType.MISCOUNT:
        return _cell_open(v, recount_calls, cells)
    if FOUL_OF[type_].from_recount:
        # a flag the recount held back on a fist never seen with its thumb is said as an abstention
        return _cell_open(v, recount_calls, cells) or any(
            Blind.NO_THUMB.value in a.why and a.covers(s, "zone", v["t0"], v["t1"], TIME_TOLERANCE)
            for a in abstained for s in v["seats"])
    wins = foul_windows(type_)
    return any(a.covers(s, w, v["t0"], v["t1"], TIME_TOLERANCE) for a in abstained for s in v["seats"] for w in wins)


# ------------------------------------------------------------------ alignment

def load_placed_intervals(ws: GameWorkspace) -> list[dict] | None:
    """The timeline as the analysis placed it on the video clock (dicts as in
    analysis/alignment.json, else analysis/timeline.json); None before `align` ran."""
    for path in (ws.alignment_path, ws.timeline_path):
        if path.is_file():
            doc = json.loads(path.read_text())
            return list(doc.get("intervals", []))
    return None


def truth_marks(truth: dict) -> list[dict]:
    """The moments alignment must place: every nightfall and, per vote call, the
    call and both edges of its window (opening as the profile says: at the end of
    the call, or at the call itself; closing at "thank you")."""
    out = []
    for night in truth["phases"]["nights"]:
        out.append({"what": "nightfall", "key": f"r{night['index']}.night", "t": night["nightfall"]})
    for rnd, pass_index in _with_passes(truth):
        for call in rnd["calls"]:
            ev = call.get("event")
            key = _call_key(rnd.get("day"), rnd.get("kind"), pass_index, call.get("candidate"))
            out.append({"what": "call", "event": ev, "call_key": key, "t": call["call"]})
            out.append({"what": "window_open", "event": ev, "call_key": key, "t": call.get("call_end"),
                        "call": call["call"]})
            out.append({"what": "window_close", "event": ev, "call_key": key, "t": call.get("thanks")})
    return out


def _with_passes(truth: dict) -> list[tuple[dict, int]]:
    """The truth's vote rounds in order, each with its pass of the day (0 the first
    vote, 1 the revote after a tie, ...; a raise vote takes the day's next number but
    is no pass)."""
    passes: dict[int, int] = {}
    out = []
    for rnd in truth["phases"]["votes"]:
        day = rnd.get("day")
        pass_index = passes.get(day, 0) if day is not None else 0
        if day is not None and rnd.get("kind") in ("vote", "revote"):
            passes[day] = pass_index + 1
        out.append((rnd, pass_index))
    return out


def _call_key(day: int | None, kind: str | None, pass_index: int, candidate: int | None) -> str | None:
    """The timeline key of a truth vote call (engine.timeline): the same call in any
    protocol of the game, whatever its event numbering (an imported platform record
    has fewer events than the protocol the game was played from)."""
    if day is None:
        return None
    if kind in ("vote", "revote") and candidate is not None:
        return f"r{day - 1}.vote.p{pass_index}.c{candidate}"
    return f"r{day - 1}.raise" if kind == "raise" else None


def _key_of(call) -> str | None:
    """The timeline key of a recount call (review.recount_file.VoteCall)."""
    return _call_key(call.round + 1, "vote", call.pass_ - 1, call.candidate)


def _placed_time(mark: dict, iv: dict) -> float | None:
    d = iv.get("details") or {}
    if mark["what"] in ("nightfall", "call"):
        return iv.get("t0")
    if mark["what"] == "window_open":
        return d.get("window_open")
    return d.get("window_close") if d.get("window_close") is not None else iv.get("t1")


def alignment_score(truth: dict, intervals: list[dict], tolerance: float = ALIGN_TOLERANCE) -> dict:
    """Per truth nightfall, vote call and window edge: the placed time's absolute error.

    Nights are found by key (r<index>.night), vote calls by their timeline key
    (r<day-1>.vote.p<pass>.c<candidate>, r<day-1>.raise), or by their protocol event
    index (the interval's `event`) in a truth without days. A mark with no placed
    time is a miss."""
    nights = {iv["key"]: iv for iv in intervals if iv.get("kind") == "night"}
    voting = [iv for iv in intervals if iv.get("kind") in ("vote_call", "raise_vote")]
    calls = {iv["event"]: iv for iv in voting if iv.get("event") is not None}
    by_key = {iv["key"]: iv for iv in voting}
    rows = []
    for m in truth_marks(truth):
        if m["what"] == "nightfall":
            iv = nights.get(m["key"])
        else:
            # by the call's timeline key where the truth gives it: the analysed protocol's
            # event numbers are the truth's only when it is the protocol the game was played from
            iv = by_key.get(m["call_key"]) if m.get("call_key") in by_key else calls.get(m["event"])
        want = m["t"]
        if m["what"] == "window_open" and iv is not None:
            rule = (iv.get("details") or {}).get("window_opens_rule", "call_end")
            if rule != "call_end":
                want = m["call"]
        if want is None:
            continue
        got = None if iv is None else _placed_time(m, iv)
        err = None if got is None else abs(got - want)
        rows.append({"what": m["what"], "key": None if iv is None else iv["key"],
                     "event": m.get("event"), "truth": round(want, 3),
                     "placed": None if got is None else round(got, 3),
                     "error": None if err is None else round(err, 3),
                     "anchored_by": None if iv is None else iv.get("anchored_by")})
    errs = [r["error"] for r in rows if r["error"] is not None]
    misses = [r for r in rows if r["error"] is None or r["error"] > tolerance]
    per_what = {}
    for what in ("nightfall", "call", "window_open", "window_close"):
        sel = [r for r in rows if r["what"] == what]
        e = [r["error"] for r in sel if r["error"] is not None]
        per_what[what] = {"n": len(sel), "within": sum(1 for x in e if x <= tolerance),
                          "max_error": round(max(e), 3) if e else None}
    return {"tolerance": tolerance, "marks": len(rows),
            "within": len(rows) - len(misses),
            "max_error": round(max(errs), 3) if errs else None,
            "mean_error": round(sum(errs) / len(errs), 3) if errs else None,
            "per_kind": per_what, "misses": misses, "rows": rows}


def format_alignment(al: dict) -> list[str]:
    fmt = lambda v: "-" if v is None else f"{v:.2f} s"
    lines = [f"alignment: {al['within']}/{al['marks']} nightfalls, vote calls and window edges within "
             f"{al['tolerance']:g} s (max error {fmt(al['max_error'])}, mean {fmt(al['mean_error'])})"]
    for what, s in al["per_kind"].items():
        if s["n"]:
            lines.append(f"  {what:<13} {s['within']:>3}/{s['n']:<3} max {fmt(s['max_error'])}")
    for r in al["misses"]:
        where = r["key"] or (f"event {r['event']}" if r["event"] is not None else "?")
        placed = "not placed" if r["placed"] is None else f"placed {r['placed']:.2f} ({r['anchored_by']})"
        lines.append(f"  miss: {where} {r['what']}: truth {r['truth']:.2f}, {placed}, "
                     f"error {fmt(r['error'])}")
    return lines


def format_eval(res: dict) -> str:
    lines = [f"vote recount accuracy: {res['recount_accuracy']:.2%} ({res['recount_agree']}/{res['recount_cells']} cells)",
             f"cells judged: {res['recount_verified']:.2%} ({res['recount_cells_verified']}/{res['recount_cells']}), "
             f"accuracy on them {res['recount_accuracy_verified']:.2%}",
             f"miscounts found: {res['miscounts_found']}/{res['miscounts_injected']} "
             f"(right impact: {res['miscounts_right_impact']}; not found but left unverified: "
             f"{res['miscounts_unverified']}; not found but their vote named at stake: "
             f"{res.get('miscounts_at_stake', 0)})",
             f"false incidents: {res['false_incidents']} in {res['video_hours'] * 60:.1f} min of video; "
             f"seat-intervals not judged: {res['abstentions']}",
             f"{'type':<16} {'tp':>4} {'fp':>4} {'fn':>4} {'precision':>10} {'recall':>8}"]
    for t, s in res["per_type"].items():
        p = "-" if s["precision"] is None else f"{s['precision']:.2f}"
        r = "-" if s["recall"] is None else f"{s['recall']:.2f}"
        lines.append(f"{t:<16} {s['tp']:>4} {s['fp']:>4} {s['fn']:>4} {p:>10} {r:>8}")
    if res.get("alignment"):
        lines.extend(format_alignment(res["alignment"]))
    return "\n".join(lines)


def true_incident_ids(game_dir: str | Path) -> set[str]:
    """The incidents of a game's analysis that report an injected (or implied) violation of
    its truth, matched as `evaluate` matches them: what a judge who knew the truth
    would confirm (scripts/eval_learning.py plays that judge)."""
    ws = GameWorkspace(game_dir)
    truth, inc_file, _ = _load(ws)
    used: set[str] = set()
    for v in truth.get("violations", []) + implied_miscounts(truth):
        hit = next((i for i in inc_file.incidents if i.id not in used and _matches(i, v)), None)
        if hit is not None:
            used.add(hit.id)
    return used
