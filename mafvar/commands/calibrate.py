"""`mafvar calibrate`: the seats proposed from the recording, written to calibration.json."""
from __future__ import annotations

import argparse
import json
import sys

from mafvar.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "calibrate", help="propose every seat's regions from the recording and write calibration.json",
        description="Finds the players on day frames of GAME_DIR's recording, fits the table and the camera "
                    "to them and writes each seat's body box, table zone and head to GAME_DIR/calibration.json, "
                    "numbered clockwise from the judge's left (the widest gap between players is taken as the "
                    "head of the table). Prints the verdict the analysis will give. An existing calibration.json "
                    "is never replaced without --force (it is then kept as calibration.json.bak). With "
                    "--seat1/--flip alone, an existing calibration is renumbered instead of proposed again.")
    p.add_argument("game_dir", metavar="GAME_DIR")
    p.add_argument("--frames", type=int, default=None, help="day frames to find the players on (default 6)")
    p.add_argument("--seat1", type=int, metavar="N", default=None,
                   help="the seat now numbered N becomes seat 1 (the judge's left was guessed wrong)")
    p.add_argument("--flip", action="store_true", help="number the seats the other way round the table")
    p.add_argument("--force", action="store_true", help="propose again over an existing calibration.json")
    p.add_argument("--accept-guess", action="store_true",
                   help="write the proposal even when too few players were found to be sure of the table "
                        "(check it over a frame first: the app's Calibration page)")
    p.add_argument("--heads", metavar="SEAT=X,Y ...", default=None,
                   help="fit the table to heads you placed instead of to the players found: each seat's "
                        "head centre in frame pixels, e.g. \"1=412,300 2=388,260 ...\" (at least 5 seats, "
                        "7 or more to be sure; the seats not given follow from the table)")
    p.add_argument("--dry-run", action="store_true", help="print the proposal, write nothing")
    p.add_argument("--json", action="store_true", help="print the proposal as JSON (format mafvar-calibrate)")
    p.set_defaults(handler=run_calibrate)


def run_calibrate(args) -> int:
    from mafvar.terminal import ProgressLine, library_log
    from review.calibrate import FRAMES, CalibrateError, parse_heads, propose_for_game, save_proposal, zone_note
    from review.calibration_verdict import workspace_verdict
    from review.workspace import GameWorkspace, WorkspaceError, is_game_dir
    from vision.calibration import CalibrationError, renumber, save_calibration

    if args.frames is None:
        args.frames = FRAMES
    if not 1 <= args.frames <= 30:
        raise UserError("--frames must be 1..30")
    if args.seat1 is not None and not 1 <= args.seat1 <= 10:
        raise UserError("--seat1 must be a seat number 1..10")
    heads = None
    if args.heads is not None:
        try:
            heads = parse_heads(args.heads)
        except ValueError as exc:
            raise UserError(f"--heads: {exc}") from None
    try:
        ws = GameWorkspace(args.game_dir)
    except WorkspaceError as exc:
        raise UserError(str(exc)) from None
    if not is_game_dir(ws.root):
        raise UserError(f"{ws.root} is not a game folder: it has no protocol.json")
    renumber_only = ((args.seat1 is not None or args.flip) and ws.calibration_path.is_file() and not args.force
                     and heads is None)
    if renumber_only:
        checked = workspace_verdict(ws)
        if checked.calibration is None or checked.camera is None:
            raise UserError("; ".join(checked.verdict.refusal_lines))
        cal = renumber(checked.calibration, checked.camera, args.seat1 or 1, args.flip)
        if not args.dry_run:
            save_calibration(cal, ws.calibration_path)
        after = workspace_verdict(ws, checked.frame_size) if not args.dry_run else None
        verdict = after.verdict if after is not None else checked.verdict
        if args.json:
            print(json.dumps({"format": "mafvar-calibrate", "version": 1, "game": str(ws.root),
                              "renumbered": {"seat1": args.seat1 or 1, "flip": args.flip},
                              "verdict": verdict.to_json(),
                              "written": None if args.dry_run else str(ws.calibration_path)}, indent=1))
        else:
            print(f"renumbered: seat {args.seat1 or 1} is now seat 1"
                  + (", numbered the other way round" if args.flip else ""))
            _print_verdict(verdict)
        return 0
    if ws.calibration_path.is_file() and not args.force and not args.dry_run:
        raise UserError(f"{ws.calibration_path} exists; nothing was changed (--force proposes again and keeps "
                        f"the current file as calibration.json.bak; --seat1/--flip renumber it)")
    with library_log(ws.root) as term:
        line = ProgressLine(term, "finding the seats") if not args.json else None

        def frame_done(done: int, total: int) -> None:
            if line is not None:
                line.show(_Step(done / total, f"frame {done} of {total}"))
        try:
            proposal = propose_for_game(ws.root, args.frames, progress=frame_done, heads=heads)
        except CalibrateError as exc:
            raise UserError(str(exc)) from None
        finally:
            if line is not None:
                line.close()
    cam = next(iter(proposal.calibration.cameras))
    cal = proposal.calibration
    if len(cal.cameras[cam].seats) == 10 and (args.seat1 is not None or args.flip):
        cal = renumber(cal, cam, args.seat1 or 1, args.flip)
        proposal.calibration = cal
    written = None
    guess = proposal.uncertain is not None and not args.accept_guess
    if not args.dry_run and len(cal.cameras[cam].seats) == 10 and not guess:
        try:
            written = save_proposal(ws.root, cal, force=args.force)
        except (CalibrateError, CalibrationError, OSError) as exc:
            raise UserError(str(exc)) from None
    if args.json:
        print(json.dumps(proposal.to_json(written), indent=1))
        if written is None and not args.dry_run:
            print(f"no calibration written: {proposal.uncertain}" if guess else
                  "no calibration written: " + "; ".join(proposal.problems or ["fewer than 10 seats"]),
                  file=sys.stderr)
        return 0 if written is not None or args.dry_run else 2
    seats = cal.cameras[cam].seats
    for s, r in sorted(seats.items()):
        if proposal.seen.get(s):
            how = "head placed" if heads is not None else "found"
        else:
            how = f"placed by the table ({'head not given' if heads is not None else 'player not found'})"
        print(f"seat {s:>2}: body {_box(r.body)}  table zone {_box(r.table_zone)}  {how}; {zone_note(r)}")
    for p in proposal.problems:
        print(f"problem: {p}", file=sys.stderr)
    if proposal.uncertain:
        print(f"uncertain: {proposal.uncertain}", file=sys.stderr)
    _print_verdict(proposal.verdict)
    if written is not None:
        print(f"wrote {written}: numbered clockwise from the judge's left; if the numbers are wrong, "
              f"`mafvar calibrate {args.game_dir} --seat1 N` or `--flip` renumbers it")
        return 0
    if args.dry_run:
        return 0
    if guess:
        raise UserError(f"no calibration written: {proposal.uncertain} (the app's Calibration page shows it "
                        f"over a frame; --accept-guess writes it as it is)")
    raise UserError("no calibration written: " + "; ".join(proposal.problems or ["fewer than 10 seats"]))


class _Step:
    """A progress report for the frames of a proposal (the terminal line's shape)."""

    def __init__(self, fraction: float, message: str) -> None:
        self.fraction, self.stage, self.message = fraction, "players", message
        self.text = f"{fraction * 100:.0f}% · {message}"


def _print_verdict(verdict) -> None:
    print(f"calibration {verdict.summary}")
    for line in verdict.refusal_lines:
        print(f"refused: {line}", file=sys.stderr)
    for line in verdict.warning_lines:
        print(f"warning: {line}", file=sys.stderr)


def _box(b) -> str:
    return "[" + ", ".join(f"{v:.0f}" for v in b) + "]"
