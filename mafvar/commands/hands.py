"""`mafvar hands`: classify every hand in still photos (vision.hands)."""
from __future__ import annotations

import argparse
import contextlib
import json
import sys


HANDS_DESCRIPTION = """\
Find every hand in still images and say what it shows.

Text: one line per hand with its box [x0, y0, x1, y1] in image pixels,
handedness (the person's own left or right hand; photos are assumed not
mirrored), state and finger count with a confidence.

States: fist, thumb_up, thumb_down, thumb_out (fist with the thumb sideways),
open_palm (five fingers), pointing (index only; thumb either way),
two_fingers (index and middle), count (any other number of fingers).

--json prints a JSON list with one element per IMAGE, in order; each element
is the list of that image's hands, each
{"box": [x0, y0, x1, y1], "handedness": "left"|"right", "state": ...,
 "count": 0-5, "confidence": 0-1}, or null when the image could not be read.

An unreadable file is reported on stderr and the others are still processed;
the exit status is then 2.
"""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "hands",
        help="classify each hand in still images (fist, thumb up, open palm, pointing, finger count)",
        description=HANDS_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (JPEG, PNG, ...)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(handler=_run_hands)


def _run_hands(args: argparse.Namespace) -> int:
    from mafvar.commands.images import read_each
    from vision.hands.detector import HandDetector
    from vision.hands.report import read_hands

    results: list[list[dict] | None] = []
    failed = False
    with contextlib.ExitStack() as stack:
        detector: HandDetector | None = None  # the models load only once an image is known to be readable
        for path, image, _ in read_each(args.images, "hands"):
            if image is None:
                failed = True
                results.append(None)
                continue
            if detector is None:
                detector = stack.enter_context(HandDetector(tracking=False))
            reports = read_hands(detector, image)
            results.append([r.to_dict() for r in reports])
            if not args.json:
                noun = "hand" if len(reports) == 1 else "hands"
                print(f"{path}: {len(reports) or 'no'} {noun}")
                for i, report in enumerate(reports, 1):
                    print(f"  hand {i}: {report.to_text()}")
    if args.json:
        # One image per line keeps the list readable and still valid JSON.
        sys.stdout.write("[\n" + ",\n".join(json.dumps(r) for r in results) + "\n]\n")
    return 2 if failed else 0
