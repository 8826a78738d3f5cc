"""mafiaratings game JSON (version 1.3) -> native protocol (docs/formats.md).

The record is organised by player; the native protocol is one ordered event
list. The game is rebuilt round by round: night (shots, checks, first-killed
guess), morning, speeches from the rotating opener with the nominations in
them, the vote calls in nomination order with each player's recorded ballot,
tie speeches and revotes, the "all leave?" vote, and fouls and removals at
their recorded game-time. The record's `death` fields are used only to know
who still speaks; outcomes are left for the engine to derive, except where
the record lacks the raw data (see `taken_from_record` in docs/formats.md), and
where the raw data disagrees with the record's own deaths: then the recorded
outcome stands (reconcile.py).
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from engine.profiles import DEFAULT_PROFILE, ProfileError, get_profile, mafiaratings_overrides
from engine.speaking import day_closer, day_opener
from mafvar.limits import LIMITS

from .assembly import Anchor, EventLog
from .deal_night import deal_night_wakes
from .shooting_calls import shooting_events
from .day import DayRecord, emit_day
from .errors import (ImportError_, read_list as _list, read_pass as _pass,
                     read_round as _round, read_rounds_list as _rounds, read_seat as _seat)
from .following import day_leavers, night_victim
from .reconcile import reconcile

ROLES = ("civ", "sheriff", "maf", "don")
DEATH_TYPES = ("day", "night", "warnings", "techFouls", "kickOut", "teamKickOut", "giveUp")
NIGHT_TIMES = ("start", "arrangement", "relaxed sitting", "night start", "shooting", "don",
               "sheriff", "night end")
DAY_TIMES = ("night kill speaking", "speaking", "voting start", "voting", "voting kill all",
             "day kill speaking")
GAME_TIMES = NIGHT_TIMES + DAY_TIMES + ("end",)


# ---------------------------------------------------------------- reading

def _players(data: dict) -> list[dict]:
    players = data.get("players")
    if players is None:
        raise ImportError_("mafiaratings record: field 'players' is missing")
    if not isinstance(players, list):
        raise ImportError_("mafiaratings record: 'players' must be a list of 10 players")
    if len(players) != 10:
        raise ImportError_(f"mafiaratings record: 'players' has {len(players)} entries, "
                           f"a game has exactly 10 (index i is seat i+1)")
    for i, p in enumerate(players):
        if not isinstance(p, dict):
            raise ImportError_(f"players[{i}] (seat {i + 1}): expected an object, "
                               f"got {type(p).__name__}")
        role = p.get("role", "civ")
        if role not in ROLES:
            raise ImportError_(f"players[{i}] (seat {i + 1}), field 'role': unknown role "
                               f"{role!r}; expected one of {', '.join(ROLES)}")
    return players


def _game_time(gt: Any, where: str) -> Anchor:
    """The anchor a game-time object names (see assembly.EventLog)."""
    if not isinstance(gt, dict):
        raise ImportError_(f"{where}: expected a game-time object, got {gt!r}")
    r = _round(gt.get("round"), f"{where}.round")
    time = gt.get("time")
    if time not in GAME_TIMES:
        raise ImportError_(f"{where}.time: unknown game-time {time!r}; expected one of "
                           f"{', '.join(GAME_TIMES)}")
    voting_round = gt.get("votingRound")
    if voting_round is not None:
        voting_round = _pass(voting_round, f"{where}.votingRound")
    if time == "speaking":
        speaker = _seat(gt.get("speaker"), f"{where}.speaker")
        if voting_round:  # a tie speech before revote `votingRound`
            return ("tie", r, voting_round, speaker)
        return ("speaking", r, speaker)
    if time == "voting":
        if gt.get("nominee") is not None:
            return ("vote", r, voting_round or 0, _seat(gt["nominee"], f"{where}.nominee"))
        if gt.get("speaker") is not None:
            return ("tie", r, voting_round or 1, _seat(gt["speaker"], f"{where}.speaker"))
        return ("voting start", r)
    return (time, r)


def _ballots(entry: Any, where: str) -> tuple[list[int | None], bool | None]:
    """A player's `voting` entry for one round: per-pass choices and the raise answer."""
    if entry is None:
        return [], None
    if isinstance(entry, bool):
        return [], entry
    if isinstance(entry, int):
        return [_seat(entry, where)], None
    if isinstance(entry, list):
        if len(entry) > LIMITS.max_passes + 1:
            raise ImportError_(f"{where}: {len(entry)} ballots in one round, beyond the limit "
                               f"of {LIMITS.max_passes} voting passes")
        items = list(entry)
        answer = None
        if items and isinstance(items[-1], bool):
            answer = items.pop()
        passes = [None if v is None else _seat(v, f"{where}[{k}]") for k, v in enumerate(items)]
        return passes, answer
    raise ImportError_(f"{where}: expected a seat, a list of seats or null, got {entry!r}")


# ---------------------------------------------------------------- conversion

def convert(data: dict) -> dict:
    if not isinstance(data, dict):
        raise ImportError_("mafiaratings record: expected a JSON object at the top level")
    players = _players(data)
    features = str(data.get("features") or "")
    rules = data.get("rules")
    try:
        overrides = mafiaratings_overrides(rules) if rules is not None else {}
        profile = get_profile(DEFAULT_PROFILE, overrides)
    except ProfileError as exc:
        raise ImportError_(f"mafiaratings record, field 'rules': {exc}") from None
    options = profile.options()

    seats = []
    for i, p in enumerate(players):
        entry: dict[str, Any] = {"seat": i + 1}
        if isinstance(p.get("name"), str):
            entry["name"] = p["name"]
        entry["role"] = p.get("role", "civ")
        seats.append(entry)

    game = _game_meta(data, rules, overrides)
    log = EventLog(fouls_to_remove=profile.fouls_to_remove,
                   tech_fouls_to_remove=profile.tech_fouls_to_remove,
                   technical_fouls=bool(profile.technical_fouls), third_foul=profile.third_foul)
    built = _Game(players, features, options, log, data.get("winner"))
    built.build()
    doc = {"format": "mafvar-protocol", "version": 1, "game": game, "seats": seats,
           "events": log.events}
    if not built.follow:
        # the record's own deaths stand over raw lists with gaps (reconcile.py)
        reconcile(doc, built.deaths)
    return doc


def _game_meta(data: dict, rules: Any, overrides: dict) -> dict:
    source: dict[str, Any] = {"platform": "mafiaratings"}
    for key, name in (("id", "id"), ("tournamentId", "tournament_id"), ("eventId", "event_id"),
                      ("clubId", "club_id"), ("features", "features"), ("language", "language"),
                      ("startTime", "start_time"), ("endTime", "end_time")):
        if data.get(key) is not None:
            source[name] = data[key]
    moderator = data.get("moderator")
    game: dict[str, Any] = {"profile": DEFAULT_PROFILE}
    if isinstance(moderator, dict):
        if moderator.get("id") is not None:
            source["moderator_id"] = moderator["id"]
        if isinstance(moderator.get("name"), str):
            game["judge"] = moderator["name"]
    date = _date(data.get("startTime"))
    if date:
        game["date"] = date
    if rules is not None:
        game["rules_code"] = str(rules)
    game["overrides"] = overrides
    game["source"] = source
    return game


def _date(value: Any) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, tz=timezone.utc).date().isoformat()
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).date().isoformat()
        except ValueError:
            return None
    return None


class _Game:
    """One record being laid out; holds the per-round views of the players' lists."""

    def __init__(self, players: list[dict], features: str, options: dict, log: EventLog,
                 winner: Any):
        self.p = players
        self.features = features
        self.options = options
        self.log = log
        if winner is not None and winner not in ("civ", "maf", "tie"):
            raise ImportError_(f"mafiaratings record, field 'winner': {winner!r} is not "
                               f"civ, maf or tie")
        self.winner = winner
        self.deaths: dict[int, dict] = {}
        self.dead: set[int] = set()  # left by day vote or night shot (record), for speech order
        self._read_deaths()
        # without death fields the importer follows shots and votes itself (following.py)
        self.follow = "d" not in features and not self.deaths
        self.roles = {i + 1: p.get("role", "civ") for i, p in enumerate(players)}
        self.last_round = self._last_round()

    # ----------------------------------------------------------- record views
    def _read_deaths(self) -> None:
        for i, p in enumerate(self.p):
            death = p.get("death")
            if death is None:
                continue
            where = f"players[{i}] (seat {i + 1}).death"
            if not isinstance(death, dict):
                raise ImportError_(f"{where}: expected an object, got {death!r}")
            kind = death.get("type")
            if kind not in DEATH_TYPES:
                raise ImportError_(f"{where}.type: unknown death type {kind!r}; expected one of "
                                   f"{', '.join(DEATH_TYPES)}")
            _round(death.get("round"), f"{where}.round")
            self.deaths[i + 1] = death

    def _last_round(self) -> int:
        last = 0
        for i, p in enumerate(self.p):
            where = f"players[{i}] (seat {i + 1})"
            last = max(last, len(_rounds(p.get("nominating"), f"{where}.nominating")) - 1,
                       len(_rounds(p.get("voting"), f"{where}.voting")) - 1,
                       len(_rounds(p.get("shooting"), f"{where}.shooting", 0)))
            for key in ("don", "sheriff"):
                if p.get(key) is not None:
                    last = max(last, _round(p[key], f"{where}.{key}", 1))
            for k, w in enumerate(_list(p.get("warnings"), f"{where}.warnings")):
                last = max(last, _game_time(w, f"{where}.warnings[{k}]")[1])
        for d in self.deaths.values():
            last = max(last, d["round"])
        return last

    def round_list(self, seat: int, key: str, r: int) -> Any:
        values = _list(self.p[seat - 1].get(key), f"players[{seat - 1}] (seat {seat}).{key}")
        return values[r] if r < len(values) else None

    def is_out(self, seat: int) -> bool:
        return seat in self.dead or seat in self.log.gone

    def alive(self) -> set[int]:
        return {s for s in range(1, 11) if not self.is_out(s)}

    def has_day_data(self, r: int) -> bool:
        for seat in range(1, 11):
            if self.round_list(seat, "nominating", r) is not None:
                return True
            if self.round_list(seat, "voting", r) is not None:
                return True
            d = self.deaths.get(seat)
            if d and d["round"] == r and d["type"] == "day":
                return True
        # the morning last word ("night kill speaking") happens even when the night ended the game
        return any(a[0] in DAY_TIMES + ("tie", "vote") and a[0] != "night kill speaking"
                   and a[1] == r for a in self.log.pending_anchors())

    # ----------------------------------------------------------- building
    def build(self) -> None:
        self._defer_fouls_and_removals()
        opener = closer = None
        order: tuple[int, ...] = ()
        for r in range(self.last_round + 1):
            self._night(r)
            is_last = r == self.last_round
            if is_last and not self.has_day_data(r) and self.winner != "tie":
                break  # the game ended with the night (or the record stops there)
            opener = day_opener(r, self.alive(), self.options["opener_rotation"],
                                self.options["first_day_opener"], opener, closer, order)
            day = self._day_record(r)
            outcome = emit_day(self.log, day, opener=opener, alive=self.alive(),
                               options=self.options, is_out=self.is_out)
            order = outcome.order
            closer = day_closer(opener, order)
            if self.follow:
                last_pass = day.passes[-1] if day.passes else {}
                self.dead.update(day_leavers(outcome, r, len(self.alive()), self.options,
                                             last_pass))
            self._day_deaths(r)
            self.log.place(("day kill speaking", r))
            self.log.place_matching(lambda a, r=r: a[1] == r and a[0] != "end")
        self.log.place_matching(lambda a: True)
        if self.winner is not None:
            self.log.emit({"type": "result", "winner": self.winner})
        self._bonuses()

    def _bonuses(self) -> None:
        """Judge's extra points and remarks, after the result (they are given then)."""
        for seat in range(1, 11):
            p = self.p[seat - 1]
            bonus = p.get("bonus")
            for item in bonus if isinstance(bonus, list) else [bonus]:
                if item is None:
                    continue
                if isinstance(item, (int, float)) and not isinstance(item, bool) \
                        and -10 <= item <= 10:
                    self.log.emit({"type": "bonus", "seat": seat, "points": item,
                                   "reason": "other"})
                else:  # a title ("bestPlayer", ...) carries no points in the record
                    self.log.note(f"mafiaratings bonus of seat {seat}: {item!r}")
            if isinstance(p.get("comment"), str) and p["comment"].strip():
                self.log.note(f"judge's comment on seat {seat}: {p['comment'].strip()}")

    def _defer_fouls_and_removals(self) -> None:
        for i, p in enumerate(self.p):
            seat = i + 1
            warnings = _list(p.get("warnings"), f"players[{i}] (seat {seat}).warnings")
            for k, w in enumerate(warnings):
                anchor = _game_time(w, f"players[{i}] (seat {seat}).warnings[{k}]")
                self.log.defer(anchor, {"type": "foul", "seat": seat}, (seat, 0, k))
            death = self.deaths.get(seat)
            if death is None or death["type"] in ("day", "night"):
                continue
            where = f"players[{i}] (seat {seat}).death.time"
            anchor = (_game_time(death["time"], where) if death.get("time") is not None
                      else ("round end", death["round"]))
            for event in self._removal_events(seat, death, len(warnings)):
                self.log.defer(anchor, event, (seat, 1))

    def _removal_events(self, seat: int, death: dict, n_warnings: int) -> list[dict]:
        kind, r = death["type"], death["round"]
        if kind == "warnings":
            missing = self.log.fouls_to_remove - n_warnings
            # the record says "removed for fouls" but lists fewer fouls: the
            # missing ones are stated, marked, so the engine reaches the removal
            return [{"type": "foul", "seat": seat, "taken_from_record": True,
                     "note": f"foul missing from the record's warnings list; the record "
                             f"removes seat {seat} for fouls in round {r}"}
                    for _ in range(max(0, missing))]
        if kind == "techFouls":
            # mafiaratings keeps no list of technical fouls, only the removal; the
            # engine reaches the techFouls exit from the stated fouls (and audits
            # them when the rules code has no technical fouls)
            return [{"type": "foul", "seat": seat, "kind": "technical", "taken_from_record": True,
                     "note": f"technical foul not listed in the record; the record removes "
                             f"seat {seat} for technical fouls in round {r}"}
                    for _ in range(self.log.tech_fouls_to_remove)]
        if kind == "giveUp":
            return [{"type": "give_up", "seat": seat}]
        event = {"type": "removal", "seat": seat, "reason": kind}
        if kind == "teamKickOut":
            event["team"] = True
        return [event]

    def _night(self, r: int) -> None:
        log = self.log
        if r == 0:
            log.place(("start", 0))
        log.emit({"type": "nightfall"})
        log.place(("night start", r))
        if r == 0:
            for ev in deal_night_wakes(self.options):
                log.emit(ev)
            log.place(("arrangement", 0))
            log.place(("relaxed sitting", 0))
        else:
            shots = []
            for seat in range(1, 11):
                target = self.round_list(seat, "shooting", r - 1)
                if target is not None:
                    shots.append((seat, _seat(target, f"players[{seat - 1}] (seat {seat})"
                                                      f".shooting[{r - 1}]")))
            for ev in shooting_events(self.alive(), shots):
                log.emit(ev)
            if self.follow:
                victim = night_victim(shots, self.alive(), self.roles)
                if victim is not None:
                    self.deaths[victim] = {"round": r, "type": "night"}
            log.place(("shooting", r))
            for key, event_type in (("don", "don_check"), ("sheriff", "sheriff_check")):
                for seat in range(1, 11):
                    if self.p[seat - 1].get(key) == r:
                        log.emit({"type": event_type, "target": seat})
                log.place((key, r))
            self._guess(r)
        log.place(("night end", r))
        log.emit({"type": "morning"})
        for seat, d in self.deaths.items():
            if d["type"] == "night" and d["round"] == r:
                self.dead.add(seat)
        log.place(("night kill speaking", r))

    def _guess(self, r: int) -> None:
        for seat in range(1, 11):
            legacy = self.p[seat - 1].get("legacy")
            if legacy is None:
                continue
            death = self.deaths.get(seat)
            # the guess belongs to the night its author was killed (round 1 when unknown)
            when = death["round"] if death and death["type"] == "night" else 1
            if when != r:
                continue
            where = f"players[{seat - 1}] (seat {seat}).legacy"
            targets = [_seat(v, f"{where}[{k}]") for k, v in enumerate(_list(legacy, where))]
            if not 1 <= len(targets) <= 3:
                raise ImportError_(f"{where}: expected 1 to 3 seats, got {len(targets)}")
            self.log.emit({"type": "guess", "seat": seat, "targets": targets})

    def _day_record(self, r: int) -> DayRecord:
        day = DayRecord(round=r, raise_recorded="k" in self.features)
        n_passes = 0
        per_seat: dict[int, list[int | None]] = {}
        answers: dict[int, bool] = {}
        for seat in range(1, 11):
            where = f"players[{seat - 1}] (seat {seat})"
            target = self.round_list(seat, "nominating", r)
            if target is not None:
                day.nominations[seat] = _seat(target, f"{where}.nominating[{r}]")
            passes, answer = _ballots(self.round_list(seat, "voting", r), f"{where}.voting[{r}]")
            per_seat[seat] = passes
            n_passes = max(n_passes, len(passes))
            if answer is not None:
                answers[seat] = answer
        day.passes = [{seat: ch[k] for seat, ch in per_seat.items()
                       if k < len(ch) and ch[k] is not None} for k in range(n_passes)]
        if answers:
            day.raise_yes = [s for s, yes in answers.items() if yes]
        if not self.follow:
            day.raise_passed_in_record = lambda tied, r=r: all(
                self.deaths.get(s, {}).get("type") == "day" and self.deaths[s]["round"] == r
                for s in tied)
        day.last_word_nominators = tuple(
            s for s in day.nominations
            if self.deaths.get(s, {}).get("type") == "night" and self.deaths[s]["round"] == r)
        return day

    def _day_deaths(self, r: int) -> None:
        for seat, d in self.deaths.items():
            if d["type"] == "day" and d["round"] == r:
                self.dead.add(seat)
