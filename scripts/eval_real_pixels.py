"""Real pixels no training step used: what the seat readings make of them.

    .venv/bin/python scripts/eval_real_pixels.py [--json] [--augment 2] [--masks-only] [--hands-only]
    .venv/bin/python scripts/eval_real_pixels.py --hand-before [--json] | --tune-hand

(a) The mask, per class, on the held-out half of the real face photographs
    (split printed; vision.faces.real_faces): each photo bare, with a dark
    eye mask composited over its eyes and with the mask lifted onto the
    forehead, seen as a table camera sees a seat (from above, tilted and
    turned, a 32-64 px head, a calibration off by up to 15%), read by the
    analysis' own per-frame path (vision.stills.read_mask: the extraction's
    seat path with the face mesh, then seat_states.classify_frame). A
    "cannot judge" counts as not right; it is listed. The photos of people
    in real dark sunglasses are reported on their own.
(d) With --hand-before: a real hand before a masked real face. Each
    held-out face, masked, with a held-out real HaGRID hand laid over its
    eyes (the palm 0.55-0.9 head widths, the wrist under the face), read
    by the same path three ways: with the hand checks off (the reading
    before them), with the mesh's own look for a hand in the head window,
    and with the hands the hand model finds on the frame as well (what the
    seat crop's hands give the analysis where they were read). The truth is
    "mask on"; a reading of "mask off" or "lifted" is what raises a false
    peek, "cannot judge" is an honest answer. --tune-hand runs (d) and (a)
    on the TRAINING halves for each threshold of the hand checks: where
    the threshold is chosen.
(e) With --table: `mafvar stills` on a photo of many people at a table
    camera's scale. Sheets of ten seats, each as (a) composes it (a
    held-out face, bare, masked or lifted, seen from above, a 32-64 px
    head), laid out five by two on one image (about 1200x700), every pixel
    real; read by `mafvar stills`' own function (vision.stills.read_still):
    per class, the seats whose person was found and their mask readings;
    and the people found at no seat.
(b) The vote fist on real hands laid into table zones at the table
    camera's scale, and (c) `mafvar hands` per class on the real hand
    crops: the held-out half of HaGRID, by scripts/eval_real_hands.py's own
    functions.

Targets: mask_on and mask_off >= 95%, mask_lifted >= 90%; vote fist recall
>= 95% and precision >= 98%; thumb-up and fist crops >= 95%. Exit status 1
when a target is missed, 2 when the data are missing.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

MASK_TARGETS = {"mask_on": 0.95, "mask_off": 0.95, "mask_lifted": 0.90}
SIZES = ((32, 44), (44, 54), (54, 65))


def mask_accuracy(photos, augment: int, head_px: tuple[float, float] = (32.0, 64.0),
                  sizes: tuple[tuple[int, int], ...] = SIZES) -> dict:
    from vision.faces.mesh import HeadMesh
    from vision.faces.real_faces import KINDS, compose, load_rgb, seat_crop_of
    from vision.faces.window_domain import REAL_FROM, head_real
    from vision.hands.real_zone import stable_seed
    from vision.landmarks import Model, SeatLandmarker
    from vision.stills import read_mask

    read: dict[str, Counter] = {k: Counter() for k in KINDS}
    by_size: dict[tuple[str, str], Counter] = {}
    sunglasses: Counter = Counter()
    window_trusted = 0
    skipped = []
    with HeadMesh(min_detection=0.5) as photo_mesh, SeatLandmarker(models=(Model.MESH,)) as seat:
        for ph in photos:
            image = load_rgb(ph.path)
            lm = photo_mesh.landmarks(image)
            if lm is None:
                skipped.append(ph.name)
                continue
            for a in range(augment):
                for kind in KINDS:
                    if ph.sunglasses and kind != "mask_off":
                        continue
                    rng = np.random.default_rng(stable_seed("eval", ph.name, a, kind))
                    case = compose(ph, image, lm, kind, rng, head_px)
                    m = read_mask(seat, case.frame, case.region)
                    window_trusted += head_real(seat_crop_of(case), case.region).get("head_real", 0.0) < REAL_FROM
                    said = m.state or f"cannot judge ({m.cannot_judge})"
                    if ph.sunglasses:
                        sunglasses[said] += 1
                        continue
                    read[kind][said] += 1
                    size = next(f"{lo}-{hi - 1} px" for lo, hi in sizes if lo <= case.view.head_px < hi)
                    by_size.setdefault((kind, size), Counter())[said == kind] += 1
    out = {kind: {"cases": sum(c.values()), "right": c[kind], "accuracy": c[kind] / max(sum(c.values()), 1),
                  "read": dict(c)} for kind, c in read.items()}
    return {"classes": out, "by_size": {f"{k} {s}": {"cases": sum(c.values()), "right": c[True]}
                                        for (k, s), c in sorted(by_size.items())},
            "sunglasses": dict(sunglasses), "photos_skipped": skipped,
            "window_trusted": window_trusted, "cases": sum(sum(c.values()) for c in read.values()) + sum(sunglasses.values())}


HAND_BEFORE_WAYS = ("checks off", "mesh's own check", "with the frame's hands")


def hand_before_mask(photos, hands, over_face: float | None = None) -> dict:
    """(d): what a masked face with a real hand over its eyes is read as
    (`over_face`: the hand checks' threshold, default the committed one)."""
    import vision.faces.mask_read as mask_read
    from vision.faces.mesh import HeadMesh
    from vision.faces.real_faces import compose, load_rgb
    from vision.hands.composite import Placement, cut_out, paste_hand
    from vision.hands.detector import HandDetector
    from vision.hands.real_zone import stable_seed
    from vision.hands.report import read_hands
    from vision.landmarks import Model, SeatLandmarker
    from vision.stills import read_mask

    cut = []
    with HandDetector(max_hands=1) as detector:
        for hand in hands:
            image = load_rgb(str(hand.path))
            found = detector.detect(image)
            if found:
                lms = found[0].landmarks_px
                cut.append((image, cut_out(image, lms), lms))
    read = {w: Counter() for w in HAND_BEFORE_WAYS}
    if not cut:
        raise FileNotFoundError("no hand found in the HaGRID photos given")
    committed = mask_read.HAND_OVER_FACE
    on = committed if over_face is None else over_face
    with HeadMesh(min_detection=0.5) as photo_mesh, SeatLandmarker(models=(Model.MESH,)) as seat, \
            HandDetector() as frame_hands:
        for i, ph in enumerate(photos):
            if ph.sunglasses:
                continue
            image = load_rgb(ph.path)
            lm = photo_mesh.landmarks(image)
            if lm is None:
                continue
            rng = np.random.default_rng(stable_seed("hand-before", ph.name))
            case = compose(ph, image, lm, "mask_on", rng)
            hx, hy, hw = case.region.head
            himg, alpha, hlm = cut[i % len(cut)]
            place = Placement(float(rng.uniform(0.55, 0.9) * hw), (hx + float(rng.uniform(-0.3, 0.3)) * hw,
                                                                  hy + float(rng.uniform(0.5, 0.9)) * hw),
                              float(rng.uniform(-20, 20)), float(rng.uniform(0.8, 1.05)), (0.0, 1.0),
                              (int(rng.integers(20, 235)),) * 3)
            frame = paste_hand(case.frame, himg, alpha, hlm, place)
            boxes = [r.box for r in read_hands(frame_hands, frame)]
            for way in HAND_BEFORE_WAYS:
                mask_read.HAND_OVER_FACE = 2.0 if way == "checks off" else on
                try:
                    m = read_mask(seat, frame, case.region, boxes if way == "with the frame's hands" else ())
                finally:
                    mask_read.HAND_OVER_FACE = committed
                read[way][m.state or f"cannot judge ({m.cannot_judge})"] += 1
    return {way: {"cases": sum(c.values()), "read": dict(c),
                  "false_peek": c["mask_off"] + c["mask_lifted"]} for way, c in read.items()}


def tune_hand(thresholds=(0.15, 0.25, 0.35, 0.5)) -> dict:
    """The hand checks' threshold on the TRAINING halves (faces and HaGRID):
    per threshold, the false peek readings of (d) and what (a) loses to
    "cannot judge (hand)" on faces with no hand."""
    import vision.faces.mask_read as mask_read
    from vision.faces.real_faces import list_faces
    from vision.hands.real_zone import list_hagrid

    faces, hands = list_faces(held_out=False), list_hagrid(held_out=False)
    committed = mask_read.HAND_OVER_FACE
    out = {}
    for t in thresholds:
        d = hand_before_mask(faces, hands, t)
        mask_read.HAND_OVER_FACE = t
        try:
            a = mask_accuracy(faces, 1)
        finally:
            mask_read.HAND_OVER_FACE = committed
        out[t] = {"hand_before": d, "no_hand": {k: {"right": v["right"], "cases": v["cases"],
                                                     "hand": v["read"].get("cannot judge (hand)", 0)}
                                                 for k, v in a["classes"].items()}}
    return out


SMALL_SIZES = ((20, 24), (24, 28), (28, 32), (32, 37))


SHEETS = 4   # photos of ten seats each


def table_photo(photos, sheets: int = SHEETS) -> dict:
    """(e): sheets of ten seats, each seat (a) read as a table camera sees it
    (a held-out face, bare, masked or lifted, a 32-64 px head), laid out five
    by two on one image, all pixels real; read_still on the whole sheet; a
    person is a seat's when its face centre lies within 0.6 head widths of
    the seat's head."""
    from vision.faces.mesh import HeadMesh
    from vision.faces.real_faces import KINDS, compose, load_rgb, seat_sheet
    from vision.hands.real_zone import stable_seed
    from vision.stills import StillReader, read_still

    with HeadMesh(min_detection=0.5) as mesh:
        faces = [(ph, im, lm) for ph, im in ((ph, load_rgb(ph.path)) for ph in photos if not ph.sunglasses)
                 for lm in [mesh.landmarks(im)] if lm is not None]
    read: dict[str, Counter] = {k: Counter() for k in KINDS}
    stray, sizes = 0, []
    with StillReader() as reader:
        for n in range(sheets):
            cases = []
            for i in range(10):
                ph, im, lm = faces[(10 * n + i) % len(faces)]
                rng = np.random.default_rng(stable_seed("sheet", n, i, ph.name))
                cases.append(compose(ph, im, lm, KINDS[(n + i) % len(KINDS)], rng))
            sheet, heads = seat_sheet(cases)
            sizes.append(sheet.shape[:2])
            still = read_still(reader, sheet)
            matched: dict[int, object] = {}
            for person in still.people:
                fb = person.face_box
                if fb is None:
                    stray += 1
                    continue
                cx, cy = (fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2
                near = [i for i, (hx, hy, hw) in enumerate(heads)
                        if np.hypot(cx - hx, cy - hy) <= 0.6 * hw and i not in matched]
                if not near:
                    stray += 1
                    continue
                matched[min(near, key=lambda i: np.hypot(cx - heads[i][0], cy - heads[i][1]))] = person.mask
            for i, c in enumerate(cases):
                m = matched.get(i)
                read[c.kind]["not found" if m is None else (m.state or f"cannot judge ({m.cannot_judge})")] += 1
    return {"sheets": sheets, "sheet_px": [list(s[::-1]) for s in sizes], "faces": len(faces), "stray_people": stray,
            "classes": {k: {"seats": sum(c.values()), "found": sum(c.values()) - c["not found"], "right": c[k],
                            "wrong": sum(v for r, v in c.items() if r in KINDS and r != k), "read": dict(c)}
                        for k, c in read.items()}}


def small_heads(augment: int) -> dict:
    """The mask read on heads 20-36 px wide, below and around the floor
    (`seat_states.MIN_MASK_HEAD_PX`), on the TRAINING half of the faces: where
    the floor is set from. The floor is lifted for the measure, so every head
    is read; the held-out half is never looked at here."""
    import vision.seat_states as seat_states
    from vision.faces.real_faces import SPLIT_RULE as FACE_SPLIT, list_faces

    floor = seat_states.MIN_MASK_HEAD_PX
    seat_states.MIN_MASK_HEAD_PX = 0.0
    try:
        photos = list_faces(held_out=False)
        return {"faces_split": FACE_SPLIT, "half": "training", "photos": len(photos), "floor": floor,
                "mask": mask_accuracy(photos, augment, (20.0, 37.0), SMALL_SIZES)}
    finally:
        seat_states.MIN_MASK_HEAD_PX = floor


def run(augment: int, masks: bool = True, hands: bool = True) -> dict:
    from vision.faces.real_faces import SPLIT_RULE as FACE_SPLIT, list_faces

    out: dict = {}
    if masks:
        held = list_faces(held_out=True)
        out["faces_split"] = FACE_SPLIT
        out["faces_held_out"] = {"photos": len(held), "people": len({(p.source, p.person) for p in held}),
                                 "sources": dict(Counter(p.source for p in held))}
        out["mask"] = mask_accuracy(held, augment)
    if hands:
        import eval_real_hands
        out["hands"] = eval_real_hands.run(photos_only=False)
    ok = True
    if masks:
        ok &= all(out["mask"]["classes"][c]["accuracy"] >= t for c, t in MASK_TARGETS.items())
    if hands:
        ok &= out["hands"]["passed"]
    out["passed"] = ok
    return out


def _print_sizes(by_size: dict) -> None:
    for k, v in by_size.items():
        print(f"      {k:<24} {v['right']}/{v['cases']}  {v['right'] / max(v['cases'], 1):6.1%}")


def _print(r: dict) -> None:
    if "mask" in r:
        h = r["faces_held_out"]
        print(f"split: {r['faces_split']}")
        print(f"(a) mask on the {h['photos']} held-out real face photos of {h['people']} people {h['sources']}, "
              f"at table-camera scale, by the analysis' per-frame path")
        for c, m in r["mask"]["classes"].items():
            print(f"    {c:<12} {m['right']:>4}/{m['cases']:<4} {m['accuracy']:6.1%}  (target >= {MASK_TARGETS[c]:.0%})"
                  f"   read: {m['read']}")
        _print_sizes(r["mask"]["by_size"])
        print(f"    real dark sunglasses (no mask), read as: {r['mask']['sunglasses']}")
        print(f"    the learned head window judged its pixels rendered (and would be used where the mesh finds no face) "
              f"on {r['mask']['window_trusted']} of {r['mask']['cases']} real seats")
        if r["mask"]["photos_skipped"]:
            print(f"    photos whose face the mesh did not find at full size (skipped): {r['mask']['photos_skipped']}")
    if "hands" in r:
        import eval_real_hands
        eval_real_hands.print_report(r["hands"])
    print("targets met" if r["passed"] else "TARGET MISSED")


def _figures(compute):
    """compute()'s figures, or None after saying on stderr which data are missing."""
    try:
        return compute()
    except (FileNotFoundError, OSError) as exc:
        print(f"eval_real_pixels: error: {exc}", file=sys.stderr)
        return None


def _answer(compute, as_json: bool, show) -> int:
    """compute()'s figures printed as JSON or by show(figures): exit status 0,
    or 2 when the data are missing."""
    r = _figures(compute)
    if r is None:
        return 2
    if as_json:
        print(json.dumps(r, indent=1))
    else:
        show(r)
    return 0


def _print_table(r: dict) -> None:
    from vision.faces.real_faces import SPLIT_RULE as FACE_SPLIT

    print(f"split: {FACE_SPLIT}")
    print(f"(e) mafvar stills on {r['sheets']} photos of ten seats each ({r['sheet_px']} px), a held-out real "
          f"face at every seat, read at a table camera's scale")
    for k, c in r["classes"].items():
        print(f"    {k:<12} seats {c['seats']:>3}  found {c['found']:>3}  read right {c['right']:>3}  "
              f"read as another state {c['wrong']:>3}   read: {c['read']}")
    print(f"    people found at no seat: {r['stray_people']}")


def _print_hand_before(r: dict) -> None:
    from vision.faces.real_faces import SPLIT_RULE as FACE_SPLIT
    from vision.hands.real_zone import SPLIT_RULE as HAND_SPLIT

    print(f"split: {FACE_SPLIT}\nsplit: {HAND_SPLIT}")
    print("(d) a held-out real hand over the eyes of a held-out masked real face (truth: mask on)")
    for way, v in r.items():
        print(f"    {way:<24} false peek readings (off, lifted) {v['false_peek']:>3}/{v['cases']}   read: {v['read']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--augment", type=int, default=2, help="table views per photo and class")
    parser.add_argument("--masks-only", action="store_true", help="only (a)")
    parser.add_argument("--hands-only", action="store_true", help="only (b) and (c)")
    parser.add_argument("--hand-before", action="store_true",
                        help="(d) only: a real hand before a masked real face, read with and without the hand checks")
    parser.add_argument("--tune-hand", action="store_true",
                        help="the hand checks' threshold, on the TRAINING halves: (d) and (a) per threshold")
    parser.add_argument("--table", action="store_true",
                        help="(e) only: mafvar stills on whole-table frames with held-out real faces at every seat")
    parser.add_argument("--small-heads", action="store_true",
                        help="the mask on 20-36 px heads, on the training half (where the head-width floor is set)")
    args = parser.parse_args(argv)
    if args.small_heads:
        r = small_heads(args.augment)
        if args.json:
            print(json.dumps(r, indent=1))
        else:
            print(f"split: {r['faces_split']}")
            print(f"the mask on the {r['photos']} TRAINING-half photos, heads 20-36 px, read with the floor "
                  f"({r['floor']:.0f} px) lifted; per true head width:")
            _print_sizes(r["mask"]["by_size"])
        return 0
    if args.table:
        from vision.faces.real_faces import list_faces
        return _answer(lambda: table_photo(list_faces(held_out=True)), args.json, _print_table)
    if args.tune_hand:
        for t, v in tune_hand().items():
            d = v["hand_before"]
            print(f"threshold {t}: (d) false peek readings " + ", ".join(
                f"{w} {d[w]['false_peek']}/{d[w]['cases']}" for w in HAND_BEFORE_WAYS)
                + "; (a) no hand, right / 'hand' abstentions: " + ", ".join(
                f"{k} {c['right']}/{c['cases']} ({c['hand']})" for k, c in v["no_hand"].items()))
        return 0
    if args.hand_before:
        from vision.faces.real_faces import list_faces
        from vision.hands.real_zone import list_hagrid
        return _answer(lambda: hand_before_mask(list_faces(held_out=True), list_hagrid(held_out=True)), args.json,
                       _print_hand_before)
    r = _figures(lambda: run(args.augment, masks=not args.hands_only, hands=not args.masks_only))
    if r is None:
        return 2
    print(json.dumps(r, indent=1) if args.json else "", end="")
    if not args.json:
        _print(r)
    return 0 if r["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
