"""From a timed protocol to a performance plan (every seat's acts, every fist).

Conventions chosen here (documented in docs/synth.md):
* Masks go on 0.3-1.5 s after "Night" (the seat's own reaction time plus
  jitter), the night pose follows; masks come off 0.3-1.5 s after "Morning".
* During the shooting every living mafioso holds a hand raised (1 or 2
  fingers) from the first call to the end of the last; at the call of their
  target the fingers curl (`shot`). Mafiosi shoot masked.
* The Don and Sheriff lift their masks for their check and show the target's
  number with their fingers; at N0 the mafia, Don and Sheriff lift their masks
  for their wakes.
* An eliminated player (day vote, night kill after the last word) stands up
  1.0 s after their farewell / last word and leaves: the seat is empty
  (`absent`) for the rest of the video.
* Votes: each voter the judge listed places a thumb-up fist 0.1-1.0 s after
  the call ends and before "thank you", holds it and lifts it 0.4-0.8 s after
  "thank you" (after the count). Default voters place nothing.
"""
from __future__ import annotations

from engine.profiles import DEFAULT_PROFILE

from .cast import Persona
from .model import BODY, HANDS, HEAD, MASK, Act, Night, PlannedFist, Plan, PlannedCall, VoteRound
from .rng import stream

MOTION = 0.45          # seconds a move takes (the acting default transition)
LEAVE_DELAY = 1.0      # farewell end -> standing up
STAND_TIME = 1.6       # standing up -> seat empty


def _roles(protocol: dict) -> dict[int, str]:
    return {p["seat"]: p["role"] for p in protocol["seats"]}


def _outcome(counts: dict) -> list:
    """Candidates with the top count (one = eliminated, several = tie)."""
    if not counts:
        return []
    top = max(counts.values())
    return [c for c, n in counts.items() if n == top]


def plan_performance(timed: dict, seed: int, cast: dict[int, Persona]) -> Plan:
    rng = stream(seed, "plan")
    roles = _roles(timed)
    events = timed["events"]
    duration = float(timed["duration"])
    profile = timed.get("game", {}).get("profile", DEFAULT_PROFILE)
    acts: list[Act] = []
    rounds: list[VoteRound] = []
    placements: list[PlannedFist] = []
    nights: list[Night] = []
    days: list[tuple[float, float]] = []
    speeches: list[tuple[int, float, float, str]] = []
    exits: dict[int, float] = {}
    alive = set(range(1, 11))
    pending_exit: dict[int, str] = {}     # seat -> waits for its farewell / last word
    night: Night | None = None
    day_start: float | None = None
    day_index = 0
    current_round: VoteRound | None = None
    night_shots: dict[int, int] = {}
    night_masks: dict[int, float] = {}    # seat -> mask-on time this night

    exit_how: dict[int, str] = {}

    def leave(seat: int, t: float, how: str = "removal") -> None:
        exit_how[seat] = how
        acts.append(Act(seat, BODY, "standing", t, t + STAND_TIME, 5))
        exits[seat] = round(t + STAND_TIME, 2)
        acts.append(Act(seat, BODY, "absent", exits[seat], duration, 9))
        alive.discard(seat)

    def close_round() -> None:
        nonlocal current_round
        if current_round is None:
            return
        r, current_round = current_round, None
        if r.kind == "raise":
            # "All leave?" passes with more than half of the eligible voters.
            tied = rounds[r.id - 1] if r.id > 0 else None
            if tied is not None and r.calls[0].announced * 2 > len(r.eligible):
                for c in _outcome({c.candidate: c.announced for c in tied.calls}):
                    pending_exit[int(c)] = "day"
            return
        top = _outcome({c.candidate: c.announced for c in r.calls})
        if len(top) == 1:
            pending_exit[int(top[0])] = "day"

    def new_round(kind: str, t_announce: float | None) -> VoteRound:
        prev = rounds[-1] if rounds else None
        if kind == "vote" and prev is not None and prev.day == day_index and prev.kind != "raise" \
                and len(_outcome({c.candidate: c.announced for c in prev.calls})) > 1:
            kind = "revote"  # a tie makes the next pass a revote
        rounds.append(VoteRound(id=len(rounds), day=day_index, kind=kind, calls=[],
                                eligible=sorted(alive), t_announce=t_announce))
        return rounds[-1]

    for i, ev in enumerate(events):
        kind = ev["type"]
        t = float(ev.get("t", 0.0))
        if kind not in ("vote", "raise_vote", "vote_announce"):
            close_round()
        if kind == "nightfall":
            if day_start is not None:
                days.append((day_start, t))
                day_start = None
            for s in sorted(pending_exit):
                leave(s, max(0.0, t - STAND_TIME - 0.2), pending_exit.pop(s))
            night = Night(index=len(nights), t_nightfall=t, t_morning=None)
            nights.append(night)
            night_shots = {}
            night_masks = {}
            for s in sorted(alive):
                p = cast[s]
                # The act starts when the mask is on: reaction delay + the motion.
                night_masks[s] = round(t + p.mask_delay(rng) + MOTION, 2)
        elif kind in ("mafia_wake", "don_wake", "sheriff_wake"):
            who = {"mafia_wake": ("maf", "don"), "don_wake": ("don",), "sheriff_wake": ("sheriff",)}[kind]
            for s in sorted(alive):
                if roles[s] in who:
                    acts.append(Act(s, MASK, "mask_lifted", t + 0.3, float(ev["t_end"]) - 0.3, 3,
                                    {"active": True}))
                    acts.append(Act(s, HEAD, "head_turn", t + 1.0, float(ev["t_end"]) - 0.8, 1,
                                    {"direction": rng.choice(("left", "right"))}))
        elif kind == "shooting_call":
            assert night is not None
            night.calls.append((int(ev["seat"]), t))
        elif kind == "shot":
            night_shots[int(ev["by"])] = int(ev["target"])
            acts.append(Act(int(ev["by"]), HANDS, "shot", t, t + 0.7, 4,
                            {"target": int(ev["target"]), "fingers": cast[int(ev["by"])].gun_fingers}))
        elif kind in ("don_check", "sheriff_check"):
            role = "don" if kind == "don_check" else "sheriff"
            checker = next((s for s in sorted(alive) if roles[s] == role), None)
            if night is not None:
                night.checks.append((role, int(ev["target"]), t, float(ev.get("t_end", t + 3.0))))
            if checker is not None:
                t1 = float(ev["t_end"])
                acts.append(Act(checker, MASK, "mask_lifted", t + 0.2, t1 - 0.3, 3, {"active": True}))
                acts.append(Act(checker, HANDS, "show_fingers", t + 0.8, t1 - 0.6, 4,
                                {"count": int(ev["target"])}))
        elif kind == "guess":
            seat = int(ev["seat"])
            t1 = float(ev["t_end"])
            acts.append(Act(seat, MASK, "mask_lifted", t + 0.2, t1 - 0.2, 3, {"active": True}))
            span = (t1 - t - 0.8) / 3
            for k, target in enumerate(ev.get("targets", [])):
                a = t + 0.5 + k * span
                acts.append(Act(seat, HANDS, "show_fingers", a, a + span - 0.25, 4, {"count": int(target)}))
        elif kind == "morning":
            assert night is not None
            night.t_morning = t
            if night.calls:
                first, last = night.calls[0][1], night.calls[-1][1]
                night.t_shooting = (round(first - 0.8, 2), round(last + 1.5, 2))
                for s, target in sorted(night_shots.items()):
                    if s in alive:
                        acts.append(Act(s, HANDS, "hand_raised", night.t_shooting[0] + 0.2,
                                        night.t_shooting[1] - 0.2, 3,
                                        {"fingers": cast[s].gun_fingers, "hand": cast[s].hand}))
                # The kill: every living mafioso shot the same seat.
                blacks = [s for s in alive if roles[s] in ("maf", "don")]
                targets = {night_shots.get(s) for s in blacks}
                if blacks and len(targets) == 1 and None not in targets:
                    victim = targets.pop()
                    if victim in alive:
                        pending_exit[victim] = "night"
            for s in sorted(alive):
                p = cast[s]
                t_on = night_masks.get(s, night.t_nightfall + 0.8)
                t_off = round(t + p.mask_delay(rng), 2)
                acts.append(Act(s, MASK, "mask_on", t_on, t_off, 1))
                acts.append(Act(s, HANDS, "night_pose", t_on + 0.2, t_off + 0.2, 1))
            night = None
            day_start = t
            day_index += 1
        elif kind == "speech":
            seat = int(ev["seat"])
            t1 = float(ev["t_end"])
            sk = ev.get("kind", "normal")
            speeches.append((seat, t, t1, sk))
            acts.append(Act(seat, HEAD, "speak", t, t1, 1, {"kind": sk}))
            _listeners_turn(acts, seat, t, t1, alive, cast, rng)
            if sk in ("farewell", "last_word") and seat in pending_exit:
                leave(seat, t1 + LEAVE_DELAY, pending_exit.pop(seat))
        elif kind == "vote_announce":
            close_round()
            current_round = new_round("vote", t)
        elif kind in ("vote", "raise_vote"):
            cand = int(ev["candidate"]) if kind == "vote" else "raise"
            if kind == "raise_vote":
                close_round()
                current_round = new_round("raise", None)
            elif current_round is None or any(c.candidate == cand for c in current_round.calls):
                close_round()
                current_round = new_round("vote", None)
            t_call_end = float(ev.get("t_call_end", t + 1.0))
            t_thanks = float(ev.get("t_thanks", t_call_end + 1.5))
            call = PlannedCall(candidate=cand, event=i, t=t, t_call_end=t_call_end, t_thanks=t_thanks,
                            announced=int(ev.get("announced", 0)),
                            voters=[int(v) for v in ev.get("voters", [])])
            current_round.calls.append(call)
        elif kind in ("removal", "give_up"):
            seat = int(ev["seat"])
            if seat in alive:
                leave(seat, t + 0.5)
    close_round()
    if day_start is not None:
        days.append((day_start, duration))
    # A seat whose exit had no farewell recorded leaves at the end of its day.

    _place_votes(rounds, placements, cast, rng)
    return Plan(profile=profile, duration=duration, roles=roles, acts=acts, rounds=rounds,
                placements=placements, nights=nights, days=days, speeches=speeches, exits=exits,
                exit_how=exit_how)


def _listeners_turn(acts: list[Act], speaker: int, t0: float, t1: float, alive: set[int],
                    cast: dict[int, Persona], rng) -> None:
    """Some listeners turn their heads toward the speaker for part of a speech."""
    for s in sorted(alive):
        if s == speaker or rng.random() > 0.35 * cast[s].fidget or t1 - t0 < 1.5:
            continue
        d = (speaker - s) % 10   # seat numbers rise to a player's left
        direction = "left" if d < 5 else "right" if d > 5 else "ahead"
        a = t0 + rng.uniform(0.2, 0.6)
        b = min(t1, a + rng.uniform(1.0, 2.5))
        acts.append(Act(s, HEAD, "head_turn", round(a, 2), round(b, 2), 1, {"direction": direction}))


def _place_votes(rounds: list[VoteRound], placements: list[PlannedFist],
                 cast: dict[int, Persona], rng) -> None:
    """Fists for every voter the judge listed; a call without a voters list
    gets `announced` fists (the last call: minus 0-1 defaults) drawn from the
    voters not yet used in the round."""
    for r in rounds:
        used: set[int] = set()
        for k, call in enumerate(r.calls):
            voters = list(call.voters)
            if not voters and call.announced:
                free = [s for s in r.eligible if s not in used]
                n = call.announced
                if k == len(r.calls) - 1 and r.kind != "raise":
                    n = max(0, min(n, len(free)) - (1 if n > 1 else 0))
                voters = sorted(rng.sample(free, min(n, len(free))))
                call.voters = []  # the judge's record stays as it was
            for s in voters:
                used.add(s)
                p = cast[s]
                lo = call.t_call_end + 0.1
                hi = max(lo + 0.05, call.t_thanks - 0.25)
                t_place = round(min(hi, lo + p.vote_speed * (hi - lo) + rng.uniform(-0.1, 0.1)), 2)
                t_place = max(round(lo, 2), t_place)
                t_lift = round(call.t_thanks + rng.uniform(0.4, 0.8), 2)
                placements.append(PlannedFist(seat=s, round_id=r.id, call=k, candidate=call.candidate,
                                            t_place=t_place, t_lift=t_lift, hand=p.hand))
