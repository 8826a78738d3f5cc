"""The cast: each seat's acting habits, drawn once per game from the seed.

Habits make a table look like people rather than clones: one player masks
fast, another slowly; one votes the moment the call ends, another waits.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from .rng import stream


@dataclass(frozen=True)
class Persona:
    seat: int
    reaction: float      # typical delay (s) to react to "Night" / "Morning"
    vote_speed: float    # 0 = fist right at the call end, 1 = just before "thank you"
    hand: str            # the voting / shooting hand
    gun_fingers: int     # fingers a mafioso shows while shooting (1 or 2)
    fidget: float        # how often the head moves while others speak (0..1)

    def mask_delay(self, rng: random.Random) -> float:
        """Delay after the call, kept inside 0.3-1.5 s."""
        return round(min(1.5, max(0.3, self.reaction + rng.uniform(-0.2, 0.2))), 2)


def cast_players(seed: int) -> dict[int, Persona]:
    rng = stream(seed, "cast")
    return {
        s: Persona(
            seat=s,
            reaction=rng.uniform(0.45, 1.3),
            vote_speed=rng.uniform(0.05, 0.6),
            hand="left" if rng.random() < 0.15 else "right",
            gun_fingers=rng.choice((1, 2)),
            fidget=rng.uniform(0.1, 0.6),
        )
        for s in range(1, 11)
    }
