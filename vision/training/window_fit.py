"""Training of the seat-window classifiers (vision.appearance.WindowModel).

scripts/train_appearance.py renders games, cuts the windows and calls `fit`;
the analysis only loads the weights it wrote.
"""
from __future__ import annotations

import numpy as np

from vision.appearance import WindowModel


def fit(x: np.ndarray, y: np.ndarray, classes: tuple[str, ...], hidden: int = 128, epochs: int = 40,
        lr: float = 1e-3, l2: float = 1e-4, batch: int = 256, seed: int = 0) -> WindowModel:
    """Adam on the cross-entropy, classes weighted by the inverse square root
    of their frequency (rare states such as a lifted mask count, without
    drowning the common ones). Deterministic for a seed."""
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-3
    xs = ((x - mean) / scale).astype(np.float32)
    idx = np.array([classes.index(c) for c in y])
    k = len(classes)
    counts = np.bincount(idx, minlength=k)
    cw = np.sqrt(len(idx) / (k * np.maximum(counts, 1))).astype(np.float32)
    params = [(rng.normal(0, 1, (x.shape[1], hidden)) / np.sqrt(x.shape[1])).astype(np.float32),
              np.zeros(hidden, np.float32),
              (rng.normal(0, 1, (hidden, k)) / np.sqrt(hidden)).astype(np.float32),
              np.zeros(k, np.float32)]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(xs))
        for i in range(0, len(xs), batch):
            j = order[i:i + batch]
            xb, yb = xs[j], idx[j]
            w1, b1, w2, b2 = params
            pre = xb @ w1 + b1
            h = np.maximum(pre, 0.0)
            z = h @ w2 + b2
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            g = p
            g[np.arange(len(j)), yb] -= 1.0
            g *= cw[yb][:, None] / len(j)
            gh = g @ w2.T
            gh[pre <= 0] = 0.0
            grads = [xb.T @ gh + l2 * w1, gh.sum(axis=0), h.T @ g + l2 * w2, g.sum(axis=0)]
            step += 1
            for q, gq in enumerate(grads):
                m1[q] = 0.9 * m1[q] + 0.1 * gq
                m2[q] = 0.999 * m2[q] + 0.001 * gq * gq
                params[q] -= lr * (m1[q] / (1 - 0.9 ** step)) / (np.sqrt(m2[q] / (1 - 0.999 ** step)) + 1e-8)
    return WindowModel(tuple(classes), mean.astype(np.float32), scale.astype(np.float32), *params)
