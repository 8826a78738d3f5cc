"""What the camera does to the rendered image: lens distortion, shake and
auto-exposure drift (docs/synth.md "Conditions").

Each is a pure function of the camera, the scene seed and the frame time, so
a frame can still be rendered alone, on any worker, with the same pixels.
Distortion follows `Camera.distort_px` exactly (the GL image is drawn wider,
`Camera.render_scale`, and warped here), so projected calibration and truth
land on the warped pixels. Shake moves the whole image by at most its
amplitude (px): calibration is for the camera at rest.
"""
from __future__ import annotations

import functools

import cv2
import numpy as np

from sample_videos.render.camera import Camera


@functools.lru_cache(maxsize=4)
def distortion_maps(camera: Camera) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap maps: for each output pixel, where it lies in the GL image."""
    w, h = camera.width, camera.height
    k, s = camera.distortion, camera.render_scale
    half_diag = float(np.hypot(w, h) / 2)
    xs, ys = np.meshgrid(np.arange(w) + 0.5, np.arange(h) + 0.5)
    dx, dy = (xs - w / 2) / half_diag, (ys - h / 2) / half_diag
    rd = np.sqrt(dx * dx + dy * dy)
    # invert r (1 + k r^2) = rd by Newton's method (monotonic inside the frame)
    ru = rd.copy()
    for _ in range(8):
        ru -= (ru * (1 + k * ru * ru) - rd) / (1 + 3 * k * ru * ru)
    ratio = np.where(rd > 1e-9, ru / np.maximum(rd, 1e-9), 1.0) / s
    mx = (w / 2 + dx * ratio * half_diag - 0.5).astype(np.float32)
    my = (h / 2 + dy * ratio * half_diag - 0.5).astype(np.float32)
    return mx, my


def undistort_to_frame(img: np.ndarray, camera: Camera) -> np.ndarray:
    """The GL image (drawn with `camera.gl_view_proj()`) warped into the distorted frame."""
    mx, my = distortion_maps(camera)
    return cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


@functools.lru_cache(maxsize=16)
def _wobble(seed: int, salt: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng((seed, salt, 7019))
    return rng.uniform(0.35, 1.6, 6), rng.uniform(0, 2 * np.pi, 6)


def shake_offset(seed: int, t: float, amplitude: float) -> tuple[float, float, float]:
    """(dx, dy) px and rotation (degrees) of a shaking camera at time t:
    smooth, seeded, |dx|, |dy| <= amplitude, rotation <= amplitude / 20 degrees."""
    freq, phase = _wobble(seed, 1)
    v = np.sin(2 * np.pi * freq * t + phase)
    dx = amplitude * 0.5 * (0.6 * v[0] + 0.4 * v[1])
    dy = amplitude * 0.5 * (0.6 * v[2] + 0.4 * v[3])
    # a jolt now and then: the table is touched or someone walks by
    jolt = max(0.0, np.sin(2 * np.pi * 0.05 * t + phase[4])) ** 12
    dx += amplitude * 0.5 * jolt * v[5]
    dy += amplitude * 0.5 * jolt * v[4]
    return float(dx), float(dy), float(amplitude / 20 * v[5])


def shake(img: np.ndarray, seed: int, t: float, amplitude: float) -> np.ndarray:
    dx, dy, rot = shake_offset(seed, t, amplitude)
    h, w = img.shape[:2]
    m = np.array(cv2.getRotationMatrix2D((w / 2, h / 2), rot, 1.0), np.float64)
    m[:, 2] += (dx, dy)
    return cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def exposure_gain(seed: int, t: float, drift: float, period: float) -> float:
    """Auto-exposure drift: the camera's gain wanders slowly around 1,
    by at most `drift` (a fraction), over about `period` seconds."""
    if drift <= 0:
        return 1.0
    freq, phase = _wobble(seed, 2)
    slow = 0.7 * np.sin(2 * np.pi * t / period + phase[0])
    fast = 0.3 * np.sin(2 * np.pi * t / (period * 0.37) + phase[1])
    return float(1.0 + drift * (slow + fast))


@functools.lru_cache(maxsize=64)
def _gain_lut(gain_q: int) -> np.ndarray:
    g = gain_q / 1000.0
    # the image is gamma-encoded (1/2.2): a linear gain g scales codes by g^(1/2.2)
    return np.clip(np.arange(256) * g ** (1 / 2.2) + 0.5, 0, 255).astype(np.uint8)


def apply_gain(img: np.ndarray, gain: float) -> np.ndarray:
    if abs(gain - 1.0) < 5e-4:
        return img
    return cv2.LUT(img, _gain_lut(int(round(gain * 1000))))
