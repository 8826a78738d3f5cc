"""Fine-tuning the seat windows on one venue's judged examples (`mafvar learn`).

The committed network (vision.appearance.WindowModel) is the starting point
and the anchor: training runs on the venue's examples together with a
compact sample of the committed training set (vision.replay), with a
penalty on every weight's distance from the committed one, so the venue
model keeps what the committed one knew and changes only where the judges
showed it wrong.

An example is either a class ("the mask was on") or the denial of one ("no
fist stood there", from a rejected incident or a "no fist" answer): a denial
pushes that class's probability down and leaves the others to the data
(its loss is -log(1 - p)).

Deterministic for a seed; seconds on one core for a game's examples.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.appearance import WindowModel
from vision.training.window_fit import Adam, backward, forward


@dataclass(frozen=True)
class Examples:
    """One window's venue examples."""
    x: np.ndarray          # (n, features) descriptors
    target: np.ndarray     # (n,) class index in the model's classes
    negative: np.ndarray   # (n,) True: "not this class"
    weight: np.ndarray     # (n,) relative weight

    def __len__(self) -> int:
        return len(self.target)

    @staticmethod
    def empty(features: int) -> "Examples":
        return Examples(np.zeros((0, features), np.float32), np.zeros(0, int), np.zeros(0, bool),
                        np.zeros(0, np.float32))


def recentre(model: WindowModel, mean: np.ndarray, scale: np.ndarray) -> WindowModel:
    """The same function with another input standardisation: only `far_<window>`
    (the distance from the training data) changes."""
    ratio = (scale / model.scale).astype(np.float32)
    w1 = model.w1 * ratio[:, None]
    b1 = model.b1 + ((mean - model.mean) / model.scale) @ model.w1
    return WindowModel(model.classes, mean.astype(np.float32), scale.astype(np.float32),
                       w1.astype(np.float32), b1.astype(np.float32), model.w2, model.b2)


def pooled_statistics(model: WindowModel, x_venue: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and spread of an equal mixture of the committed training data (its
    stored statistics) and the venue's descriptors: the venue model's
    `far_<window>` measures the distance from both."""
    if len(x_venue) < 2:
        return model.mean, model.scale
    mv, sv = x_venue.mean(axis=0), x_venue.std(axis=0)
    mean = 0.5 * (model.mean + mv)
    var = 0.5 * (model.scale ** 2 + (model.mean - mean) ** 2) + 0.5 * (sv ** 2 + (mv - mean) ** 2)
    return mean.astype(np.float32), np.sqrt(var).astype(np.float32)


def fine_tune(base: WindowModel, replay_x: np.ndarray, replay_y: np.ndarray, venue: Examples,
              epochs: int = 40, lr: float = 5e-4, anchor: float = 1e-3, batch: int = 128,
              venue_share: float = 0.5, max_weight: float = 8.0, seed: int = 0) -> WindowModel:
    """The base network trained further on the replay sample (hard labels)
    and the venue examples (classes and denials), every weight pulled toward
    the base's (`anchor`). The venue examples weigh `venue_share` of the
    total (no single example more than `max_weight` replay rows)."""
    model = recentre(base, *pooled_statistics(base, venue.x))
    known = {c: i for i, c in enumerate(model.classes)}
    keep = np.array([c in known for c in replay_y], bool)
    rx, ry = replay_x[keep], np.array([known[c] for c in replay_y[keep]], int)
    x = np.concatenate([rx, venue.x]).astype(np.float32)
    target = np.concatenate([ry, venue.target]).astype(int)
    negative = np.concatenate([np.zeros(len(ry), bool), venue.negative])
    w_venue = venue.weight.astype(np.float32)
    if len(venue) and w_venue.sum() > 0:
        scale = venue_share / max(1e-6, 1.0 - venue_share) * max(1, len(ry)) / w_venue.sum()
        w_venue = np.minimum(w_venue * scale, max_weight)
    weight = np.concatenate([np.ones(len(ry), np.float32), w_venue]).astype(np.float32)
    if not len(x):
        return model
    xs = ((x - model.mean) / model.scale).astype(np.float32)
    params = [model.w1.copy(), model.b1.copy(), model.w2.copy(), model.b2.copy()]
    start = [p.copy() for p in params]
    adam = Adam(params, lr)
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        order = rng.permutation(len(xs))
        for i in range(0, len(xs), batch):
            j = order[i:i + batch]
            xb, tb, nb, wb = xs[j], target[j], negative[j], weight[j]
            pre, h, p = forward(params, xb)
            rows = np.arange(len(j))
            onehot = np.zeros_like(p)
            onehot[rows, tb] = 1.0
            pt = p[rows, tb]
            # a class: p - onehot; a denial: d(-log(1 - p_t))/dz = p_t / (1 - p_t) * (onehot - p)
            g = np.where(nb[:, None], (pt / np.maximum(1.0 - pt, 1e-6))[:, None] * (onehot - p), p - onehot)
            g *= (wb / max(float(wb.sum()), 1e-6))[:, None]
            grads = backward(params, xb, pre, h, g)
            adam.step([gq + anchor * (pq - sq) for gq, pq, sq in zip(grads, params, start)])
    return WindowModel(model.classes, model.mean, model.scale,
                       *(p.astype(np.float32) for p in params))


def agreement(model: WindowModel, ex: Examples) -> float | None:
    """Share of the examples the model reads as they are labelled (a class:
    its best class; a denial: any other class best). None without examples."""
    if not len(ex):
        return None
    best = model.proba(ex.x).argmax(axis=1)
    ok = np.where(ex.negative, best != ex.target, best == ex.target)
    return float(ok.mean())


__all__ = ["Examples", "recentre", "pooled_statistics", "fine_tune", "agreement"]
