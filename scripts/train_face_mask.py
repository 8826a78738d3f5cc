"""Train the face mask model (vision/faces/mask_model.json) on real faces.

    .venv/bin/python scripts/train_face_mask.py [--augment 8] [--renders DIR...] [--out PATH]

Real face photographs (training half of the split in vision.faces.real_faces,
printed) are put into seats as a table camera sees them, bare, with a dark
eye mask composited over the eyes, or with it lifted onto the forehead
(vision.faces.composite); each seat is cut as the extraction cuts it, and
the face is found in its head window as the analysis finds it: the face
mesh, or, where the mesh declines a face its detector found, face
detection's keypoints placing the landmark template (vision.faces.mask_read).
The descriptor of what lies over the eyes (vision.faces.features) is one
training row; every case also gives a keypoint row, so the model knows
both readings. The classifier is the seat windows' small network
(vision.training.window_fit.fit).

`--renders`: rendered games of this helper's own seeds (never the
committed sample, never /work/bank) add the rendered players' faces where
the mesh finds them, labelled from truth.json: the renderer's hair is a
dark cap low on the forehead, which a model of real faces alone takes for
a lifted mask.

Prints the split, how often the face was found per class, the accuracy of
a cross-validation by person inside the training half (folds never share
a person), then trains on all of it and writes the model with those
figures. The held-out half is read only by scripts/eval_real_pixels.py.
Exit 2 when the photos are missing.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

HIDDEN, EPOCHS = 32, 60
# rendered frames: this far (s) from a change of mask state is "between states"
TRANSITION = 0.6
RENDER_STEP = 1.0


def face_rows(patch: np.ndarray, seen, kp, template: np.ndarray, kind: str, person: str) -> list:
    """Training rows of one head window: the mesh's reading and the keypoints' reading."""
    from vision.faces.features import from_keypoints, mask_features

    rows = []
    if seen is not None:
        rows.append((mask_features(patch, seen), kind, person, "mesh"))
    if kp is not None:
        rows.append((mask_features(patch, from_keypoints(kp, template)), kind, person, "keypoints"))
    return rows


def photo_landmarks(photos):
    """(photo, image, landmarks) for every photo the mesh reads at full size."""
    from vision.faces.mesh import HeadMesh
    from vision.faces.real_faces import load_rgb

    out = []
    with HeadMesh(min_detection=0.5) as mesh:
        for ph in photos:
            image = load_rgb(ph.path)
            lm = mesh.landmarks(image)
            if lm is None:
                print(f"  no face found on the photo itself: {ph.name} (skipped)")
                continue
            out.append((ph, image, lm))
    return out


def template_of(read) -> np.ndarray:
    """The landmarks' mean position in the canonical frame."""
    from vision.faces.features import to_canonical

    pts = [lm[:, :2] @ to_canonical(lm)[:, :2].T + to_canonical(lm)[:, 2] for _, _, lm in read]
    return np.mean(pts, axis=0)


def photo_rows(read, augment: int, template: np.ndarray, seed_tag: str = "train"):
    """(x, y, person, via) rows of the composed cases, per-class finds, and
    the (head-window descriptor, person) of every case for the domain model."""
    from vision.appearance import window_descriptor
    from vision.faces.mesh import HeadMesh, head_patch
    from vision.faces.real_faces import KINDS, compose, seat_crop_of
    from vision.hands.real_zone import stable_seed

    rows: list[tuple[np.ndarray, str, str, str]] = []
    windows: list[tuple[np.ndarray, str]] = []
    found: dict[str, Counter] = {k: Counter() for k in KINDS}
    with HeadMesh() as mesh:
        for ph, image, lm in read:
            if ph.sunglasses:
                continue          # their eyes are covered already: no "bare" case
            for a in range(augment):
                for kind in KINDS:
                    rng = np.random.default_rng(stable_seed(seed_tag, ph.name, a, kind))
                    case = compose(ph, image, lm, kind, rng)
                    crop = seat_crop_of(case)
                    windows.append((window_descriptor("head", crop, case.region), f"{ph.source}/{ph.person}"))
                    p = head_patch(crop, case.region)
                    seen, kp = mesh.read(p)
                    found[kind]["mesh" if seen is not None else "keypoints" if kp is not None else "missed"] += 1
                    rows += face_rows(p, seen, kp, template, kind, f"{ph.source}/{ph.person}")
    return rows, found, windows


def render_rows(games: list[Path], template: np.ndarray):
    """Rows of rendered players' faces the mesh (or the keypoints) finds, by
    truth; and the head-window descriptor of every seat-frame."""
    from vision.appearance import window_descriptor
    from vision.calibration import load_calibration
    from vision.crops import seat_crop
    from vision.faces.mesh import HeadMesh, head_patch
    from vision.video import open_video

    rows = []
    windows: list[tuple[np.ndarray, str]] = []
    with HeadMesh() as mesh:
        for game in games:
            truth = json.loads((game / "truth.json").read_text())
            cam = load_calibration(game / "calibration.json").camera("cam1")
            spans = [s for s in truth["seat_states"] if s["layer"] == "mask"]

            def state(seat: int, t: float) -> str | None:
                for s in spans:
                    if s["seat"] == seat and s["t0"] + TRANSITION <= t < s["t1"] - TRANSITION:
                        return s["state"]
                return None

            video = open_video(str(game / "video.mp4"))
            for fr in video.iter_range(0.5, video.info.duration, 1.0 / RENDER_STEP, max(cam.width, cam.height)):
                for seat, region in cam.seats.items():
                    crop = seat_crop(fr.image, region)
                    person = f"render/{game.name}/{seat}"
                    windows.append((window_descriptor("head", crop, region), person))
                    kind = state(seat, fr.t)
                    if kind is None:
                        continue
                    p = head_patch(crop, region)
                    rows += face_rows(p, *mesh.read(p), template, kind, person)
    return rows, windows


# day frames of the rendered games (s) that real heads are put into
INTO_TIMES = (24.0, 30.0, 36.0, 42.0)
INTO_PER_PHOTO = 3


def into_rows(read, games: list[Path], template: np.ndarray, seed_tag: str = "into"):
    """Rows of real heads put into rendered seats (vision.faces.real_faces.compose_into),
    and their head-window descriptors: real pixels in a rendered room."""
    from vision.appearance import window_descriptor
    from vision.calibration import load_calibration
    from vision.faces.mesh import HeadMesh, head_patch
    from vision.faces.real_faces import KINDS, compose_into, seat_crop_of
    from vision.hands.real_zone import stable_seed
    from vision.video import open_video

    backgrounds = []
    for game in games:
        cam = load_calibration(game / "calibration.json").camera("cam1")
        video = open_video(str(game / "video.mp4"))
        for t in INTO_TIMES:
            for fr in video.iter_range(t, t + 0.01, 25.0, max(cam.width, cam.height)):
                backgrounds.append((fr.image, cam))
    rows, windows = [], []
    with HeadMesh() as mesh:
        for ph, image, lm in read:
            if ph.sunglasses:
                continue
            for a in range(INTO_PER_PHOTO):
                rng = np.random.default_rng(stable_seed(seed_tag, ph.name, a))
                frame, cam = backgrounds[int(rng.integers(len(backgrounds)))]
                seat = int(rng.choice(sorted(cam.seats)))
                kind = KINDS[int(rng.integers(len(KINDS)))]
                case = compose_into(ph, image, lm, kind, rng, frame, cam.seats[seat])
                crop = seat_crop_of(case)
                person = f"{ph.source}/{ph.person}"
                windows.append((window_descriptor("head", crop, case.region), person))
                p = head_patch(crop, case.region)
                rows += face_rows(p, *mesh.read(p), template, kind, person)
    return rows, windows


def domain_model(real: list, rendered: list, folds: int):
    """The head window's domain model (vision.faces.window_domain) and its
    cross-validated accuracy by person / rendered seat."""
    from vision.faces.window_domain import CLASSES
    from vision.training.window_fit import fit

    x = np.array([d for d, _ in real] + [d for d, _ in rendered], np.float32)
    y = np.array(["real"] * len(real) + ["rendered"] * len(rendered))
    who = np.array([p for _, p in real] + [p for _, p in rendered])
    persons = sorted(set(who))
    fold = np.array([{p: i % folds for i, p in enumerate(persons)}[p] for p in who])
    right: Counter = Counter()
    for k in range(folds):
        tr, te = fold != k, fold == k
        m = fit(x[tr], y[tr], CLASSES, hidden=HIDDEN, epochs=EPOCHS, seed=k)
        p_real = m.proba(x[te])[:, m.classes.index("real")]
        for t, p in zip(y[te], p_real):
            right[t] += int((p >= 0.5) == (t == "real"))
    cv = {c: {"rows": int((y == c).sum()), "accuracy": round(right[c] / max(int((y == c).sum()), 1), 4)}
          for c in CLASSES}
    return fit(x, y, CLASSES, hidden=HIDDEN, epochs=EPOCHS, seed=0), cv


def cross_validate(x, y, people, folds: int) -> dict:
    from vision.faces.mask_read import STATES
    from vision.training.window_fit import fit

    persons = sorted(set(people))
    fold_of = {p: i % folds for i, p in enumerate(persons)}
    fold = np.array([fold_of[p] for p in people])
    right: Counter = Counter()
    total: Counter = Counter()
    for k in range(folds):
        tr, te = fold != k, fold == k
        model = fit(x[tr], y[tr], STATES, hidden=HIDDEN, epochs=EPOCHS, seed=k)
        pred = np.array(model.classes)[model.proba(x[te]).argmax(axis=1)]
        for t, p, who in zip(y[te], pred, people[te]):
            key = ("render " if who.startswith("render/") else "") + t
            total[key] += 1
            right[key] += int(t == p)
    return {c: {"rows": total[c], "accuracy": round(right[c] / max(total[c], 1), 4)} for c in sorted(total)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--augment", type=int, default=8, help="table views per photo and class")
    parser.add_argument("--renders", type=Path, nargs="*", default=[],
                        help="rendered games (mafvar synth) of this helper's seeds to add")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None, help="model path (default: the committed one)")
    parser.add_argument("--domain-out", type=Path, default=None,
                        help="head-window domain model path (default: the committed one; needs --renders)")
    args = parser.parse_args(argv)

    from vision.faces.mask_read import MODEL_PATH, STATES, MaskModel, save_model
    from vision.faces.real_faces import SPLIT_RULE, list_faces
    from vision.training.window_fit import fit

    try:
        train = list_faces(held_out=False)
        held = list_faces(held_out=True)
    except FileNotFoundError as exc:
        print(f"train_face_mask: error: {exc}", file=sys.stderr)
        return 2
    print(f"split: {SPLIT_RULE}")
    for name, part in (("train", train), ("held out", held)):
        by = Counter(p.source for p in part)
        persons = len({(p.source, p.person) for p in part})
        print(f"  {name:>8}: {len(part)} photos of {persons} people ({dict(by)})")
    started = time.perf_counter()
    read = photo_landmarks(train)
    template = template_of(read)
    rows, found, real_windows = photo_rows(read, args.augment, template)
    for kind, c in found.items():
        n = sum(c.values())
        print(f"  face found: {kind:<12} mesh {c['mesh']}/{n}, keypoints only {c['keypoints']}, missed {c['missed']}")
    rendered_windows: list = []
    if args.renders:
        print(f"rendered games: {', '.join(str(g) for g in args.renders)}")
        more, rendered_windows = render_rows(args.renders, template)
        into, into_windows = into_rows(read, args.renders, template)
        print(f"real heads put into rendered seats: {len(into_windows)} ({len(into)} rows)")
        rows += more + into
        real_windows += into_windows
    x = np.array([r[0] for r in rows], np.float32)
    y = np.array([r[1] for r in rows])
    people = np.array([r[2] for r in rows])
    via = Counter((r[3], "render" if r[2].startswith("render/") else "photo", r[1]) for r in rows)
    print(f"rows: {len(y)} in {time.perf_counter() - started:.0f} s: {dict(sorted(via.items()))}")
    cv = cross_validate(x, y, people, args.folds)
    print(f"cross-validation by person ({args.folds} folds, training material only):")
    for c, r in cv.items():
        print(f"  {c:<20} {r['accuracy']:.1%} of {r['rows']}")
    model = MaskModel(fit(x, y, STATES, hidden=HIDDEN, epochs=EPOCHS, seed=0), template)
    out = args.out or MODEL_PATH
    meta = {"trained_on": {"split": SPLIT_RULE, "photos": len(train),
                           "people": len({(p.source, p.person) for p in train}),
                           "augment": args.augment, "renders": [Path(g).name for g in args.renders],
                           "rows": {f"{a}/{b}/{c}": n for (a, b, c), n in sorted(via.items())}},
            "cross_validation": cv, "hidden": HIDDEN, "epochs": EPOCHS}
    save_model(model, out, meta)
    print(f"wrote {out}")
    if rendered_windows:
        from vision.faces import window_domain
        dom, dom_cv = domain_model(real_windows, rendered_windows, args.folds)
        print("head-window domain (real pixels vs rendered), cross-validated by person / rendered seat:")
        for c, r in dom_cv.items():
            print(f"  {c:<10} {r['accuracy']:.1%} of {r['rows']}")
        dom_out = args.domain_out or window_domain.MODEL_PATH
        window_domain.save_model(dom, dom_out, {"trained_on": {"split": SPLIT_RULE,
                                                               "renders": [Path(g).name for g in args.renders]},
                                                "cross_validation": dom_cv})
        print(f"wrote {dom_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
