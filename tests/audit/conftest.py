"""Small real game workspaces for the audit tests.

One 4-second clip is rendered by `mafvar synth --clip 4` once per session; three
games share it (the synthetic camera and calibration do not depend on the
seed), each with the protocol of its own seed, so their incidents differ.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import build_folder

from mafvar.cli import main
from review.audit import audit

SEEDS = (11, 12, 13)
CLIP_SECONDS = "4"


@pytest.fixture(scope="session")
def sources(tmp_path_factory) -> dict[str, Path]:
    """name -> a game folder (protocol, calibration, truth) without video, one per seed."""
    root = tmp_path_factory.mktemp("audit-sources")
    out = {}
    for seed in SEEDS:
        folder = root / f"game{seed}"
        assert main(["synth", "--seed", str(seed), "--out", str(folder), "--no-video"]) == 0
        out[folder.name] = folder
    return out


@pytest.fixture(scope="session")
def clip(tmp_path_factory, sources) -> Path:
    """A real rendered 4-second video of the first seed's game."""
    folder = tmp_path_factory.mktemp("audit-clip") / "render"
    assert main(["synth", "--seed", str(SEEDS[0]), "--out", str(folder), "--clip", CLIP_SECONDS,
                 "--force"]) == 0
    first = next(iter(sources.values()))
    assert (folder / "calibration.json").read_bytes() == (first / "calibration.json").read_bytes(), \
        "the games share the clip only if the calibration does not depend on the seed"
    return folder / "video.mp4"


@pytest.fixture
def make_folder(sources, clip):
    """make_folder(path, broken=()) -> a fresh folder with the three games."""
    return lambda path, broken=(): build_folder(path, sources, clip, broken)


@pytest.fixture(scope="session")
def local_audit(tmp_path_factory, sources, clip):
    """The three games audited once with the local process pool: (folder, report)."""
    folder = build_folder(tmp_path_factory.mktemp("audit-local") / "tournament", sources, clip)
    return folder, audit(folder, workers=2)
