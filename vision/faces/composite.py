"""Real faces with an eye mask composited on, seen as a table camera sees them.

No recording of a real club with its truth exists here, but openly
licensed real face photographs do (docs/data.md). To train and measure
the mask reading on real pixels, a dark eye mask is painted over a real
face's eyes, or lifted onto its forehead with the eyes showing, following
the face's own mesh landmarks (found on the full-size photo), and the
photo is then warped as a table camera sees a seated player: from above
(the face foreshortened, its forehead nearer), tilted and turned a
little, and shrunk to a 32-64 px head, with a camera's blur, noise and
JPEG compression.

Masks vary in shape (a straight band, a sleep mask with a nose notch, a
wide band from ear to ear, hard rounded goggles), colour (black, navy,
dark grey, dark brown, dark purple) and surface (plain cloth with a weave
and folds, a hard shell with a highlight, a pattern). The mask is shaded
by the face's own light, so a face lit from one side gives a mask lit
from that side. A strap runs from each side over the hair.

Pure image functions of a photo, its landmarks and a random generator.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.faces.features import geometry

SHAPES = ("band", "sleep", "wide", "goggle")
COLOURS = {"black": (14, 14, 16), "navy": (18, 24, 58), "grey": (40, 40, 44), "brown": (42, 28, 22),
           "purple": (36, 20, 46)}
SURFACES = ("cloth", "hard", "pattern")
# mesh indices: the face oval's sides at eye height, the brows
SIDES = (127, 356)
BROWS = (70, 63, 105, 66, 107, 336, 296, 334, 293, 300)


@dataclass(frozen=True)
class MaskLook:
    shape: str
    colour: str
    surface: str
    top: float        # above the brows, in eye spans
    bottom: float     # below the eye centres, in eye spans
    reach: float      # beyond the face's sides, in eye spans

    @staticmethod
    def draw(rng: np.random.Generator) -> "MaskLook":
        return MaskLook(str(rng.choice(SHAPES)), str(rng.choice(list(COLOURS))), str(rng.choice(SURFACES)),
                        float(rng.uniform(0.05, 0.3)), float(rng.uniform(0.3, 0.5)), float(rng.uniform(0.0, 0.25)))


def _face_axes(lm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Eye midpoint, unit vector along the eyes (toward the subject's left),
    unit vector down the face, eye span."""
    g = geometry(lm)
    mid = g.eyes.mean(axis=0)
    ex = (g.eyes[1] - g.eyes[0]) / max(g.eye_span, 1e-6)
    ey = np.array([-ex[1], ex[0]])
    if np.dot(g.mouth - mid, ey) < 0:
        ey = -ey
    return mid, ex, ey, g.eye_span


def mask_outline(lm: np.ndarray, look: MaskLook, lifted: float = 0.0) -> np.ndarray:
    """The mask's outline (N, 2) image px. `lifted`: how far it is pushed up,
    in eye spans (0: over the eyes; about 0.6-1.0 clears them)."""
    mid, ex, ey, d = _face_axes(lm)
    pts = lm[:, :2]
    u_side = [float(np.dot(pts[i] - mid, ex)) for i in SIDES]
    brow_v = min(float(np.dot(pts[i] - mid, ey)) for i in BROWS)
    top = brow_v - look.top * d - lifted * d
    bottom = look.bottom * d - lifted * d
    left, right = u_side[0] - look.reach * d, u_side[1] + look.reach * d
    t = np.linspace(0.0, 1.0, 24)
    if look.shape == "goggle":
        # two rounded lenses joined over the nose
        out = []
        for cu, half in ((left * 0.5, abs(left) * 0.55), (right * 0.5, abs(right) * 0.55)):
            ang = np.linspace(0, 2 * np.pi, 28, endpoint=False)
            cv_ = (top + bottom) / 2
            hv = (bottom - top) / 2
            out.append(np.stack([cu + half * np.sign(np.cos(ang)) * np.abs(np.cos(ang)) ** 0.6,
                                 cv_ + hv * np.sign(np.sin(ang)) * np.abs(np.sin(ang)) ** 0.6], axis=1))
        uv = np.concatenate(out)
        hull = cv2.convexHull(uv.astype(np.float32)).reshape(-1, 2)
        uv = hull.astype(np.float64)
    else:
        sag = {"band": 0.02, "sleep": 0.1, "wide": 0.04}[look.shape] * d
        u_top = left + (right - left) * t
        v_top = top + sag * np.sin(np.pi * t) * -0.5
        u_bot = right + (left - right) * t
        v_bot = bottom + sag * np.sin(np.pi * t)
        if look.shape == "sleep":
            # the notch over the nose, and rounder lower corners
            c = np.abs(u_bot) < 0.22 * d
            v_bot = np.where(c, v_bot - (0.22 * d - np.abs(u_bot)) * 1.2, v_bot)
            v_bot -= 0.12 * d * (np.abs(u_bot) / max(abs(left), abs(right))) ** 4
        uv = np.concatenate([np.stack([u_top, v_top], 1), np.stack([u_bot, v_bot], 1)])
    return mid + uv[:, :1] * ex + uv[:, 1:] * ey


def _alpha(shape: tuple[int, int], outline: np.ndarray, soft: float) -> np.ndarray:
    """Antialiased fill of the outline (4x supersampled), feathered by `soft` px."""
    h, w = shape
    big = np.zeros((h * 4, w * 4), np.uint8)
    cv2.fillPoly(big, [np.round(outline * 4).astype(np.int32)], (255,))
    a = np.asarray(cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA), np.float32) / 255.0
    if soft > 0.3:
        return np.asarray(cv2.GaussianBlur(a, (0, 0), soft), np.float32)
    return a


def _texture(shape: tuple[int, int], look: MaskLook, d: float, rng: np.random.Generator) -> np.ndarray:
    """Per-pixel multiplier of the mask's colour (about 1)."""
    h, w = shape
    if look.surface == "cloth":
        weave = np.asarray(cv2.GaussianBlur(rng.normal(1.0, 0.12, (h, w)).astype(np.float32), (0, 0),
                                            max(0.5, d * 0.01)), np.float32)
        folds = cv2.resize(rng.normal(1.0, 0.25, (4, 6)).astype(np.float32), (w, h),
                           interpolation=cv2.INTER_CUBIC)
        return weave * folds
    if look.surface == "hard":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.2, 0.5) * h
        spot = np.exp(-(((xx - cx) / (0.25 * d)) ** 2 + ((yy - cy) / (0.12 * d)) ** 2))
        return (1.0 + 4.0 * spot).astype(np.float32)
    # a pattern: dots or stripes a little lighter than the ground
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    period = max(3.0, d * rng.uniform(0.12, 0.3))
    if rng.random() < 0.5:
        pat = (np.sin(xx / period * 2 * np.pi) * np.sin(yy / period * 2 * np.pi) > 0.5)
    else:
        ang = rng.uniform(0, np.pi)
        pat = np.sin((xx * np.cos(ang) + yy * np.sin(ang)) / period * 2 * np.pi) > 0.6
    return np.where(pat, rng.uniform(1.6, 2.6), 1.0).astype(np.float32)


def _face_light(image: np.ndarray, lm: np.ndarray, d: float) -> np.ndarray:
    """The face's own lighting around the eyes, low-passed, relative to its
    cheeks (about 1). Low-passed at an eighth of the size: the same light, a
    sixtieth of the work."""
    h, w = image.shape[:2]
    luma = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    small = np.asarray(cv2.resize(luma, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA), np.float32)
    small = np.asarray(cv2.GaussianBlur(small, (0, 0), max(0.5, d / 16)), np.float32)
    low = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    at = np.clip(np.round(lm[[205, 425, 4], :2]).astype(int), 0, [w - 1, h - 1])
    skin = float(np.median(low[at[:, 1], at[:, 0]]))
    return np.clip(low / max(skin, 1.0), 0.4, 1.6)


def paint_mask(image: np.ndarray, lm: np.ndarray, look: MaskLook, rng: np.random.Generator,
               lifted: float = 0.0) -> np.ndarray:
    """The photo with the mask painted on (over the eyes, or lifted by `lifted` eye spans)."""
    h, w = image.shape[:2]
    mid, ex, ey, d = _face_axes(lm)
    outline = mask_outline(lm, look, lifted)
    a = _alpha((h, w), outline, soft=max(0.5, 0.02 * d))
    # the strap: from the middle of each side, back along the eye line over the hair
    strap = np.zeros((h, w), np.float32)
    along = outline @ ex
    for sign, i in ((-1.0, int(np.argmin(along))), (1.0, int(np.argmax(along)))):
        side_pts = outline[np.abs(along - along[i]) < 0.1 * d]
        start = side_pts.mean(axis=0)
        end = start + sign * ex * 0.5 * d - ey * 0.05 * d
        cv2.line(strap, tuple(int(v) for v in np.round(start)), tuple(int(v) for v in np.round(end)),
                 (1.0,), max(1, int(round(0.1 * d))))
    a = np.maximum(a, cv2.GaussianBlur(strap, (0, 0), max(0.5, 0.02 * d)))
    colour = np.array(COLOURS[look.colour], np.float32) * rng.uniform(0.8, 1.3)
    tex = _texture((h, w), look, d, rng)
    light = _face_light(image, lm, d)
    layer = np.clip(colour[None, None, :] * (tex * light)[..., None], 0, 255)
    out = image.astype(np.float32) * (1 - a[..., None]) + layer * a[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class TableView:
    """How the table camera sees the head: degrees from above, roll and turn,
    and the head's width in frame px."""
    pitch: float
    roll: float
    yaw: float
    head_px: float

    @staticmethod
    def draw(rng: np.random.Generator, head_px: tuple[float, float] = (32.0, 64.0)) -> "TableView":
        return TableView(float(rng.uniform(10.0, 40.0)), float(rng.uniform(-15.0, 15.0)),
                         float(rng.uniform(-25.0, 25.0)), float(rng.uniform(*head_px)))


def _rotation(pitch: float, yaw: float, roll: float) -> np.ndarray:
    p, y, r = np.radians([pitch, yaw, roll])
    rx = np.array([[1, 0, 0], [0, np.cos(p), -np.sin(p)], [0, np.sin(p), np.cos(p)]])
    ry = np.array([[np.cos(y), 0, np.sin(y)], [0, 1, 0], [-np.sin(y), 0, np.cos(y)]])
    rz = np.array([[np.cos(r), -np.sin(r), 0], [np.sin(r), np.cos(r), 0], [0, 0, 1]])
    return rz @ ry @ rx


def view_homography(lm: np.ndarray, view: TableView, out_size: tuple[int, int],
                    centre: tuple[float, float]) -> np.ndarray:
    """The homography taking the photo to a frame where the face, seen from
    above (its plane turned about its own axes), is view.head_px wide and
    centred at `centre`."""
    g = geometry(lm)
    c = g.centre
    # the face as a plane turned about its own centre, at distance f (photo px;
    # about 3 face widths): its top comes nearer the camera looking down
    f = 3.0 * g.width
    r = _rotation(view.pitch, view.yaw, view.roll)
    k = np.array([[f, 0, 0], [0, f, 0], [0, 0, 1.0]])
    to_c = np.array([[1, 0, -c[0]], [0, 1, -c[1]], [0, 0, 1.0]])
    plane = np.column_stack([r[:, 0], r[:, 1], [0.0, 0.0, f]])
    h = k @ plane @ to_c
    h /= h[2, 2]
    # scale so the face is head_px wide, then move it to `centre`
    corners = np.array([[c[0] - g.width / 2, c[1], 1], [c[0] + g.width / 2, c[1], 1]]).T
    proj = h @ corners
    proj = proj[:2] / proj[2]
    s = view.head_px / max(float(np.linalg.norm(proj[:, 1] - proj[:, 0])), 1e-6)
    centre_proj = h @ np.array([c[0], c[1], 1.0])
    centre_proj = centre_proj[:2] / centre_proj[2]
    move = np.array([[s, 0, centre[0] - s * centre_proj[0]], [0, s, centre[1] - s * centre_proj[1]], [0, 0, 1.0]])
    return move @ h


def table_view(image: np.ndarray, lm: np.ndarray, view: TableView, out_size: tuple[int, int],
               centre: tuple[float, float], rng: np.random.Generator,
               camera: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The photo as the table camera sees it (out_size = (w, h)); returns the
    frame and the homography. `camera`: add blur, noise and JPEG."""
    h = view_homography(lm, view, out_size, centre)
    # shrink first to about twice the target so the warp does not alias
    g = geometry(lm)
    pre = min(1.0, 2.0 * view.head_px / max(g.width, 1.0))
    small = cv2.resize(image, None, fx=pre, fy=pre, interpolation=cv2.INTER_AREA) if pre < 1.0 else image
    s = np.diag([1.0 / pre, 1.0 / pre, 1.0])
    frame = cv2.warpPerspective(small, h @ s, out_size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if camera:
        frame = camera_look(frame, rng)
    return frame, h


def camera_look(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A room's light and a camera's optics on a frame: exposure, white
    balance, a light from one side, blur, sensor noise, JPEG."""
    img = frame.astype(np.float32)
    gain = rng.uniform(0.6, 1.25)
    balance = rng.uniform(0.85, 1.15, 3)
    h, w = img.shape[:2]
    ang = rng.uniform(0, 2 * np.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ramp = ((xx - w / 2) * np.cos(ang) + (yy - h / 2) * np.sin(ang)) / max(w, h)
    side = 1.0 + rng.uniform(0.0, 0.6) * ramp
    img = img * gain * balance[None, None, :] * side[..., None]
    gamma = rng.uniform(0.8, 1.25)
    img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** gamma
    sigma = rng.uniform(0.0, 0.9)
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img += rng.normal(0, rng.uniform(0.0, 5.0), img.shape)
    out = np.clip(img, 0, 255).astype(np.uint8)
    q = int(rng.integers(35, 90))
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(out, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB) if ok else out


__all__ = ["SHAPES", "COLOURS", "SURFACES", "MaskLook", "mask_outline", "paint_mask", "TableView",
           "view_homography", "table_view", "camera_look"]
