"""A tiny builder for crafted protocols in engine tests."""
from __future__ import annotations

from engine.protocol import Protocol
from engine.replay import Replay, replay

# Default deal: Don 8, mafia 2 and 4, Sheriff 3 (as in mafiaratings game 4842).
DEFAULT_ROLES = {2: "maf", 4: "maf", 8: "don", 3: "sheriff"}


class G:
    def __init__(self, roles: dict[int, str] | None = None, profile: str = "mafclub-2023",
                 overrides: dict | None = None):
        r = dict(DEFAULT_ROLES if roles is None else roles)
        self.seats = [{"seat": s, "role": r.get(s, "civ")} for s in range(1, 11)]
        self.game = {"profile": profile}
        if overrides:
            self.game["overrides"] = overrides
        self.events: list[dict] = []

    def ev(self, type_: str, **fields) -> "G":
        self.events.append({"type": type_, **fields})
        return self

    def n0(self) -> "G":
        return self.ev("nightfall").ev("morning")

    def night(self, *shots: tuple[int, int]) -> "G":
        self.ev("nightfall")
        for by, target in shots:
            self.ev("shot", by=by, target=target)
        return self.ev("morning")

    def kill(self, target: int, shooters=(2, 4, 8)) -> "G":
        return self.night(*[(s, target) for s in shooters])

    def nom(self, *pairs: tuple[int, int]) -> "G":
        for by, target in pairs:
            self.ev("nominate", by=by, target=target)
        return self

    def votes(self, **announced: int) -> "G":
        """votes(c5=3, c7=6): one call per candidate with an announced count."""
        for key, n in announced.items():
            self.ev("vote", candidate=int(key[1:]), announced=n)
        return self

    def vote(self, candidate: int, announced: int | None = None, voters=None) -> "G":
        f = {"candidate": candidate}
        if announced is not None:
            f["announced"] = announced
        if voters is not None:
            f["voters"] = list(voters)
        return self.ev("vote", **f)

    def doc(self) -> dict:
        return {"format": "mafvar-protocol", "version": 1, "game": self.game,
                "seats": self.seats, "events": self.events}

    def replay(self, profile=None) -> Replay:
        return replay(Protocol.from_dict(self.doc()), profile)


def exits(rep: Replay) -> list[tuple[int, int, str]]:
    return [(e.seat, e.round, e.type.value) for e in rep.exits]


def codes(rep: Replay, severity: str | None = None) -> list[str]:
    return [i.code for i in rep.issues if severity is None or i.severity.value == severity]


def errors(rep: Replay) -> list[str]:
    return codes(rep, "error")
