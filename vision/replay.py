"""A compact sample of the committed seat windows' training set.

`mafvar learn` fine-tunes the windows on one venue's judged footage; the
committed model's own training set stays in the mix so that nothing it
learned is forgotten. That set (tens of thousands of rendered descriptors)
is not kept in the repository: `scripts/train_appearance.py --replay-sample`
renders frames of the same training seeds and keeps at most a few hundred
descriptors per window and class, quantised to bytes per feature, in
`vision/models/appearance_replay.npz` (0.8 MB: seeds 101-102 and focus seeds 201-205, 231-236 at
one frame in 4 s, at most 150 per window and class).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from vision.appearance import WINDOWS

REPLAY_PATH = Path(__file__).with_name("models") / "appearance_replay.npz"
FORMAT = "mafvar-appearance-replay"
VERSION = 1


@dataclass(frozen=True)
class ReplaySample:
    """Per window: descriptors (n, features) and their class names (n,)."""
    x: Mapping[str, np.ndarray]
    y: Mapping[str, np.ndarray]
    meta: Mapping

    def counts(self) -> dict[str, dict[str, int]]:
        return {k: {str(c): int(n) for c, n in zip(*np.unique(v, return_counts=True))}
                for k, v in self.y.items()}


def stratified(y: np.ndarray, per_class: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of at most `per_class` rows of each class, in their original order."""
    keep: list[np.ndarray] = []
    for c in sorted(set(y.tolist())):
        idx = np.flatnonzero(y == c)
        keep.append(idx if len(idx) <= per_class else rng.choice(idx, per_class, replace=False))
    return np.sort(np.concatenate(keep)) if keep else np.zeros(0, int)


def _quantise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lo = x.min(axis=0)
    span = np.maximum(x.max(axis=0) - lo, 1e-6)
    q = np.round((x - lo) / span * 255.0).astype(np.uint8)
    return q, lo.astype(np.float32), span.astype(np.float32)


def write_replay_sample(path: str | Path, games: Sequence[Mapping], per_class: int,
                        meta: Mapping) -> dict[str, dict[str, int]]:
    """Write the sample from rendered games (scripts/train_appearance.py's
    `{"x": {window: descriptors}, "y": {window: labels}}` per game)."""
    rng = np.random.default_rng(0)
    arrays: dict[str, np.ndarray] = {}
    for kind in WINDOWS:
        xs = [g["x"][kind] for g in games if len(g["y"][kind])]
        ys = [g["y"][kind] for g in games if len(g["y"][kind])]
        if not xs:
            continue
        x, y = np.concatenate(xs), np.concatenate(ys).astype(str)
        keep = stratified(y, per_class, rng)
        q, lo, span = _quantise(x[keep])
        arrays.update({f"{kind}_q": q, f"{kind}_lo": lo, f"{kind}_span": span, f"{kind}_y": y[keep]})
    doc = {"format": FORMAT, "version": VERSION, "per_class": per_class, **meta}
    arrays["meta"] = np.array(json.dumps(doc))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)
    return load_replay_sample(path).counts()


def load_replay_sample(path: str | Path = REPLAY_PATH) -> ReplaySample:
    """The sample; ValueError naming the file when it is not one."""
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            if meta.get("format") != FORMAT or meta.get("version") != VERSION:
                raise ValueError(f"not a {FORMAT} v{VERSION} file")
            x, y = {}, {}
            for kind in WINDOWS:
                if f"{kind}_q" in z:
                    x[kind] = z[f"{kind}_q"].astype(np.float32) / 255.0 * z[f"{kind}_span"] + z[f"{kind}_lo"]
                    y[kind] = z[f"{kind}_y"].astype(str)
    except (OSError, KeyError, ValueError) as exc:
        raise ValueError(f"{path}: unreadable replay sample ({exc})") from None
    return ReplaySample(x, y, meta)


__all__ = ["REPLAY_PATH", "ReplaySample", "stratified", "write_replay_sample", "load_replay_sample"]
