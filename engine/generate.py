"""Random legal games: a native protocol dict played to a result, for tests and demos.

The generator drives the real replay (`apply`) so every choice it makes is legal
in the state the engine derives: speakers in the derived order, nominations by
the speaker, ballots from players in the game, revotes and raise votes when the
engine asks for them, shots by the living mafia.
"""
from __future__ import annotations

import random

from .profiles import DEFAULT_PROFILE, get_profile
from .protocol import event_from_dict
from .replay import apply
from .state import GameState, Stage, initial_state
from .types import Role

MAX_ROUNDS = 25


class _Game:
    def __init__(self, seed: int, profile: str):
        self.rng = random.Random(seed)
        self.profile = get_profile(profile)
        roles = [Role.DON, Role.MAF, Role.MAF, Role.SHERIFF] + [Role.CIV] * 6
        self.rng.shuffle(roles)
        self.roles = {i + 1: r for i, r in enumerate(roles)}
        self.state: GameState = initial_state(self.roles)
        self.events: list[dict] = []
        self.t = 0.0
        # per-game temperament, so that some games have quiet days (draws), misses and removals
        self.miss_p = self.rng.choice([0.1, 0.2, 0.6])
        self.troublemakers = self.rng.sample(range(1, 11), 2)
        self.removal_p = self.rng.choice([0.0, 0.0, 0.05])

    def emit(self, type_: str, dur: float = 0.0, **fields) -> None:
        ev = {"type": type_, "t": round(self.t, 1), **fields}
        if dur:
            ev["t_end"] = round(self.t + dur, 1)
        self.t += max(dur, 1.0)
        self.state, _ = apply(self.state, event_from_dict(ev), self.profile, len(self.events))
        self.events.append(ev)

    def maybe_foul(self) -> None:
        live = self.state.in_game()
        if live and self.rng.random() < 0.08:
            pool = [s for s in self.troublemakers if s in live] or live
            self.emit("foul", seat=self.rng.choice(pool))

    def maybe_removal(self) -> None:
        live = self.state.in_game()
        if live and self.rng.random() < self.removal_p:
            kind = self.rng.choice(["removal", "removal", "give_up"])
            fields = {"reason": "generated"} if kind == "removal" else {}
            self.emit(kind, seat=self.rng.choice(live), **fields)

    # ---- phases
    def night0(self) -> None:
        self.emit("nightfall")
        for s in range(1, 11):
            self.emit("card_pick", 2.0, seat=s)
        self.emit("mafia_wake", 60.0)
        self.emit("don_wake", 15.0)
        self.emit("sheriff_wake", 15.0)
        self.emit("morning")

    def night(self) -> None:
        self.emit("nightfall")
        st = self.state
        mafia = [s.seat for s in st.seats if s.in_game and s.role.is_black]
        live = st.in_game()
        if self.rng.random() >= self.miss_p:
            target = self.rng.choice(live)
            for m in mafia:
                self.emit("shot", by=m, target=target)
        else:
            for m in mafia:
                if self.rng.random() < 0.8:
                    self.emit("shot", by=m, target=self.rng.choice(live))
        for role, kind in ((Role.DON, "don_check"), (Role.SHERIFF, "sheriff_check")):
            holder = self.state.holder(role)
            if holder in self.state.alive_at_nightfall and not self.state.seat(holder).removed:
                target = self.rng.choice([s for s in range(1, 11) if s != holder])
                truth = self.roles[target] is Role.SHERIFF if role is Role.DON else self.roles[target].is_black
                self.emit(kind, 10.0, target=target, answer=truth)
        st = self.state
        if st.first_killed is not None and st.first_killed_right and st.guess is None and \
                st.round == 1 and self.profile.first_killed_right != "none":
            others = [s for s in range(1, 11) if s != st.first_killed]
            self.emit("guess", 15.0, seat=st.first_killed, targets=self.rng.sample(others, 3))
        self.emit("morning")

    def day(self) -> None:
        st = self.state
        if st.night_kill is not None and st.result is None:
            self.emit("speech", 50.0, seat=st.night_kill, kind="last_word")
        nominate_p = self.rng.choice([0.0, 0.3, 0.55, 0.55])
        for seat in st.speech_order:
            if self.state.result is not None:
                return
            s = self.state.seat(seat)
            if not s.in_game:
                continue
            if s.muted:
                continue  # the lost speech (third foul)
            self.emit("speech", self.rng.uniform(20, 60), seat=seat, end="pass")
            targets = [x for x in self.state.in_game() if x not in self.state.candidate_targets()
                       and (x != seat or self.profile.self_nomination)]
            if targets and self.rng.random() < nominate_p:
                target = self.rng.choice(targets)
                self.emit("nominate", target=target, by=seat)
                if self.profile.withdrawal != "no" and self.rng.random() < 0.1:
                    self.emit("withdraw", target=target, by=seat)
            self.maybe_foul()
        if self.state.result is None:
            self.maybe_removal()
        if self.state.result is None:
            self.voting()

    def voting(self) -> None:
        st = self.state
        cands = st.candidate_targets()
        if not cands or st.pending_vote_cancels or (st.round == 0 and len(cands) == 1):
            return
        if len(cands) == 1 and self.profile.later_single_candidate == "auto_eliminate":
            return
        self.emit("vote_announce", candidates=list(cands))
        for _ in range(12):
            s = self.state.vote
            if s is None or s.stage is Stage.DONE or self.state.result is not None:
                return
            if s.stage is Stage.RAISE:
                live = self.state.in_game()
                voters = [v for v in live if self.rng.random() < 0.5]
                self.emit("raise_vote", 5.0, announced=len(voters), voters=voters)
                continue
            if s.pass_index > 0 and not s.calls:
                for seat in s.candidates:
                    self.emit("speech", 30.0, seat=seat, kind="tie")
            self.vote_pass(s.candidates)

    def vote_pass(self, order) -> None:
        live = list(self.state.in_game())
        # few distinct choices make ties common enough to exercise revotes and raises
        ballots = {v: self.rng.choice(order) for v in live if self.rng.random() < 0.9}
        for i, cand in enumerate(order):
            voters = [v for v, c in ballots.items() if c == cand]
            count = len(voters)
            if i == len(order) - 1 and self.profile.default_votes == "last_candidate":
                count += len(live) - len(ballots)
            self.emit("vote", 3.0, candidate=cand, announced=count, voters=voters)
            if self.state.vote is None or self.state.vote.pass_index != self.state.vote_calls[-1].pass_index:
                return

    def play(self) -> dict:
        self.night0()
        self.day()
        while self.state.result is None and self.state.round < MAX_ROUNDS:
            self.night()
            if self.state.result is None:
                self.day()
        if self.state.result is not None:
            self.emit("result", winner=self.state.result)
        return {
            "format": "mafvar-protocol", "version": 1,
            "game": {"tournament": "generated", "number": 1, "profile": self.profile.name},
            "seats": [{"seat": s, "name": f"Player {s}", "role": self.roles[s].value} for s in range(1, 11)],
            "events": self.events,
        }


def random_game(seed: int, profile: str = DEFAULT_PROFILE) -> dict:
    """A legal native protocol, played to a result (or MAX_ROUNDS), reproducible by seed."""
    return _Game(seed, profile).play()
