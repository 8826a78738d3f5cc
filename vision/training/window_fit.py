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
    adam = Adam(params, lr)
    for _ in range(epochs):
        order = rng.permutation(len(xs))
        for i in range(0, len(xs), batch):
            j = order[i:i + batch]
            xb, yb = xs[j], idx[j]
            pre, h, p = forward(params, xb)
            g = p
            g[np.arange(len(j)), yb] -= 1.0
            g *= cw[yb][:, None] / len(j)
            w1, _, w2, _ = params
            grads = backward(params, xb, pre, h, g)
            grads[0] += l2 * w1
            grads[2] += l2 * w2
            adam.step(grads)
    return WindowModel(tuple(classes), mean.astype(np.float32), scale.astype(np.float32), *params)


def forward(params: list[np.ndarray], xb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pre-activations, hidden layer, class probabilities) of standardised rows."""
    w1, b1, w2, b2 = params
    pre = xb @ w1 + b1
    h = np.maximum(pre, 0.0)
    z = h @ w2 + b2
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return pre, h, p


def backward(params: list[np.ndarray], xb: np.ndarray, pre: np.ndarray, h: np.ndarray,
             g: np.ndarray) -> list[np.ndarray]:
    """Gradients of (w1, b1, w2, b2) given the loss's gradient `g` on the logits."""
    gh = g @ params[2].T
    gh[pre <= 0] = 0.0
    return [xb.T @ gh, gh.sum(axis=0), h.T @ g, g.sum(axis=0)]


class Adam:
    """Adam (0.9, 0.999) updating the parameter arrays in place."""

    def __init__(self, params: list[np.ndarray], lr: float):
        self.params, self.lr, self.n = params, lr, 0
        self.m1 = [np.zeros_like(p) for p in params]
        self.m2 = [np.zeros_like(p) for p in params]

    def step(self, grads: list[np.ndarray]) -> None:
        self.n += 1
        for q, gq in enumerate(grads):
            self.m1[q] = 0.9 * self.m1[q] + 0.1 * gq
            self.m2[q] = 0.999 * self.m2[q] + 0.001 * gq * gq
            self.params[q] -= self.lr * (self.m1[q] / (1 - 0.9 ** self.n)) / (
                np.sqrt(self.m2[q] / (1 - 0.999 ** self.n)) + 1e-8)
