"""`mafvar stills`: what the pipeline would read at a seat, per person in still photos (vision.stills)."""
from __future__ import annotations

import argparse
import contextlib
import json

STILLS_DESCRIPTION = """\
For each person in still photographs (any viewpoint, any size), what the
analysis would read at that person's seat: the face box, the mask state
(mask_on, mask_off, mask_lifted, or "cannot judge" with the reason) with its
confidence, and each hand with its state and whether it is a valid vote
fist. The same models and thresholds as `mafvar analyze` (the face mesh's
mask reading, the learned head window where its pixels are like its
training data); hands as `mafvar hands` reads them. It is how a venue is
checked from one photo of its table: where no face fills a quarter of the
photo's shorter side, faces are also looked for on tiles of every scale,
as `mafvar calibrate` finds players, so the small faces of a whole table
are found (a photo of many people takes seconds). Hands are read on the
whole photo: a table photo's small hands are often not found here (the
analysis reads them in each seat's table zone).

Reasons for "cannot judge": no_face (no face found: bowed, turned away,
seen from behind), face_place (a face, not where the head is), no_skin (no
skin to compare the eyes with), hand (a hand over the face), unsure (no
state has a clear majority), far (a face unlike the mask model's
training), window_real (only the learned head window saw it, and its
pixels are real, which it was not trained on), small (a head narrower than
the analysis reads a mask on). A "face" found on a hand
(the hand model finds a hand centred on it, about its size) is no person.

--json prints one document {"format": "mafvar-stills", "version": 1,
"images": [...]} with one element per IMAGE, in order: {"path", "size":
[w, h], "people": [{"face_box": [x0, y0, x1, y1] or null, "mask": {"state",
"confidence", "cannot_judge"}, "hands": [{"box", "handedness", "state",
"count", "confidence", "vote_fist"}]}], "other_hands": [...]}, or {"path",
"error"} for a file that is not a readable image.

An unreadable file is reported on stderr in one line and the others are
still processed; the exit status is then 2.
"""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "stills",
        help="per person in still photos: face, mask state (or why it cannot judge), hands and vote fists",
        description=STILLS_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (JPEG, PNG, ...)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(handler=_run_stills)


def _run_stills(args: argparse.Namespace) -> int:
    from mafvar.commands.images import read_each
    from vision.stills import FORMAT, VERSION, StillReader, read_still

    images: list[dict] = []
    failed = False
    with contextlib.ExitStack() as stack:
        reader: StillReader | None = None  # the models load only once an image is known to be readable
        for path, image, why in read_each(args.images, "stills"):
            if image is None:
                failed = True
                images.append({"path": path, "error": why})
                continue
            if reader is None:
                reader = stack.enter_context(StillReader())
            read = read_still(reader, image)
            images.append({"path": path, **read.to_dict()})
            if not args.json:
                _print_text(path, read)
    if args.json:
        print(json.dumps({"format": FORMAT, "version": VERSION, "images": images}, indent=1))
    return 2 if failed else 0


def _print_text(path: str, read) -> None:
    n = len(read.people)
    print(f"{path}: {n or 'no'} {'person' if n == 1 else 'people'}")
    for i, p in enumerate(read.people, 1):
        face = "no face" if p.face_box is None else "face [" + ", ".join(f"{v:.0f}" for v in p.face_box) + "]"
        print(f"  person {i}: {face}  mask {p.mask.to_text()}")
        for hand in p.hands:
            print(f"    hand: {hand.report.to_text()}  vote fist: {'yes' if hand.vote_fist else 'no'}")
    for hand in read.other_hands:
        print(f"  hand near no face: {hand.report.to_text()}  vote fist: {'yes' if hand.vote_fist else 'no'}")
