"""Native protocol -> mafiaratings game JSON (version 1.3): the importer's counterpart.

A judge who recorded a game in mafvar can hand it to the rating platform, and
a platform record made here reads back through `engine.importers` into the
same game: the same exits, result, ballots, shots, checks and fouls (the
round trip is tested). The record is organised by player, per round
(docs/formats.md, "mafiaratings"): what the engine derives from the
protocol (who left, in which round and how; which pass each ballot belongs
to; who was counted by default) is written where the platform keeps it.

What the format cannot hold is refused, never dropped silently: a profile
other than the Maf Club rules (the format carries those rules, varied by a
13-digit code) or an option the code cannot express, a protocol the engine
cannot replay. The judge's announced counts and the protocol's times have no
place in the format and are left out (say so: `LEFT_OUT`).
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from engine.profiles import DEFAULT_PROFILE, MAFIARATINGS_DIGITS, Profile
from engine.protocol import (Bonus, DonCheck, Foul, Guess, Morning, Nightfall, Nominate, Protocol,
                             RaiseVote, Result, SheriffCheck, Shot, Speech, Vote, VoteAnnounce)
from engine.replay import Replay, replay
from engine.types import Severity

from ..importers.errors import ImportError_

LEFT_OUT = ("announced vote counts", "event times", "the camera list", "notes")


class ExportError(ImportError_):
    """The protocol cannot be written as a mafiaratings record; the message says why."""


def rules_code(profile: Profile) -> str:
    """The 13-digit code whose options, applied to the Maf Club rules, give `profile`'s."""
    if profile.name != DEFAULT_PROFILE:
        raise ExportError(f"profile {profile.name}: a mafiaratings record carries the {DEFAULT_PROFILE} rules "
                          f"(varied by its 13-digit code); this game's rules cannot be written there")
    opts = profile.options()
    digits = []
    for option, values in MAFIARATINGS_DIGITS:
        value = opts.get(option)
        if value not in values:
            raise ExportError(f"profile option {option} = {value!r} has no digit in a mafiaratings rules "
                              f"code (allowed: {', '.join(map(str, values))})")
        digits.append(str(values.index(value)))
    return "".join(digits)


class _Record:
    """The per-player lists being filled while walking the protocol once."""

    def __init__(self, protocol: Protocol, rep: Replay):
        self.protocol, self.rep = protocol, rep
        self.players: list[dict[str, Any]] = [{} for _ in range(10)]
        self.features: set[str] = set()

    def player(self, seat: int) -> dict[str, Any]:
        return self.players[seat - 1]

    def per_round(self, seat: int, key: str, r: int, value: Any, first_round: int = 0) -> None:
        lst = self.player(seat).setdefault(key, [])
        while len(lst) < r - first_round + 1:
            lst.append(None)
        lst[r - first_round] = value


def export_protocol(doc: dict) -> dict:
    """A mafiaratings record (dict) of a native protocol document."""
    from engine.protocol import ProtocolError, parse_protocol
    import json
    try:
        protocol = parse_protocol(json.dumps(doc))
    except ProtocolError as exc:
        raise ExportError(f"the protocol is not valid: {exc}") from None
    rep = replay(protocol)
    errors = [i for i in rep.issues if i.severity is Severity.ERROR]
    if errors:
        raise ExportError(f"the protocol breaks the rules and cannot be exported: {errors[0]}")
    return _export(protocol, rep)


def _export(protocol: Protocol, rep: Replay) -> dict:
    rec = _Record(protocol, rep)
    for s in protocol.seats:
        p = rec.player(s.seat)
        if s.name:
            p["name"] = s.name
        if s.role and s.role != "civ":
            p["role"] = s.role
    _walk(rec)
    _ballots(rec)
    for ex in rep.exits:
        death: dict[str, Any] = {"round": ex.round, "type": ex.type.value}
        rec.player(ex.seat)["death"] = death
        rec.features.update("dut")
        if ex.type.value not in ("day", "night"):
            death["time"] = _moment(rec, ex.event)
            rec.features.add("c")
    game = protocol.game or {}
    out: dict[str, Any] = {}
    source = game.get("source") or {}
    for name, key in (("id", "id"), ("tournament_id", "tournamentId"), ("event_id", "eventId"),
                      ("club_id", "clubId"), ("language", "language"), ("start_time", "startTime"),
                      ("end_time", "endTime")):
        if source.get(name) is not None:
            out[key] = source[name]
    if "startTime" not in out and game.get("date"):
        try:
            day = datetime.fromisoformat(str(game["date"])).replace(tzinfo=timezone.utc)
            out["startTime"] = int(day.timestamp())
        except ValueError:
            pass
    out["rules"] = rules_code(rep.profile)
    if rep.result is not None:
        out["winner"] = rep.result
    if game.get("judge") or source.get("moderator_id") is not None:
        out["moderator"] = {k: v for k, v in (("id", source.get("moderator_id")), ("name", game.get("judge")))
                            if v is not None}
    out["features"] = "".join(sorted(rec.features, key="agsdutclhvknwroi".index))
    out["players"] = rec.players
    return out


def _walk(rec: _Record) -> None:
    """Shots, checks, guesses, nominations, fouls, raise answers and bonuses, event by event."""
    states = rec.rep.states
    for i, ev in enumerate(rec.protocol.events):
        r = states[i].round if i < len(states) else 0
        if isinstance(ev, Shot):
            # one entry per night from night 1; a night without a shot stays null
            rec.per_round(ev.by, "shooting", r, ev.target, first_round=1)
            rec.features.add("h")
        elif isinstance(ev, DonCheck):
            rec.player(ev.target)["don"] = r
            rec.features.add("g")
        elif isinstance(ev, SheriffCheck):
            rec.player(ev.target)["sheriff"] = r
            rec.features.add("s")
        elif isinstance(ev, Guess):
            rec.player(ev.seat)["legacy"] = list(ev.targets)
            rec.features.add("l")
        elif isinstance(ev, Nominate):
            rec.per_round(ev.by, "nominating", r, ev.target)
            rec.features.add("n")
        elif isinstance(ev, Foul) and (ev.kind or "ordinary") == "ordinary":
            rec.player(ev.seat).setdefault("warnings", []).append(_moment(rec, i))
            rec.features.update("wr")
        elif isinstance(ev, Bonus):
            rec.player(ev.seat)["bonus"] = ev.points
        elif isinstance(ev, Result):
            pass


def _ballots(rec: _Record) -> None:
    """`voting[r]`: per player the candidate of each pass (null where they did not
    raise a fist: the engine counts them for the last candidate again), and the
    "all leave?" answer last."""
    passes: dict[int, dict[int, dict[int, int]]] = {}     # round -> pass -> voter -> candidate
    for call in rec.rep.vote_calls:
        per = passes.setdefault(call.round, {}).setdefault(call.pass_index, {})
        for v in call.voters or ():
            per[v] = call.candidate
    answers: dict[int, dict[int, bool]] = {}
    for rr in rec.rep.final.raises:
        ev = rec.protocol.events[rr.event] if rr.event is not None else None
        voters = getattr(ev, "voters", None) if isinstance(ev, RaiseVote) else None
        if voters is not None:
            answers[rr.round] = {s: s in voters for s in rr.eligible}
            rec.features.add("k")
    for r in sorted(set(passes) | set(answers)):
        n_passes = max(passes.get(r, {}).keys(), default=-1) + 1
        for seat in range(1, 11):
            ballots: list[Any] = [passes[r][p].get(seat) for p in range(n_passes)] if r in passes else []
            answer = answers.get(r, {}).get(seat)
            if all(b is None for b in ballots) and answer is None:
                continue
            if answer is not None:
                entry: Any = ballots + [answer]
            elif n_passes == 1:
                entry = ballots[0]
            else:
                entry = ballots
            rec.per_round(seat, "voting", r, entry)
        rec.features.add("v")


def _moment(rec: _Record, index: int | None) -> dict[str, Any]:
    """The game-time object of event `index`: the speech, tie speech or vote call it
    happened in, or the part of the night."""
    events = rec.protocol.events
    states = rec.rep.states
    if index is None or index >= len(events):
        return {"round": rec.rep.final.round, "time": "end"}
    r = states[index].round
    pass_of = {c.event: c.pass_index for c in rec.rep.vote_calls}

    def next_call() -> tuple[int, int] | None:
        """(candidate, pass) of the first vote call from `index` on, in this round."""
        for k in range(index, len(events)):
            if isinstance(events[k], (Nightfall, Result)):
                return None
            ev_k = events[k]
            if isinstance(ev_k, Vote):
                return ev_k.candidate, pass_of.get(k, 0)
        return None

    for j in range(index, -1, -1):
        ev = events[j]
        if isinstance(ev, Speech):
            kind = ev.kind or "normal"
            if kind == "tie":
                nxt = next_call()
                return {"round": r, "time": "speaking", "speaker": ev.seat,
                        "votingRound": nxt[1] if nxt is not None else 1}
            if kind == "last_word":
                return {"round": r, "time": "night kill speaking"}
            if kind == "farewell":
                return {"round": r, "time": "day kill speaking"}
            return {"round": r, "time": "speaking", "speaker": ev.seat}
        if isinstance(ev, (Vote, VoteAnnounce)):
            # inside the voting: the call under way, or the one about to be made
            call = (ev.candidate, pass_of.get(j, 0)) if isinstance(ev, Vote) and j != index else next_call()
            if call is None:
                return {"round": r, "time": "voting start"}
            return {"round": r, "time": "voting", "nominee": call[0], "votingRound": call[1]}
        if isinstance(ev, RaiseVote):
            return {"round": r, "time": "voting kill all"}
        if isinstance(ev, Morning):
            return {"round": r, "time": "night kill speaking"}
        if isinstance(ev, Guess):
            return {"round": r, "time": "night end"}
        if isinstance(ev, Shot):
            return {"round": r, "time": "shooting"}
        if isinstance(ev, DonCheck):
            return {"round": r, "time": "don"}
        if isinstance(ev, SheriffCheck):
            return {"round": r, "time": "sheriff"}
        if isinstance(ev, Nightfall):
            return {"round": r, "time": "night start"}
    return {"round": r, "time": "start"}
