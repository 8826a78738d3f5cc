"""Where the vote fist's box goes wrong: the tuning set's real hands laid into
the committed sample's zones (scripts/eval_real_hands.py --tune), each read by
eval_real_hands' many readings (_thumb_up_over_readings) three more ways:
at the laid wrist with the palm a seat of that size has, and around the
zone pass's hands near the laid wrist (within 2.5 palms) with the true palm
and with the seat's palm. Together with `eval_real_hands.py --tune --bound`
(laid wrist, true palm) it splits the finding's cost into place and size.

    .venv/bin/python scripts/probe_fist_place.py      # ~5 min
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

import eval_real_hands as E  # noqa: E402
from vision.hands.real_zone import list_hagrid  # noqa: E402
from vision.hands.roi import RoiLandmarker  # noqa: E402
from vision.schedule import PALM_OF_BODY  # noqa: E402
from vision.seat_states import VOTE_THUMB_P  # noqa: E402

NEAR_PALMS = 2.5
WAYS = ("laid wrist, seat's palm", "found centre, true palm", "found centre, seat's palm")


def main() -> int:
    cases, frames, cal = E.read_zone_cases(list_hagrid(held_out=False), tune=True)
    seats = cal.camera("cam1").seats
    rows: dict[str, Counter] = {w: Counter() for w in WAYS}
    with RoiLandmarker() as roi:
        for c, frame in zip(cases, frames):
            if c.wrist is None:
                continue
            mirrored = np.ascontiguousarray(frame[:, ::-1])
            body = seats[c.seat].body
            seat_palm = PALM_OF_BODY * (body[3] - body[1])

            def vote(at, palm: float) -> bool:
                p = E._thumb_up_over_readings(roi, frame, mirrored, at, palm)
                return p is not None and p >= VOTE_THUMB_P
            near = [h[:, :2].mean(axis=0) for h in c.hands
                    if np.linalg.norm(h[:, :2].mean(axis=0) - np.array(c.wrist)) < NEAR_PALMS * c.palm_px]
            answers = (vote(c.wrist, seat_palm), any(vote(h, c.palm_px) for h in near),
                       any(vote(h, seat_palm) for h in near))
            for way, v in zip(WAYS, answers):
                rows[way][(c.kind == "like", v)] += 1
    for way, r in rows.items():
        print(f"{way:<28} thumb-ups {r[(True, True)]}/{r[(True, True)] + r[(True, False)]}, "
              f"false votes {r[(False, True)]}/{r[(False, True)] + r[(False, False)]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
