"""Shared helpers for the synth tests: games are built once per session (fast, no video)."""
from __future__ import annotations

import pytest

from sample_videos.synth import SynthOptions, build_game
from synth_shared import ALL_PLAYER_A, ALL_PLAYER_B



@pytest.fixture(scope="session")
def sample_game():
    return build_game(SynthOptions(seed=7))


@pytest.fixture(scope="session")
def games():
    """A spread of games: default selections, explicit full sets, the forbidden raise."""
    out = {}
    for seed in (7, 8, 21):
        out[("default", seed)] = build_game(SynthOptions(seed=seed))
    out[("A", 3)] = build_game(SynthOptions(seed=3, inject=ALL_PLAYER_A + ("protocol_audit",)))
    out[("B", 4)] = build_game(SynthOptions(seed=4, inject=ALL_PLAYER_B))
    out[("random", 5)] = build_game(SynthOptions(seed=5, inject_random=True))
    return out
