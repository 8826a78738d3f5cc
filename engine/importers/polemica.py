"""polemica game JSON -> native protocol (docs/formats.md).

polemica stores the game as flat lists: `votes` rows by day and pass, `shots`
and `checks` by night, fouls with the stage they happened in and a wall-clock
time. Days are numbered from 1 (day d is round d-1), nights from 1 (night n is
round n). Rows of `votes` with `num` 0 are the day's nominations (voter =
nominator, candidate = nominee), `num` k >= 1 is voting pass k, and rows with
no `num` are the ayes of the "all leave?" (lift) vote. polemica keeps no death
fields, so the importer follows shots and votes itself only to know who still
speaks; the engine derives the outcomes.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from engine.profiles import DEFAULT_PROFILE, ProfileError, get_profile
from engine.speaking import day_closer, day_opener

from .assembly import Anchor, EventLog
from .deal_night import deal_night_wakes
from .shooting_calls import shooting_events
from .day import DayResult, DayRecord, emit_day
from .errors import (ImportError_, read_int as _int, read_list as _list, read_pass as _pass,
                     read_round as _round, read_seat as _seat)
from .following import day_leavers, night_victim

ROLES = {0: "don", 1: "maf", 2: "civ", 3: "sheriff"}
RESULTS = {0: "civ", 1: "maf", 2: "tie"}
# polemica `zeroVoting` -> the first-day option (README: `firstVoting`). The
# polemica client library treats all three as "a single leader does not leave
# on day 1"; only the lift (raise) vote can remove players then.
ZERO_VOTING = {"respeech": "to-talk", "liftOnly": "no-break", "none": "no-break"}
NIGHT_STAGES = ("shooting", "donCheck", "comCheck", "guess", "comKill")
DAY_STAGES = ("speech", "voting", "voted", "shooted", "reSpeech", "lift")
SETUP_STAGES = ("dealing", "briefing", "comIntro")


# ---------------------------------------------------------------- reading

def _obj(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise ImportError_(f"{where}: expected an object, got {value!r}")
    return value


def _stamp(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return stamp.replace(tzinfo=None)


def _players(data: dict) -> dict[int, dict]:
    players = data.get("players")
    if players is None:
        raise ImportError_("polemica record: field 'players' is missing")
    if not isinstance(players, list):
        raise ImportError_("polemica record: 'players' must be a list of 10 players")
    if len(players) != 10:
        raise ImportError_(f"polemica record: 'players' has {len(players)} entries, "
                           f"a game has exactly 10")
    by_seat: dict[int, dict] = {}
    for i, p in enumerate(players):
        where = f"players[{i}]"
        _obj(p, where)
        seat = _seat(p.get("position"), f"{where}.position")
        if seat in by_seat:
            raise ImportError_(f"{where}.position: seat {seat} appears twice")
        role = p.get("role")
        if not isinstance(role, int) or isinstance(role, bool) or role not in ROLES:
            raise ImportError_(f"{where} (seat {seat}), field 'role': unknown role {role!r}; "
                               f"expected 0 (Don), 1 (mafia), 2 (civilian) or 3 (Sheriff)")
        by_seat[seat] = p
    return by_seat


def _stage_anchor(stage: Any, where: str) -> Anchor:
    """The anchor a polemica stage object names (see assembly.EventLog)."""
    stage = _obj(stage, where)
    kind = stage.get("type")
    day = _round(stage.get("day", 0), f"{where}.day")
    player = stage.get("player")
    if player is not None:
        player = _seat(player, f"{where}.player")
    voting = stage.get("voting")
    if voting is not None:
        voting = _pass(voting, f"{where}.voting")
    r = max(day - 1, 0)
    if kind == "speech" and player is not None:
        return ("speaking", r, player)
    if kind == "shooted":
        return ("night kill speaking", r)
    if kind == "voted":
        return ("day kill speaking", r)
    if kind == "reSpeech" and player is not None:
        return ("tie", r, voting or 1, player)
    if kind == "voting":
        if player is not None:
            return ("vote", r, max((voting or 1) - 1, 0), player)
        return ("voting start", r)
    if kind == "lift":
        return ("voting kill all", r)
    if kind in NIGHT_STAGES:  # a night stage's `day` is the night's number
        return ({"shooting": "shooting", "donCheck": "don", "comCheck": "sheriff",
                 "guess": "guess", "comKill": "night end"}[kind], day)
    if kind in SETUP_STAGES:
        return ("night start", 0)
    if kind == "gameOver":
        return ("end", day)
    return ("round end", r)  # unknown stage: end of that day, never dropped


# ---------------------------------------------------------------- conversion

def convert(data: dict) -> dict:
    if not isinstance(data, dict):
        raise ImportError_("polemica record: expected a JSON object at the top level")
    players = _players(data)
    zero = data.get("zeroVoting")
    overrides: dict[str, Any] = {"opener_rotation": "next"}
    if zero is not None:
        if not isinstance(zero, str) or zero not in ZERO_VOTING:
            raise ImportError_(f"polemica record, field 'zeroVoting': unknown value {zero!r}; "
                               f"expected one of {', '.join(ZERO_VOTING)}")
        overrides["first_day_voting"] = ZERO_VOTING[zero]
    try:
        profile = get_profile(DEFAULT_PROFILE, overrides)
    except ProfileError as exc:  # pragma: no cover - the table above is fixed
        raise ImportError_(f"polemica record: {exc}") from None

    seats = []
    for seat in range(1, 11):
        p = players[seat]
        entry: dict[str, Any] = {"seat": seat}
        if isinstance(p.get("username"), str):
            entry["name"] = p["username"]
        entry["role"] = ROLES[p["role"]]
        seats.append(entry)

    log = EventLog(fouls_to_remove=profile.fouls_to_remove,
                   tech_fouls_to_remove=profile.tech_fouls_to_remove,
                   technical_fouls=bool(profile.technical_fouls), third_foul=profile.third_foul)
    game = _Game(data, players, profile.options(), log)
    game.build()
    meta = _game_meta(data, overrides, game.zero)
    return {"format": "mafvar-protocol", "version": 1, "game": meta, "seats": seats,
            "events": log.events}


def _game_meta(data: dict, overrides: dict, zero: datetime | None) -> dict:
    game: dict[str, Any] = {}
    for key, name in (("table", "table"), ("num", "number")):
        value = data.get(key)
        if isinstance(value, (int, str)) and not isinstance(value, bool):
            game[name] = value
    started = _stamp(data.get("started"))
    if started:
        game["date"] = started.date().isoformat()
    referee = data.get("referee")
    if isinstance(referee, dict) and isinstance(referee.get("username"), str):
        game["judge"] = referee["username"]
    game["profile"] = DEFAULT_PROFILE
    game["overrides"] = overrides
    source: dict[str, Any] = {"platform": "polemica"}
    for key, name in (("id", "id"), ("master", "master"), ("phase", "phase"),
                      ("isLive", "is_live"), ("zeroVoting", "zero_voting"), ("stage", "stage"),
                      ("scoringVersion", "scoring_version")):
        if data.get(key) is not None:
            source[name] = data[key]
    if zero is not None:
        source["t_zero"] = zero.isoformat()  # protocol clock 0 (event `t` counts from here)
    game["source"] = source
    return game


class _Game:
    def __init__(self, data: dict, players: dict[int, dict], options: dict, log: EventLog):
        self.data, self.p, self.options, self.log = data, players, options, log
        self.roles = {s: ROLES[p["role"]] for s, p in players.items()}
        self.dead: set[int] = set()
        self.zero = self._clock_zero()
        self.days = self._read_votes()
        self.shots = self._read_by_night("shots", ("shooter", "victim"))
        self.checks = self._read_by_night("checks", ("role", "player"))
        self.stage = self._read_stage()
        result = data.get("result")
        if result is not None and (not isinstance(result, int) or isinstance(result, bool)
                                   or result not in RESULTS):
            raise ImportError_(f"polemica record, field 'result': {result!r} is not "
                               f"0 (red win), 1 (black win) or null (live)")
        self.winner = RESULTS.get(result) if result is not None else None
        self.first_killed: int | None = None

    # ----------------------------------------------------------- record views
    def _clock_zero(self) -> datetime | None:
        stamps = [s for s in (_stamp(v) for v in self._all_stamps()) if s]
        started = _stamp(self.data.get("started"))
        if started and (not stamps or started <= min(stamps)):
            return started
        return min(stamps) if stamps else None

    def _all_stamps(self):
        yield from _list(self.data.get("timing"), "timing")
        for seat, p in self.p.items():
            for key in ("fouls", "techs"):
                for f in _list(p.get(key), f"player seat {seat}.{key}"):
                    if isinstance(f, dict):
                        yield f.get("time")

    def t(self, value: Any) -> float | None:
        stamp = _stamp(value)
        if stamp is None or self.zero is None:
            return None
        return round(max((stamp - self.zero).total_seconds(), 0.0), 3)

    def _read_votes(self) -> dict[int, DayRecord]:
        days: dict[int, DayRecord] = {}
        passes: dict[int, dict[int, dict[int, int]]] = {}
        for i, row in enumerate(_list(self.data.get("votes"), "votes")):
            where = f"votes[{i}]"
            _obj(row, where)
            day = _round(row.get("day"), f"{where}.day", 1)
            voter = _seat(row.get("voter"), f"{where}.voter")
            rec = days.setdefault(day, DayRecord(round=day - 1, raise_recorded=True))
            num = row.get("num")
            if num is None:  # the lift vote: `candidate` carries no seat meaning there
                rec.raise_yes = (rec.raise_yes or []) + [voter]
                continue
            num = _pass(num, f"{where}.num")
            candidate = _seat(row.get("candidate"), f"{where}.candidate")
            if num == 0:
                if voter in rec.nominations:
                    raise ImportError_(f"{where}: seat {voter} has a second nomination on "
                                       f"day {day} (num 0)")
                rec.nominations[voter] = candidate
            else:
                ballots = passes.setdefault(day, {}).setdefault(num, {})
                if voter in ballots:
                    raise ImportError_(f"{where}: seat {voter} votes twice in pass {num} of "
                                       f"day {day}")
                ballots[voter] = candidate
        for day, by_num in passes.items():
            last = max(by_num)
            days[day].passes = [by_num.get(k, {}) for k in range(1, last + 1)]
        return days

    def _read_by_night(self, key: str, fields: tuple[str, str]) -> dict[int, list[tuple[int, int]]]:
        out: dict[int, list[tuple[int, int]]] = {}
        for i, row in enumerate(_list(self.data.get(key), key)):
            where = f"{key}[{i}]"
            _obj(row, where)
            night = _round(row.get("night"), f"{where}.night", 1)
            a, b = fields
            first = (_int(row.get(a), f"{where}.{a}") if a == "role"
                     else _seat(row.get(a), f"{where}.{a}"))
            if a == "role" and first not in (0, 3):
                raise ImportError_(f"{where}.role: {first} is not 0 (Don) or 3 (Sheriff)")
            out.setdefault(night, []).append((first, _seat(row.get(b), f"{where}.{b}")))
        return out

    def _read_stage(self) -> tuple[str, int, int | None] | None:
        stage = self.data.get("stage")
        if stage is None:
            return None
        stage = _obj(stage, "stage")
        kind = stage.get("type")
        day = _round(stage.get("day", 0), "stage.day")
        player = stage.get("player")
        return (str(kind), day, player if isinstance(player, int) else None)

    def last_round(self) -> int:
        last = max([0] + [d - 1 for d in self.days] + list(self.shots) + list(self.checks))
        if self.stage and self.stage[0] not in ("gameOver",):
            last = max(last, self.stage[1] if self.stage[0] in NIGHT_STAGES
                       else self.stage[1] - 1)
        return last

    def is_out(self, seat: int) -> bool:
        return seat in self.dead or seat in self.log.gone

    def alive(self) -> set[int]:
        return {s for s in range(1, 11) if not self.is_out(s)}

    # ----------------------------------------------------------- building
    def build(self) -> None:
        self._defer_fouls()
        live = self.stage is not None and self.stage[0] != "gameOver" and self.winner is None
        stage_kind, stage_day = (self.stage[0], self.stage[1]) if self.stage else ("", 0)
        last = self.last_round()
        opener = closer = None
        order: tuple[int, ...] = ()
        for r in range(last + 1):
            night_is_current = live and stage_kind in NIGHT_STAGES + SETUP_STAGES and (
                stage_day == r or (stage_kind in SETUP_STAGES and r == 0))
            self._night(r, end=not night_is_current)
            if night_is_current:
                break
            day_is_current = live and stage_kind in DAY_STAGES and stage_day - 1 == r
            if r == last and not live and not self._has_day(r):
                break  # the game ended with the night
            opener = day_opener(r, self.alive(), self.options["opener_rotation"],
                                self.options["first_day_opener"], opener, closer, order)
            stop = None
            if day_is_current and stage_kind in ("speech", "shooted"):
                stop = self.stage[2] if stage_kind == "speech" else 0
            outcome = emit_day(self.log, self.days.get(r + 1, DayRecord(round=r)),
                               opener=opener, alive=self.alive(), options=self.options,
                               is_out=self.is_out, stop_after_speaker=stop)
            order = outcome.order
            closer = day_closer(opener, order)
            self._note_nomination_order(r, outcome)
            if day_is_current:
                break
            rec = self.days.get(r + 1)
            last_pass = rec.passes[-1] if rec and rec.passes else {}
            self.dead.update(day_leavers(outcome, r, len(self.alive()), self.options, last_pass))
            self.log.place(("day kill speaking", r))
            self.log.place_matching(lambda a, r=r: a[1] == r and a[0] not in ("end",)
                                    and not _night_anchor(a))
        self.log.place_matching(lambda a: a[0] != "end")
        self._other_guesses()
        self.log.place_matching(lambda a: True)
        if self.winner is not None:
            self.log.emit({"type": "result", "winner": self.winner})
        self._bonuses()

    def _bonuses(self) -> None:
        for i, row in enumerate(_list(self.data.get("bonuses"), "bonuses")):
            where = f"bonuses[{i}]"
            row = _obj(row, where)
            seat = _seat(row.get("position"), f"{where}.position")
            points = row.get("points", row.get("value"))
            text = row.get("text")
            if isinstance(points, (int, float)) and not isinstance(points, bool) \
                    and -10 <= points <= 10:
                self.log.emit({"type": "bonus", "seat": seat, "points": points, "reason": "other"})
            if isinstance(text, str) and text.strip():
                self.log.note(f"polemica bonus of seat {seat}: {text.strip()}")

    def _note_nomination_order(self, r: int, out: DayResult) -> None:
        """polemica lists a day's nominations in entry order; say so when it is not the speaking order."""
        rec = self.days.get(r + 1)
        if rec is None:
            return
        listed = [c for c in rec.nominations.values() if c in out.candidates]
        if listed != out.candidates:
            self.log.note(f"polemica lists day {r + 1}'s nominations in the order {listed}; "
                          f"this protocol follows the speaking order {out.candidates}")

    def _has_day(self, r: int) -> bool:
        return r + 1 in self.days or any(
            a[1] == r and not _night_anchor(a) and a[0] not in ("night kill speaking", "end")
            for a in self.log.pending_anchors())

    def _defer_fouls(self) -> None:
        for seat, p in self.p.items():
            for key, kind in (("fouls", None), ("techs", "technical")):
                for k, f in enumerate(_list(p.get(key), f"player seat {seat}.{key}")):
                    where = f"player seat {seat}.{key}[{k}]"
                    f = _obj(f, where)
                    anchor = _stage_anchor(f.get("stage"), f"{where}.stage")
                    event: dict[str, Any] = {"type": "foul", "seat": seat}
                    if kind:
                        event["kind"] = kind
                    t = self.t(f.get("time"))
                    if t is not None:
                        event["t"] = t
                    self.log.defer(anchor, event, (t if t is not None else float("inf"), seat))
            disqual = p.get("disqual")
            if disqual:
                where = f"player seat {seat}.disqual"
                dq = _obj(disqual, where)
                if dq.get("stage") is not None:
                    anchor = _stage_anchor(dq["stage"], f"{where}.stage")
                else:
                    anchor = ("round end", max(_round(dq.get("day", 1), f"{where}.day") - 1, 0))
                event = {"type": "removal", "seat": seat, "reason": "disqual"}
                t = self.t(dq.get("time"))
                if t is not None:
                    event["t"] = t
                self.log.defer(anchor, event, (t if t is not None else float("inf"), seat, 1))

    def _night(self, r: int, end: bool) -> None:
        log = self.log
        timing = _list(self.data.get("timing"), "timing")
        fall: dict[str, Any] = {"type": "nightfall"}
        t = self.t(timing[2 * r - 1]) if r >= 1 and 2 * r - 1 < len(timing) else None
        if t is not None:
            fall["t"] = t
        log.emit(fall)
        log.place(("night start", r))
        if r == 0:
            for ev in deal_night_wakes(self.options):
                log.emit(ev)
        if r >= 1:
            shots = sorted(self.shots.get(r, []))
            if end or (self.stage is not None and self.stage[0] != "shooting"):
                for ev in shooting_events(self.alive(), shots):
                    log.emit(ev)
            else:
                # a live record stopped during the shooting: how far the calls went is not known
                for shooter, victim in shots:
                    log.emit({"type": "shot", "by": shooter, "target": victim})
            log.place(("shooting", r))
            for role, kind, anchor in ((0, "don_check", "don"), (3, "sheriff_check", "sheriff")):
                for who, target in self.checks.get(r, []):
                    if who == role:
                        log.emit({"type": kind, "target": target})
                log.place((anchor, r))
            victim = night_victim(shots, self.alive(), self.roles)
            if victim is not None and self.first_killed is None:
                self.first_killed = victim
                self._first_guess(victim)
            log.place(("guess", r))
            if not end:
                return
            log.place(("night end", r))
            morning: dict[str, Any] = {"type": "morning"}
            t = self.t(timing[2 * r]) if 2 * r < len(timing) else None
            if t is not None:
                morning["t"] = t
            log.emit(morning)
            if victim is not None:
                self.dead.add(victim)
        else:
            if not end:
                return
            morning = {"type": "morning"}
            t = self.t(timing[0]) if timing else None
            if t is not None:
                morning["t"] = t
            log.emit(morning)
        log.place(("night kill speaking", r))

    def _first_guess(self, seat: int) -> None:
        guess = self.p[seat].get("guess")
        if not isinstance(guess, dict):
            return
        mafs = [_seat(v, f"player seat {seat}.guess.mafs") for v in _list(guess.get("mafs"),
                                                                          "guess.mafs")]
        if 1 <= len(mafs) <= 3:
            self.log.emit({"type": "guess", "seat": seat, "targets": mafs})

    def _other_guesses(self) -> None:
        """polemica also keeps last-word guesses; the native format has no event for them."""
        for seat, p in sorted(self.p.items()):
            guess = p.get("guess")
            if not isinstance(guess, dict) or not guess:
                continue
            if seat == self.first_killed and guess.get("mafs"):
                parts = {k: v for k, v in guess.items() if k != "mafs"}
                if not parts:
                    continue
            else:
                parts = guess
            text = ", ".join(f"{k} {v}" for k, v in sorted(parts.items()))
            self.log.note(f"polemica guess of seat {seat}: {text}")


def _night_anchor(anchor: Anchor) -> bool:
    return anchor[0] in ("night start", "shooting", "don", "sheriff", "guess", "night end")
