"""The fixed table camera: a pinhole with OpenGL matrices and a numpy projector.

World frame: metres, z up, table centre at the origin on the floor plane's
x/y, the table top at `TABLE_HEIGHT`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Camera:
    """A pinhole camera, optionally rolled and with radial lens distortion.

    `distortion` k moves a point at normalised radius r (1 = the frame's
    corner, measured from the centre) to r * (1 + k r^2): k < 0 is barrel
    distortion (a wide lens), k = -0.1 pulls the corners 10 % inward.
    `fov_y_deg` is the pinhole field of view at the centre of the frame.
    `project` includes roll and distortion, so calibration and truth projected
    with it match the frames exactly (render/lens.py warps the GL image).
    """
    position: tuple[float, float, float]
    target: tuple[float, float, float]
    fov_y_deg: float = 50.0
    width: int = 1280
    height: int = 720
    near: float = 0.1
    far: float = 30.0
    roll_deg: float = 0.0      # + turns the image clockwise (the horizon tilts down to the right)
    distortion: float = 0.0

    @property
    def focal_px(self) -> float:
        return 0.5 * self.height / np.tan(np.radians(self.fov_y_deg) / 2)

    def view_matrix(self) -> np.ndarray:
        eye = np.asarray(self.position, float)
        fwd = np.asarray(self.target, float) - eye
        fwd /= np.linalg.norm(fwd)
        right = np.cross(fwd, [0.0, 0.0, 1.0])
        right /= np.linalg.norm(right)
        up = np.cross(right, fwd)
        if self.roll_deg:
            a = np.radians(self.roll_deg)
            right, up = np.cos(a) * right - np.sin(a) * up, np.sin(a) * right + np.cos(a) * up
        m = np.eye(4)
        m[0, :3], m[1, :3], m[2, :3] = right, up, -fwd
        m[:3, 3] = -m[:3, :3] @ eye
        return m

    @property
    def render_scale(self) -> float:
        """How much wider than the pinhole frame the GL image is drawn, so a
        barrel-distorted frame has pixels to sample up to its corners."""
        k = self.distortion
        if k >= 0:
            return 1.0
        # the undistorted radius r with r (1 + k r^2) = 1 (the corner)
        r = 1.0
        for _ in range(30):
            r -= (r * (1 + k * r * r) - 1) / (1 + 3 * k * r * r)
        return float(r)

    def projection_matrix(self, scale: float = 1.0) -> np.ndarray:
        f = 1.0 / np.tan(np.radians(self.fov_y_deg) / 2) / scale
        aspect = self.width / self.height
        n, fa = self.near, self.far
        m = np.zeros((4, 4))
        m[0, 0], m[1, 1] = f / aspect, f
        m[2, 2], m[2, 3] = (fa + n) / (n - fa), 2 * fa * n / (n - fa)
        m[3, 2] = -1.0
        return m

    def view_proj(self) -> np.ndarray:
        return self.projection_matrix() @ self.view_matrix()

    def gl_view_proj(self) -> np.ndarray:
        """The matrix the GL image is drawn with (wider when distorted)."""
        if not self.distortion:
            return self.view_proj()
        return self.projection_matrix(self.render_scale) @ self.view_matrix()

    def distort_px(self, xy: np.ndarray) -> np.ndarray:
        """Pinhole pixel coordinates -> the distorted frame's."""
        if not self.distortion:
            return xy
        c = np.array([self.width / 2, self.height / 2])
        half_diag = float(np.hypot(self.width, self.height) / 2)
        d = (xy - c) / half_diag
        r2 = (d * d).sum(-1, keepdims=True)
        return c + d * (1 + self.distortion * r2) * half_diag

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (..., 3) -> pixel coordinates (..., 2), origin top-left."""
        p = np.asarray(points, float)
        h = np.concatenate([p, np.ones(p.shape[:-1] + (1,))], axis=-1) @ self.view_proj().T
        ndc = h[..., :2] / h[..., 3:4]
        x = (ndc[..., 0] + 1) * 0.5 * self.width
        y = (1 - ndc[..., 1]) * 0.5 * self.height
        return self.distort_px(np.stack([x, y], axis=-1))

    def depth(self, points: np.ndarray) -> np.ndarray:
        """Distance along the viewing axis, metres."""
        p = np.asarray(points, float)
        return -(p @ self.view_matrix()[2, :3] + self.view_matrix()[2, 3])


def judge_camera(height: float = 2.9, distance: float = 2.75, tilt_target_z: float = 0.45,
                 fov_y_deg: float = 40.0, width: int = 1280, height_px: int = 720,
                 target_x: float = 0.45) -> Camera:
    """A camera behind the judge's end of the table (the -x end), looking down the table."""
    return Camera(position=(-distance, 0.0, height), target=(target_x, 0.0, tilt_target_z),
                  fov_y_deg=fov_y_deg, width=width, height=height_px)
