"""A small but real game workspace for the app's tests.

The video is a genuine H.264 file made with the imageio-ffmpeg binary: a
"table" with ten numbered seat boxes and, in the top-left corner, the frame's
own index written as 10 black/white squares, so a test can read back which
frame the app decoded. Everything else (protocol, calibration, incidents,
recount, an evidence still and clip) is written in the formats the rest of the
project uses, so the app is exercised exactly as on a real game.
"""
from __future__ import annotations

import json
import subprocess
from functools import lru_cache
from pathlib import Path

import cv2
import imageio_ffmpeg
import numpy as np

WIDTH, HEIGHT, FPS, SECONDS = 1280, 720, 25, 10
CODE_BITS, CODE_CELL = 10, 12  # frame index as 10 squares of 12 px


def seat_boxes() -> dict[int, list[int]]:
    """Seats 1..5 along the top edge, 6..10 along the bottom, as [x, y, w, h].

    Tall enough (300 px) for vision's check that a hand (a fifth of the
    body) has the 50 source pixels the detectors need.
    """
    boxes = {}
    for i in range(5):
        boxes[i + 1] = [30 + i * 250, 30, 220, 300]
        boxes[10 - i] = [30 + i * 250, 390, 220, 300]
    return boxes


def table_zones() -> dict[int, list[int]]:
    """The lower third of each seat box, where fists land, as [x, y, w, h]."""
    return {s: [x, y + 200, w, 100] for s, (x, y, w, h) in seat_boxes().items()}


@lru_cache(maxsize=1)
def _table() -> np.ndarray:
    """The static part of every frame (callers copy it before drawing)."""
    img = np.full((HEIGHT, WIDTH, 3), (40, 90, 40), np.uint8)  # green table, RGB
    for seat, (x, y, w, h) in seat_boxes().items():
        shade = 120 + seat * 10
        img[y:y + h, x:x + w] = (shade, shade // 2, 200 - seat * 8)
        cv2.putText(img, str(seat), (x + 70, y + 170), cv2.FONT_HERSHEY_SIMPLEX, 3.0,
                    (255, 255, 255), 6)
    return img


def frame_image(index: int) -> np.ndarray:
    img = _table().copy()
    # a moving bar so consecutive frames differ visibly
    bx = int(index * (WIDTH - 20) / (FPS * SECONDS))
    img[HEIGHT - 24:HEIGHT - 8, bx:bx + 20] = (250, 250, 0)
    for bit in range(CODE_BITS):
        on = (index >> bit) & 1
        x0 = bit * CODE_CELL
        img[0:CODE_CELL, x0:x0 + CODE_CELL] = 255 if on else 0
    return img


def read_frame_code(rgb: np.ndarray) -> int:
    """The frame index written into a decoded frame (inverse of frame_image)."""
    value = 0
    for bit in range(CODE_BITS):
        x0 = bit * CODE_CELL
        cell = rgb[3:CODE_CELL - 3, x0 + 3:x0 + CODE_CELL - 3]
        if cell.mean() > 128:
            value |= 1 << bit
    return value


def write_video(path: Path, seconds: int = SECONDS) -> Path:
    writer = imageio_ffmpeg.write_frames(
        str(path), (WIDTH, HEIGHT), fps=FPS, codec="libx264", pix_fmt_out="yuv420p",
        quality=None, bitrate=None,
        output_params=["-crf", "20", "-preset", "ultrafast", "-g", "50", "-movflags", "+faststart"],
        macro_block_size=1)
    writer.send(None)
    for i in range(FPS * seconds):
        writer.send(np.ascontiguousarray(frame_image(i)))
    writer.close()
    return path


def cut_clip(video: Path, out: Path, t0: float, t1: float) -> Path:
    cmd = [imageio_ffmpeg.get_ffmpeg_exe(), "-loglevel", "error", "-y", "-ss", f"{t0:.3f}",
           "-i", str(video), "-t", f"{t1 - t0:.3f}", "-c:v", "libx264", "-pix_fmt", "yuv420p",
           "-movflags", "+faststart", "-an", str(out)]
    subprocess.run(cmd, check=True, capture_output=True)
    return out


PLAYERS = ["Anna", "Boris", "Vera", "Gleb", "Dina", "Egor", "Zoya", "Ilya", "Kira", "Lev"]
ROLES = ["civ", "sheriff", "civ", "maf", "civ", "don", "civ", "maf", "civ", "civ"]


def protocol() -> dict:
    """Night 0, day 1 with two candidates (5 and 8), 8 leaves on 6 votes to 4."""
    events: list[dict] = [{"type": "nightfall", "t": 0.2},
                          {"type": "mafia_wake", "t": 0.4, "t_end": 1.0},
                          {"type": "sheriff_wake", "t": 1.1, "t_end": 1.4},
                          {"type": "morning", "t": 1.6}]
    t = 1.8
    for seat in range(1, 11):
        events.append({"type": "speech", "seat": seat, "t": round(t, 2),
                       "t_end": round(t + 0.35, 2), "end": "pass"})
        if seat == 1:
            events.append({"type": "nominate", "by": 1, "target": 5, "t": round(t + 0.2, 2)})
        if seat == 3:
            events.append({"type": "nominate", "by": 3, "target": 8, "t": round(t + 0.2, 2)})
        t += 0.4
    events += [
        {"type": "vote_announce", "t": 6.0, "candidates": [5, 8]},
        {"type": "vote", "candidate": 5, "t": 6.2, "t_call_end": 6.5, "t_thanks": 7.4,
         "announced": 4, "voters": [1, 2, 3, 4]},
        {"type": "vote", "candidate": 8, "t": 7.6, "t_call_end": 7.9, "t_thanks": 8.6,
         "announced": 6},
        {"type": "speech", "seat": 8, "kind": "last_word", "t": 8.7, "t_end": 9.3},
        {"type": "nightfall", "t": 9.5},
    ]
    return {
        "format": "mafvar-protocol", "version": 1,
        "game": {"tournament": "Fixture Cup", "table": 1, "number": 1, "date": "2026-11-01",
                 "judge": "Judge", "side_judges": ["Side"], "profile": "mafclub-2023"},
        "cameras": [{"id": "cam1", "file": "video.mp4", "offset": 0.0}],
        "seats": [{"seat": i + 1, "name": PLAYERS[i], "role": ROLES[i]} for i in range(10)],
        "events": events,
    }


def calibration() -> dict:
    """vision.calibration's format: [x0, y0, x1, y1] body and table zone per seat."""
    def corners(b):
        x, y, w, h = b
        return [x, y, x + w, y + h]

    zones = table_zones()
    return {
        "format": "mafvar-calibration", "version": 1,
        "cameras": {"cam1": {"width": WIDTH, "height": HEIGHT, "seats": {
            str(s): {"body": corners(b), "table_zone": corners(zones[s])}
            for s, b in sorted(seat_boxes().items())}}},
        "confirmed_by": "fixture",
    }


# (type, seats, t0, t1, phase label/key, confidence, clause, changes_exit, changes_result, summary)
INCIDENT_SPECS = [
    ("miscount", (5,), 6.2, 7.4, ("Day 1, vote on seat 5", "day 1 vote on 5"), 0.80,
     "MC 2.4.14", True, True,
     "candidate 5: announced 4, the video shows 5 (seats 1,2,3,4,6); 5 and 8 tie"),
    ("late_vote", (6,), 7.35, 7.6, ("Day 1, vote on seat 5", "day 1 vote on 5"), 0.90,
     "MC 2.4.7", True, False, "seat 6's vote lands at 'Thank you': void"),
    ("peek", (4,), 0.5, 0.9, ("Night 0, mafia wake", "night 0 mafia wake"), 0.65,
     "MC 4.8.4", False, False, ""),
    ("wrong_form", (2,), 6.6, 6.9, ("Day 1, vote on seat 5", "day 1 vote on 5"), 0.70,
     "MC 2.4.12", False, False, ""),
    ("touch_day", (9,), 3.0, 3.4, ("Day 1, speech of seat 4", "day 1 speech 4"), 0.95,
     "MC 4.3.7", False, False, ""),
    # an engine audit finding: no seat, no time (protocol-only)
    ("protocol_audit", (), None, None, ("Day 1, voting", "day 1 voting"), 1.0,
     "MC 2.4.14", False, False, "announced counts add up to 10 of 10 voters"),
]


def incidents(game_dir: Path) -> list:
    from review.incidents import Evidence, Impact, Incident, Phase

    out = []
    clip_dir = game_dir / "analysis" / "clips"
    for (kind, seats, t0, t1, (label, key), conf, clause, exit_, result, summary) in INCIDENT_SPECS:
        evidence = []
        if kind == "miscount":  # one incident with pre-made evidence, the rest decoded live
            clip = cut_clip(game_dir / "video.mp4", clip_dir / "miscount.mp4", t0 - 0.5, t1 + 0.5)
            still = clip_dir / "miscount.png"
            cv2.imwrite(str(still), cv2.cvtColor(frame_image(int(7.0 * FPS)), cv2.COLOR_RGB2BGR))
            evidence = [Evidence("clip", "analysis/clips/" + clip.name, t0),
                        Evidence("frame", "analysis/clips/" + still.name, 7.0)]
        out.append(Incident.create(
            kind, seats, t0, t1, Phase(label, key), conf, clause=clause,
            sanction="foul" if kind != "miscount" else "", evidence=evidence,
            impact=Impact(changes_exit=exit_, changes_result=result, summary=summary),
            source="protocol" if kind == "protocol_audit" else "video",
            details={} if t0 is None else
            {"key_moments": [{"label": "start", "t": t0}, {"label": "end", "t": t1}]}))
    return out


def recount_calls() -> list:
    """Day 1: the video shows 5 votes for candidate 5 (seat 6's came at 'Thank you').

    The judge announced 4 for seat 5 and 6 for seat 8, so seat 8 left; the
    recount makes it 5:5, a tie, which is what the miscount incident says.
    """
    from review.recount_file import VoteCall, VoterRecord

    def v(seat, t, form="fist_thumb_up", counted=True, reason="in_window", conf=0.95):
        return VoterRecord(seat=seat, t_place=t, t_lift=t + 0.6, form=form, counted=counted,
                           reason=reason, confidence=conf)

    first = VoteCall(round=0, pass_=1, candidate=5, t_call=6.2, t_thanks=7.4, announced=4,
                     recount=5, voters=(v(1, 6.6), v(2, 6.7, "palm", False, "wrong_form", 0.6),
                                        v(3, 6.7), v(4, 6.8), v(6, 7.3, conf=0.7), v(7, 6.9)))
    second = VoteCall(round=0, pass_=1, candidate=8, t_call=7.6, t_thanks=8.6, announced=6,
                      recount=5, voters=(v(5, 8.0), v(8, 8.0), v(9, 8.1), v(10, 8.1)),
                      defaults=(2,))
    return [first, second]


def make_game(root: Path, name: str = "game1", *, with_analysis: bool = True) -> Path:
    """Create a complete game workspace under `root` and return its folder."""
    from review.incidents import save_incidents

    game = root / name
    (game / "analysis" / "clips").mkdir(parents=True, exist_ok=True)
    write_video(game / "video.mp4")
    (game / "protocol.json").write_text(json.dumps(protocol(), indent=1))
    (game / "calibration.json").write_text(json.dumps(calibration(), indent=1))
    if with_analysis:
        save_incidents(game / "analysis" / "incidents.json", incidents(game),
                       game={"profile": "mafclub-2023"})
        from review.recount_file import save_recount
        save_recount(game / "analysis" / "recount.json", recount_calls(),
                     game={"profile": "mafclub-2023"})
    return game
