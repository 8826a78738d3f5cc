"""A short scripted game for synthetic footage, drawn from a seed.

The committed sample must show, in 2-4 minutes: two days with votes (one a
tie), two shooting nights (a kill and a miss) with checks, and a vote where one
missed fist changes who leaves. A random legal game rarely has all of that in
its first rounds, so the shape is scripted here and only the details (roles,
who nominates whom, who votes for whom, targets) come from the seed:

* N0: deal night (mafia, Don and Sheriff wakes).
* D1: ten speeches, two nominations, a 5:5 tie (incl. one default vote), tie
  speeches, a revote that eliminates the first candidate, farewell.
  With `forbidden_raise` the revote ties again and the judge holds an "all
  leave?" vote although the tournament (override `first_day_raise_max: 0`)
  forbids raising on day 1; it fails and nobody leaves (a judge error the
  engine's audit reports as `raise_forbidden`).
* N1: a kill (every mafioso shoots the same red civilian), Don and Sheriff
  checks, the first-killed player's guess.
* D2: the last word, speeches, three nominations; the judge's ballots are
  X=3, Y=n-7, Z=4 with at least one default vote on Z, so a single fist for X
  the judge missed (the miscount injection) would have eliminated X, not Z.
* N2: a miss (the mafiosi shoot different seats), checks; the game is left
  unfinished at the morning of D3 (a live record: no `result`).

The protocol is the judge's record without times (`timing` adds them).
"""
from __future__ import annotations

import random

from engine.profiles import DEFAULT_PROFILE

from .rng import stream
from .voting import profile_options


def _profile_option(profile: str, name: str):
    return profile_options(profile).get(name)

NAMES = (
    "Anna", "Boris", "Vera", "Gleb", "Daria", "Egor", "Zhanna", "Ilya",
    "Kira", "Lev", "Mila", "Nikita", "Olga", "Pavel", "Rita", "Semyon",
    "Tanya", "Fyodor", "Yana", "Artem",
)


# A tournament rule (a profile override) forbidding any raise on the first day.
FORBID_DAY1_RAISE = {"first_day_raise_max": 0}


class _Table:
    """Who is alive and the opener bookkeeping while the script is written."""

    def __init__(self, roles: dict[int, str]):
        self.roles = roles
        self.alive = list(range(1, 11))
        self.prev_opener: int | None = None
        self.prev_closer: int | None = None

    def reds(self, exclude=()) -> list[int]:
        return [s for s in self.alive if self.roles[s] in ("civ", "sheriff") and s not in exclude]

    def blacks(self) -> list[int]:
        return [s for s in self.alive if self.roles[s] in ("maf", "don")]

    def next_alive(self, seat: int) -> int:
        for k in range(1, 11):
            s = (seat - 1 + k) % 10 + 1
            if s in self.alive:
                return s
        raise ValueError("nobody alive")

    def prev_alive(self, seat: int) -> int:
        for k in range(1, 11):
            s = (seat - 1 - k) % 10 + 1
            if s in self.alive:
                return s
        raise ValueError("nobody alive")

    def speaking_order(self) -> list[int]:
        # MC 2.5.8: next living seat after the previous opener, shifted once more
        # if the seat before it closed the previous day.
        if self.prev_opener is None:
            opener = 1 if 1 in self.alive else self.next_alive(1)
        else:
            opener = self.next_alive(self.prev_opener)
            if self.prev_closer is not None and self.prev_alive(opener) == self.prev_closer:
                opener = self.next_alive(opener)
        order = [opener]
        while len(order) < len(self.alive):
            order.append(self.next_alive(order[-1]))
        self.prev_opener, self.prev_closer = opener, order[-1]
        return order


def _speech(seat: int, rng: random.Random, kind: str = "normal") -> dict:
    ev = {"type": "speech", "seat": seat}
    if kind != "normal":
        ev["kind"] = kind
    ev["end"] = rng.choice(("pass", "pass", "thanks"))
    return ev


def _day_speeches(table: _Table, rng: random.Random, noms: list[int]) -> list[dict]:
    """Speeches of a day; the first speakers nominate `noms` in order."""
    order = table.speaking_order()
    speakers = sorted(rng.sample(order[: max(len(noms) + 2, 6)], len(noms)), key=order.index)
    events: list[dict] = []
    for seat in order:
        events.append(_speech(seat, rng))
        if seat in speakers:
            events.append({"type": "nominate", "by": seat, "target": noms[speakers.index(seat)]})
    return events


def _vote_calls(candidates: list[int], ballots: dict[int, list[int]], defaults: list[int]) -> list[dict]:
    """`ballots[c]` = the seats the judge saw placing a fist for c; the last
    candidate's announced count also includes every default (non-voter)."""
    out = []
    for c in candidates:
        extra = len(defaults) if c == candidates[-1] else 0
        out.append({"type": "vote", "candidate": c, "announced": len(ballots[c]) + extra,
                    "voters": sorted(ballots[c])})
    return out


def _ballots(eligible: list[int], counts: list[int], candidates: list[int],
             abstainers: int, rng: random.Random, avoid_default: tuple[int, ...] = ()) -> tuple[dict, list[int]]:
    """Deal eligible voters into candidates with the given announced counts.
    The last candidate's count includes `abstainers` seats placing no fist."""
    assert sum(counts) == len(eligible)
    pool = list(eligible)
    rng.shuffle(pool)
    ballots: dict[int, list[int]] = {}
    for c, n in zip(candidates, counts):
        ballots[c], pool = pool[:n], pool[n:]
    last = candidates[-1]
    # Defaults: seats counted for the last candidate without a fist.
    choosable = [s for s in ballots[last] if s not in avoid_default] or list(ballots[last])
    defaults = sorted(rng.sample(choosable, min(abstainers, len(choosable))))
    ballots[last] = [s for s in ballots[last] if s not in defaults]
    for c in candidates[:-1]:
        ballots[c] = sorted(ballots[c])
    return ballots, defaults


def _night(table: _Table, rng: random.Random, kill: bool, checked: dict) -> tuple[list[dict], int | None]:
    events: list[dict] = [{"type": "nightfall"}]
    for seat in table.alive:
        events.append({"type": "shooting_call", "seat": seat})
    blacks = table.blacks()
    sheriff = next((s for s in table.alive if table.roles[s] == "sheriff"), None)
    don = next((s for s in table.alive if table.roles[s] == "don"), None)
    victim: int | None = None
    if kill:
        victim = rng.choice(table.reds(exclude=(sheriff,)))
        shots = {b: victim for b in blacks}
    else:
        # A miss: two mafiosi disagree.
        reds = table.reds(exclude=(sheriff,))
        shots = {b: rng.choice(reds) for b in blacks}
        if len(blacks) == 1:
            shots = {}  # a lone mafioso misses by not shooting
        elif len(set(shots.values())) < 2:
            first = blacks[0]
            shots[blacks[1]] = rng.choice([r for r in reds if r != shots[first]])
    # Shots sit right after the call of their target (timing keeps that order).
    with_shots: list[dict] = []
    for ev in events:
        with_shots.append(ev)
        if ev["type"] == "shooting_call":
            for b in blacks:
                if shots.get(b) == ev["seat"]:
                    with_shots.append({"type": "shot", "by": b, "target": ev["seat"]})
    events = with_shots
    if don is not None:
        options = [s for s in table.alive if s != don and s not in checked["don"] and table.roles[s] != "don"]
        target = rng.choice(options)
        checked["don"].append(target)
        events.append({"type": "don_check", "target": target, "answer": table.roles[target] == "sheriff"})
    if sheriff is not None:
        options = [s for s in table.alive if s != sheriff and s not in checked["sheriff"]]
        target = rng.choice(options)
        checked["sheriff"].append(target)
        events.append({"type": "sheriff_check", "target": target,
                       "answer": table.roles[target] in ("maf", "don")})
    return events, victim


def _roles(seats: list[int], blacks: list[int], don: int, sheriff: int) -> dict[int, str]:
    return {s: ("don" if s == don else "maf" if s in blacks else "sheriff" if s == sheriff else "civ")
            for s in seats}


def _protocol(seed: int, profile: str, forbidden_raise: bool, names: list[str], roles: dict[int, str],
              events: list[dict]) -> dict:
    """The native protocol document of a scripted game."""
    game = {"tournament": "mafvar synthetic", "table": 1, "number": seed,
            "judge": "Synth", "profile": profile}
    if forbidden_raise:
        game["overrides"] = dict(FORBID_DAY1_RAISE)
    return {
        "format": "mafvar-protocol",
        "version": 1,
        "game": game,
        "cameras": [{"id": "cam1", "file": "video.mp4", "offset": 0.0}],
        "seats": [{"seat": s, "name": names[s - 1], "role": roles[s]} for s in sorted(roles)],
        "events": events,
    }


def sample_game(seed: int, profile: str = DEFAULT_PROFILE, forbidden_raise: bool = False) -> dict:
    """The untimed judge's protocol of the scripted sample game for `seed`."""
    rng = stream(seed, "game")
    seats = list(range(1, 11))
    blacks = sorted(rng.sample(seats, 3))
    don = rng.choice(blacks)
    sheriff = rng.choice([s for s in seats if s not in blacks])
    roles = _roles(seats, blacks, don, sheriff)
    names = rng.sample(NAMES, 10)
    table = _Table(roles)
    checked: dict[str, list[int]] = {"don": [], "sheriff": []}
    ev: list[dict] = []

    # N0
    ev += [{"type": "nightfall"}, {"type": "mafia_wake"}, {"type": "don_wake"},
           {"type": "sheriff_wake"}, {"type": "morning"}]

    # D1: a 5:5 tie, tie speeches, a revote (or a forbidden raise).
    a, b = rng.sample([s for s in seats if s not in (don, sheriff)], 2)
    ev += _day_speeches(table, rng, [a, b])
    elig = list(table.alive)
    ballots, defaults = _ballots(elig, [5, 5], [a, b], 1, rng)
    ev.append({"type": "vote_announce", "candidates": [a, b]})
    ev += _vote_calls([a, b], ballots, defaults)
    ev += [_speech(s, rng, "tie") for s in (a, b)]
    if forbidden_raise:
        # Tied again 5:5; the tournament forbids raising on day 1, yet the
        # judge holds the "all leave?" vote (it fails: nobody leaves).
        ballots, defaults = _ballots(elig, [5, 5], [a, b], 1, rng)
        ev.append({"type": "vote_announce", "candidates": [a, b]})
        ev += _vote_calls([a, b], ballots, defaults)
        ev.append({"type": "raise_vote", "announced": 3, "voters": sorted(rng.sample(elig, 3))})
    else:
        ballots, defaults = _ballots(elig, [6, 4], [a, b], 1, rng)
        ev.append({"type": "vote_announce", "candidates": [a, b]})
        ev += _vote_calls([a, b], ballots, defaults)
        ev.append(_speech(a, rng, "farewell"))
        table.alive.remove(a)

    # N1: a kill and both checks; the victim guesses (MC Best Move).
    night, victim = _night(table, rng, kill=True, checked=checked)
    ev += night
    assert victim is not None
    others = [s for s in table.alive if s != victim]
    if len(table.alive) == 10 and _profile_option(profile, "first_killed_right") not in (None, "none"):
        # The first killed with all ten at the table guesses (MC Best Move).
        ev.append({"type": "guess", "seat": victim, "targets": sorted(rng.sample(others, 3))})
    ev.append({"type": "morning"})
    ev.append(_speech(victim, rng, "last_word"))
    table.alive.remove(victim)

    # D2: three candidates; Z (last) leaves 4 to X's 3 with a default vote on Z.
    # The judge's exit Z is a red civilian so the game stays open and both
    # checkers live to check again on N2.
    z = rng.choice(table.reds(exclude=(sheriff,)))
    x, y = rng.sample([s for s in table.alive if s not in (don, sheriff, z)], 2)
    ev += _day_speeches(table, rng, [x, y, z])
    elig = list(table.alive)
    n = len(elig)
    counts = [3, n - 7, 4]
    ballots, defaults = _ballots(elig, counts, [x, y, z], 1, rng, avoid_default=(x, y))
    ev.append({"type": "vote_announce", "candidates": [x, y, z]})
    ev += _vote_calls([x, y, z], ballots, defaults)
    ev.append(_speech(z, rng, "farewell"))
    table.alive.remove(z)

    # N2: a miss and both checks; the record ends at the morning of D3.
    night, _ = _night(table, rng, kill=False, checked=checked)
    ev += night
    ev.append({"type": "morning"})

    return _protocol(seed, profile, forbidden_raise, names, roles, ev)


# ------------------------------------------------------------ the full game

def _checks_left(table: _Table, checked: dict) -> None:
    """Late in a long game a checker may have checked every living seat: the
    bookkeeping is reset so `_night` can repeat a check (allowed by the rules)."""
    for role, own in (("don", "don"), ("sheriff", "sheriff")):
        holder = next((s for s in table.alive if table.roles[s] == own), None)
        if holder is None:
            continue
        options = [s for s in table.alive if s != holder and s not in checked[role]
                   and not (role == "don" and table.roles[s] == "don")]
        if not options:
            checked[role].clear()


def _vote_day(table: _Table, rng: random.Random, noms: list[int], counts: list[int],
              leaves: int | None, revote: list[int] | None = None) -> list[dict]:
    """A day: speeches with `noms`, a vote with `counts` (announced, in call
    order); with `revote` the first two candidates tie, make tie speeches and
    are voted again with `revote` counts. `leaves` makes the farewell."""
    ev = _day_speeches(table, rng, noms)
    elig = list(table.alive)
    ballots, defaults = _ballots(elig, counts, noms, 1, rng)
    ev.append({"type": "vote_announce", "candidates": list(noms)})
    ev += _vote_calls(list(noms), ballots, defaults)
    if revote is not None:
        tied = noms[:2]
        ev += [_speech(s, rng, "tie") for s in tied]
        ballots, defaults = _ballots(elig, revote, tied, 1, rng)
        ev.append({"type": "vote_announce", "candidates": list(tied)})
        ev += _vote_calls(tied, ballots, defaults)
    if leaves is not None:
        ev.append(_speech(leaves, rng, "farewell"))
        table.alive.remove(leaves)
    return ev


def full_game(seed: int, profile: str = DEFAULT_PROFILE, forbidden_raise: bool = False) -> dict:
    """The untimed protocol of a whole game (`--realistic-timing`): six days
    and six nights played to a red win: 50 full speeches (last words and
    farewells included) and 10 tie speeches
    (about 65 minutes with realistic timing).

    * N0 deal night; D1: a 5:5 tie, tie speeches, 5:5 again and a failed
      "all leave?": nobody leaves.
    * N1: a kill with all ten at the table (the victim guesses), checks.
    * D2: three candidates; the judge's ballots X=3, Y=n-7, Z=4 with a default
      vote on Z, so a fist missed on X (the miscount) changes who leaves; Z,
      a red civilian, leaves.
    * N2: a miss. D3: three candidates, a 3:3:2 tie, tie speeches, a revote
      that eliminates a mafioso. N3: a miss. D4: a 3:3:1 tie, a red civilian
      leaves after the revote.
    * N4: a kill. D5: a 2:2:1 tie, the second mafioso leaves. N5: a miss.
    * D6: a 2:2 tie, the Don leaves after the revote: the red team wins (`result`).
    """
    rng = stream(seed, "full-game")
    seats = list(range(1, 11))
    blacks = sorted(rng.sample(seats, 3))
    don = rng.choice(blacks)
    mafs = [s for s in blacks if s != don]
    rng.shuffle(mafs)
    sheriff = rng.choice([s for s in seats if s not in blacks])
    roles = _roles(seats, blacks, don, sheriff)
    names = rng.sample(NAMES, 10)
    table = _Table(roles)
    checked: dict[str, list[int]] = {"don": [], "sheriff": []}

    def civs(exclude=()) -> list[int]:
        return [s for s in table.reds(exclude=(sheriff, *exclude))]

    def others(*fixed: int, k: int) -> list[int]:
        return rng.sample([s for s in table.alive if s not in fixed], k)

    def night(kill: bool) -> tuple[list[dict], int | None]:
        _checks_left(table, checked)
        return _night(table, rng, kill=kill, checked=checked)

    ev: list[dict] = [{"type": "nightfall"}, {"type": "mafia_wake"}, {"type": "don_wake"},
                      {"type": "sheriff_wake"}, {"type": "morning"}]

    # D1: tie, tie speeches, tie again, the "all leave?" vote fails.
    a, b = rng.sample([s for s in seats if s not in (don, sheriff)], 2)
    ev += _day_speeches(table, rng, [a, b])
    elig = list(table.alive)
    for _ in range(2):
        ballots, defaults = _ballots(elig, [5, 5], [a, b], 1, rng)
        ev.append({"type": "vote_announce", "candidates": [a, b]})
        ev += _vote_calls([a, b], ballots, defaults)
        if _ == 0:
            ev += [_speech(s, rng, "tie") for s in (a, b)]
    ev.append({"type": "raise_vote", "announced": 3, "voters": sorted(rng.sample(elig, 3))})

    # N1: the first kill with ten at the table: the victim guesses.
    nt, victim = night(kill=True)
    ev += nt
    if _profile_option(profile, "first_killed_right") not in (None, "none"):
        ev.append({"type": "guess", "seat": victim,
                   "targets": sorted(rng.sample([s for s in table.alive if s != victim], 3))})
    ev.append({"type": "morning"})
    ev.append(_speech(victim, rng, "last_word"))
    table.alive.remove(victim)

    # D2 (9 alive): the miscount-shaped vote; Z (a red civilian) leaves.
    z = rng.choice(civs())
    x, y = rng.sample([s for s in table.alive if s not in (don, sheriff, z)], 2)
    ev += _day_speeches(table, rng, [x, y, z])
    elig = list(table.alive)
    ballots, defaults = _ballots(elig, [3, len(elig) - 7, 4], [x, y, z], 1, rng, avoid_default=(x, y))
    ev.append({"type": "vote_announce", "candidates": [x, y, z]})
    ev += _vote_calls([x, y, z], ballots, defaults)
    ev.append(_speech(z, rng, "farewell"))
    table.alive.remove(z)

    # N2: a miss.
    nt, _ = night(kill=False)
    ev += nt + [{"type": "morning"}]

    # D3 (8 alive): 3:3:2, tie speeches, 5:3 revote: the first mafioso leaves.
    m1 = mafs[0]
    c3 = others(m1, don, sheriff, k=2)
    noms = [m1, c3[0], c3[1]]
    ev += _vote_day(table, rng, noms, [3, 3, 2], m1, revote=[5, 3])

    # N3: a miss.
    nt, _ = night(kill=False)
    ev += nt + [{"type": "morning"}]

    # D4 (7 alive): 3:3:1, tie speeches, a red civilian leaves 4:3.
    r4 = rng.choice(civs())
    o4, t4 = others(r4, don, sheriff, k=2)
    ev += _vote_day(table, rng, [o4, r4, t4], [3, 3, 1], r4, revote=[3, 4])

    # N4: a kill.
    nt, victim = night(kill=True)
    ev += nt + [{"type": "morning"}, _speech(victim, rng, "last_word")]
    table.alive.remove(victim)

    # D5 (5 alive): 2:2:1, tie speeches, the second mafioso leaves 3:2.
    m2 = mafs[1]
    o5, t5 = others(m2, k=2)
    ev += _vote_day(table, rng, [m2, o5, t5], [2, 2, 1], m2, revote=[3, 2])

    # N5: a miss (the Don alone does not shoot).
    nt, _ = night(kill=False)
    ev += nt + [{"type": "morning"}]

    # D6 (4 alive): 2:2, tie speeches, the Don leaves 1:3; the red team wins.
    o6 = others(don, k=1)[0]
    ev += _vote_day(table, rng, [o6, don], [2, 2], don, revote=[1, 3])
    ev.append({"type": "result", "winner": "civ"})

    return _protocol(seed, profile, forbidden_raise, names, roles, ev)
