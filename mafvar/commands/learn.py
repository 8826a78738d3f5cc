"""`mafvar learn`: fine-tune a venue's seat windows on its judges' decisions, or roll a version back."""
from __future__ import annotations

import argparse
import json
import sys

from mafvar.errors import UserError

EPILOG = """\
The venue's games are the games in FOLDER analysed with `mafvar analyze GAME --venue NAME`
(or chosen on the app's Games page); their decided incidents, verified vote cells and
answered frame questions in review.db are the examples. Each run writes the next
version, FOLDER/venues/NAME/vN/ (model.json, report.json, examples.npz), and makes it
current; `mafvar analyze GAME --venue NAME` then runs it. The committed model is
never written. --rollback makes the version before the current one current again
(--to N: that version; 0: the committed model); nothing is deleted.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "learn", help="fine-tune the seat windows for one venue from its judges' decisions",
        description="Turns the judges' decisions, vote verifications and frame answers of a venue's "
                    "games into examples and fine-tunes the seat windows from the committed model, "
                    "which is kept unchanged.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder", metavar="FOLDER", help="the folder holding the venue's games")
    p.add_argument("--venue", metavar="NAME", required=True, help="the venue (a named camera set-up)")
    p.add_argument("--game", action="append", default=None, metavar="GAME_DIR",
                   help="learn from these games only (repeatable; default: every game of FOLDER analysed "
                        "for the venue)")
    p.add_argument("--rollback", action="store_true",
                   help="make the previous version current again instead of learning")
    p.add_argument("--to", type=int, default=None, metavar="N",
                   help="with --rollback: the version to make current (0: the committed model)")
    p.add_argument("--json", action="store_true", help="print the result as JSON (format mafvar-learn)")
    p.set_defaults(handler=_learn)


def _learn(args: argparse.Namespace) -> int:
    from review.learn import MIN_HELD_OUT, LearnError, learn, rollback
    if args.to is not None and not args.rollback:
        raise UserError("--to goes with --rollback")
    if args.to is not None and args.to < 0:
        raise UserError(f"--to {args.to}: a version number, 0 for the committed model")
    quiet = args.json

    def say(msg: str) -> None:
        if not quiet:
            print(msg, file=sys.stderr, flush=True)

    try:
        doc = rollback(args.folder, args.venue, args.to) if args.rollback else \
            learn(args.folder, args.venue, games=args.game, say=say)
    except LearnError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    if doc["action"] == "rollback":
        now = "the committed model" if doc["current"] == 0 else f"v{doc['current']}"
        print(f"venue {doc['venue']}: {now} is current again (was v{doc['from']})")
        return 0
    ex = doc["examples"]
    print(f"venue {doc['venue']}: v{doc['model_version']} written and current ({doc['model']})")
    print(f"  from {len(doc['games'])} game(s): {', '.join(doc['games'])}; {ex['total']} seat windows "
          f"({', '.join(f'{k} {v}' for k, v in sorted(ex['per_source'].items()))})")
    for kind, f in doc["fit"].items():
        if f.get("kept_committed"):
            print(f"  {kind}: committed weights kept ({f['kept_committed']})")
            continue
        held = f.get("held_out")
        print(f"  {kind}: {f['examples']} examples, agreement {f['agreement_before']} -> {f['agreement_after']}"
              + (f", held out {held['before']} -> {held['after']} ({held['examples']}"
                 + (f"; judged {held['judged_before']} -> {held['judged_after']} ({held['judged']})"
                    if held.get("judged") else "") + ")" if held else "")
              + f"; committed sample {f['replay_accuracy_before']} -> {f['replay_accuracy_after']}"
              + (f"; not believed on seat(s) {', '.join(map(str, f['set_aside']['seats']))} (their held-out "
                 f"judged examples read under {MIN_HELD_OUT}; the others {f['set_aside']['judged_after_others']})"
                 if f.get("set_aside") else ""))
    for s in doc["skipped"]:
        print(f"  skipped: {s}", file=sys.stderr)
    print(f"learned in {doc['seconds']['wall']:.1f} s (CPU {doc['seconds']['cpu']:.1f} s); report {doc['report']}")
    return 0
