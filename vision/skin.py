"""Skin-coloured pixels: the cue for a hand or a bare face where no detector fires."""
from __future__ import annotations

import numpy as np


def skin_mask(rgb: np.ndarray) -> np.ndarray:
    """Skin-coloured pixels: warm hue, moderate saturation, not dark. Loose on
    purpose (all skin tones); the table cloth and most sleeves fall outside it."""
    img = rgb.astype(np.float32)
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    mx = np.maximum(np.maximum(r, g), b)
    mn = np.minimum(np.minimum(r, g), b)
    sat = (mx - mn) / np.maximum(mx, 1.0)
    return (r >= g) & (g >= b - 8) & (r - g >= 8) & (mx >= 60) & (sat >= 0.12) & (sat <= 0.72)
