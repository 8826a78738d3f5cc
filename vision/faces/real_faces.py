"""Real face photographs as a seat's head: the material of the mask reading's
training (scripts/train_face_mask.py) and of its real-pixel check
(scripts/eval_real_pixels.py).

The photographs (openly licensed; sources and licences in docs/data.md) lie
outside the repository, in $MAFVAR_FACES (default <repo>/../data/faces):

    webmorph/neutral_front/NNN_03.jpg, webmorph/smiling_front/NNN_*.jpg
                                     Face Research Lab London Set (CC BY 4.0), person NNN
    webmorph/canada/NNN[fm].jpg      Young Adult White Faces (CC BY 4.0), one person each
    webmorph/lisa/*.jpg, webmorph/zoom/*.jpg   one person (CC0)
    acani/picture_N.jpg              Flickr portraits (CC BY 2.0 / CC BY-SA 2.0), one person each

Split (fixed, printed by the callers): by person, never by file (a
person's neutral and smiling photos stay on one side): within each source
the person ids sorted, even positions train, odd positions are held out.

A composed case puts one photo, bare, with a dark eye mask over the eyes
or with the mask lifted onto the forehead (vision.faces.composite), into a
seat of a synthetic frame as a table camera sees it, and gives the seat's
calibration with the error a real one has (the head's place and width
off by up to 15%).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.calibration import SeatRegion
from vision.crops import seat_crop
from vision.faces.composite import MaskLook, TableView, paint_mask, table_view
from vision.faces.features import geometry

REPO = Path(__file__).resolve().parents[2]
SPLIT_RULE = ("faces: by person; within each source the person ids sorted, even positions (0, 2, ...) train, "
              "odd positions (1, 3, ...) held out; all photos of a person on one side")
KINDS = ("mask_off", "mask_on", "mask_lifted")
# photos of people in dark sunglasses (acani): real dark eye cover, reported on their own
SUNGLASSES = frozenset({"acani/picture_7.jpg", "acani/picture_13.jpg", "acani/picture_22.jpg"})


def faces_root() -> Path:
    return Path(os.environ.get("MAFVAR_FACES", REPO.parent / "data" / "faces"))


@dataclass(frozen=True)
class FacePhoto:
    path: Path
    source: str       # london, canada, lisa, acani
    person: str
    held_out: bool

    @property
    def name(self) -> str:
        return f"{self.path.parent.name}/{self.path.name}"

    @property
    def sunglasses(self) -> bool:
        return self.name in SUNGLASSES


def _person(source: str, path: Path) -> str:
    if source == "london":
        return path.name[:3]
    if source == "lisa":
        return "lisa"
    return path.stem


def list_faces(root: Path | None = None, held_out: bool | None = None) -> list[FacePhoto]:
    """Every face photo, in a fixed order, with its side of the split."""
    root = Path(root) if root is not None else faces_root()
    folders = {"london": ["webmorph/neutral_front", "webmorph/smiling_front"], "canada": ["webmorph/canada"],
               "lisa": ["webmorph/lisa", "webmorph/zoom"], "acani": ["acani"]}
    out: list[FacePhoto] = []
    for source, dirs in folders.items():
        files = []
        for d in dirs:
            folder = root / d
            if not folder.is_dir():
                raise FileNotFoundError(f"missing face folder {folder} (set MAFVAR_FACES; docs/data.md)")
            files += sorted(p for p in folder.iterdir() if p.suffix.lower() == ".jpg" and not p.name.startswith("."))
        people = sorted({_person(source, p) for p in files}, key=_natural)
        side = {person: i % 2 == 1 for i, person in enumerate(people)}
        out += [FacePhoto(p, source, _person(source, p), side[_person(source, p)]) for p in files]
    if held_out is not None:
        out = [f for f in out if f.held_out == held_out]
    return out


def _natural(s: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s))


def load_rgb(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise FileNotFoundError(f"cannot read {path}")
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)


@dataclass
class HeadCase:
    photo: FacePhoto
    kind: str                 # the truth: mask_off, mask_on, mask_lifted
    frame: np.ndarray         # RGB: the seat as the table camera sees it
    region: SeatRegion        # its calibration (head off by the error a real one has)
    view: TableView
    look: MaskLook | None


# the synthetic seat, in head widths: the frame's size and where the head is in it
SEAT_W, SEAT_H, HEAD_AT = 5.0, 7.0, (2.5, 2.0)


def compose(photo: FacePhoto, image: np.ndarray, lm: np.ndarray, kind: str, rng: np.random.Generator,
            head_px: tuple[float, float] = (32.0, 64.0)) -> HeadCase:
    """One case: the photo (landmarks `lm` found on it), bare or masked, in a
    seat seen from above. The mask is lifted 0.7-1.1 eye spans: its lower
    edge at or above the brows, the eyes clear."""
    image, lm = shrink(image, lm)
    look = MaskLook.draw(rng) if kind != "mask_off" else None
    if look is not None:
        lifted = float(rng.uniform(0.7, 1.1)) if kind == "mask_lifted" else 0.0
        image = paint_mask(image, lm, look, rng, lifted)
    view = TableView.draw(rng, head_px)
    w = view.head_px
    size = (int(round(SEAT_W * w)), int(round(SEAT_H * w)))
    centre = (HEAD_AT[0] * w, HEAD_AT[1] * w)
    frame, h = table_view(image, lm, view, size, centre, rng)
    # the calibrated head: the face's centre as seen, its width, each off by up to 15%
    g = geometry(lm)
    c = h @ np.array([g.centre[0], g.centre[1], 1.0])
    c = c[:2] / c[2]
    err = rng.uniform(-0.15, 0.15, 3)
    head = (float(c[0] + err[0] * w), float(c[1] + err[1] * w), float(w * (1 + err[2])))
    body = (0.0, 0.0, float(size[0]), float(size[1]) * 0.8)
    zone = (float(size[0]) * 0.2, float(size[1]) * 0.82, float(size[0]) * 0.8, float(size[1]) * 0.98)
    return HeadCase(photo, kind, frame, SeatRegion(body, zone, head), view, look)


# a photo is worked on with its face at most this wide (px): the head it
# becomes is 64 px at most, and a full-size photo only slows the painting
WORK_FACE_PX = 160.0


def shrink(image: np.ndarray, lm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The photo and its landmarks scaled so the face is at most WORK_FACE_PX wide."""
    s = WORK_FACE_PX / max(geometry(lm).width, 1.0)
    if s >= 1.0:
        return image, lm
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    return small, lm * s


def compose_into(photo: FacePhoto, image: np.ndarray, lm: np.ndarray, kind: str, rng: np.random.Generator,
                 frame: np.ndarray, region: SeatRegion) -> HeadCase:
    """One case with a rendered frame around it: the photo's head (bare or
    masked, seen from above) replaces a rendered player's head at the seat's
    calibrated head, inside a feathered oval that keeps the face and hair;
    the rest of the seat stays rendered."""
    look = MaskLook.draw(rng) if kind != "mask_off" else None
    image, lm = shrink(image, lm)
    if look is not None:
        lifted = float(rng.uniform(0.7, 1.1)) if kind == "mask_lifted" else 0.0
        image = paint_mask(image, lm, look, rng, lifted)
    hx, hy, hw = region.head if region.head is not None else (0.0, 0.0, 0.0)
    view = TableView.draw(rng, (hw, hw + 1e-3))
    h, w = frame.shape[:2]
    warped, hom = table_view(image, lm, view, (w, h), (hx, hy), rng, camera=False)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    oval = ((xx - hx) / (0.62 * hw)) ** 2 + ((yy - (hy - 0.05 * hw)) / (0.85 * hw)) ** 2
    alpha = np.clip((1.15 - oval) / 0.3, 0.0, 1.0)[..., None]
    out = np.clip(frame.astype(np.float32) * (1 - alpha) + warped.astype(np.float32) * alpha, 0, 255)
    noisy = out + rng.normal(0, rng.uniform(0.0, 3.0), out.shape)
    return HeadCase(photo, kind, np.clip(noisy, 0, 255).astype(np.uint8), region, view, look)


def seat_sheet(cases: list[HeadCase], columns: int = 5,
               grey: int = 110) -> tuple[np.ndarray, list[tuple[float, float, float]]]:
    """The cases' seat frames laid out in a grid on one image (a photo of many
    people at a table camera's scale, every pixel real), and each seat's head
    (x, y, width) in it, in the cases' order."""
    cw = max(c.frame.shape[1] for c in cases)
    ch = max(c.frame.shape[0] for c in cases)
    rows = -(-len(cases) // columns)
    sheet = np.full((rows * ch, columns * cw, 3), grey, np.uint8)
    heads = []
    for i, c in enumerate(cases):
        x0, y0 = (i % columns) * cw, (i // columns) * ch
        sheet[y0:y0 + c.frame.shape[0], x0:x0 + c.frame.shape[1]] = c.frame
        hx, hy, hw = c.region.head or (0.0, 0.0, 0.0)
        heads.append((x0 + hx, y0 + hy, hw))
    return sheet, heads


def seat_crop_of(case: HeadCase):
    """The case's seat crop, cut as the extraction cuts a seat."""
    return seat_crop(case.frame, case.region)


__all__ = ["SPLIT_RULE", "KINDS", "SUNGLASSES", "faces_root", "FacePhoto", "list_faces", "load_rgb", "HeadCase",
           "compose", "compose_into", "shrink", "seat_sheet", "seat_crop_of"]
