"""`mafvar protocol check`, `mafvar protocol import` and `mafvar protocol export`."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from engine import importers
from engine.check import check_document
from engine.profiles import DEFAULT_PROFILE, PROFILE_NAMES
from engine.protocol import ProtocolError, parse_json, read_protocol_text, schema_issues
from engine.replay import Replay
from engine.types import Issue, Severity
from mafvar.errors import UserError

CHECK_FORMAT = "mafvar-check"
CHECK_VERSION = 1


def register(subparsers) -> None:
    proto = subparsers.add_parser("protocol", help="check, import or export game protocols")
    sub = proto.add_subparsers(dest="protocol_command", metavar="SUBCOMMAND")
    check = sub.add_parser("check", help="validate and replay a native protocol")
    check.add_argument("file", help="protocol JSON file")
    check.add_argument("--profile", choices=PROFILE_NAMES, help="rule profile (default: the protocol's own)")
    check.add_argument("--json", action="store_true", help="emit the derived output as JSON")
    check.set_defaults(handler=run_check)
    imp = sub.add_parser("import", help="convert a rating-platform record to a native protocol")
    imp.add_argument("--from", dest="source", required=True, choices=("mafiaratings", "polemica"))
    imp.add_argument("input", help="the foreign record (JSON)")
    imp.add_argument("-o", "--output", required=True, help="the native protocol to write")
    imp.add_argument("--force", action="store_true", help="overwrite OUTPUT if it exists")
    imp.set_defaults(handler=run_import)
    exp = sub.add_parser("export", help="write a native protocol as a rating-platform record")
    exp.add_argument("--to", dest="target", required=True, choices=("mafiaratings",))
    exp.add_argument("input", help="the native protocol (JSON)")
    exp.add_argument("-o", "--output", required=True, help="the record to write")
    exp.add_argument("--force", action="store_true", help="overwrite OUTPUT if it exists")
    exp.set_defaults(handler=run_export)
    proto.set_defaults(handler=lambda args: (proto.print_help(), 1)[1])


def check_output(rep: Replay | None, issues: list[Issue], profile_name: str) -> dict:
    """The documented `mafvar-check` object (docs/protocol.md "Derived output")."""
    return {
        "format": CHECK_FORMAT, "version": CHECK_VERSION,
        "profile": rep.profile.name if rep else profile_name,
        "valid": not any(i.severity is Severity.ERROR for i in issues),
        "exits": [e.to_dict() for e in rep.exits] if rep else [],
        "result": rep.result if rep else None,
        "points": {str(k): v for k, v in rep.points.items()} if rep else {},
        "issues": [i.to_dict() for i in issues],
    }


def run_check(args) -> int:
    path = Path(args.file)
    try:
        rep, issues = check_document(parse_json(read_protocol_text(path)), args.profile)
    except ProtocolError as exc:
        rep, issues = None, list(exc.issues)
    out = check_output(rep, issues, args.profile or DEFAULT_PROFILE)
    try:
        if args.json:
            print(json.dumps(out, ensure_ascii=False, indent=1))
        else:
            _print_human(out, rep)
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader (e.g. `| head`) went away: not an error of the protocol
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0 if out["valid"] else 2


def _print_human(out: dict, rep: Replay | None) -> None:
    print(f"profile: {out['profile']}")
    if rep is not None:
        for e in out["exits"]:
            print(f"seat {e['seat']:>2}: {e['type']}, round {e['round']}")
        print(f"result: {out['result'] or 'not finished'}")
        if out["points"]:
            print("points: " + ", ".join(f"{k}: {v:g}" for k, v in out["points"].items()))
    for i in out["issues"]:
        where = f"event {i['event']}" if i["event"] is not None else "protocol"
        clause = f" [{i['clause']}]" if i["clause"] else ""
        print(f"{i['severity']}: {where}: {i['message']} ({i['code']}){clause}")
    print("valid" if out["valid"] else "INVALID")


def run_import(args) -> int:
    out = Path(args.output)
    if out.exists() and not args.force:
        raise UserError(f"{out} exists; pass --force to overwrite it")
    try:
        doc = importers.import_file(args.source, args.input)
    except importers.ImportError_ as exc:
        raise UserError(str(exc)) from None
    except FileNotFoundError:
        raise UserError(f"{args.input}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{args.input}: cannot read ({exc})") from None
    problems = schema_issues(doc)
    if problems:
        raise UserError(f"the importer produced an invalid protocol: {problems[0].message}")
    _write_json(out, doc)
    print(f"wrote {out} ({len(doc.get('events', []))} events)")
    return 0


def run_export(args) -> int:
    from engine import exporters
    out = Path(args.output)
    if out.exists() and not args.force:
        raise UserError(f"{out} exists; pass --force to overwrite it")
    try:
        doc = parse_json(read_protocol_text(Path(args.input)))
    except ProtocolError as exc:
        raise UserError(f"{args.input}: {exc}") from None
    try:
        record = exporters.export_record(args.target, doc)
    except exporters.ExportError as exc:
        raise UserError(f"{args.input}: {exc}") from None
    _write_json(out, record)
    from engine.exporters.mafiaratings import LEFT_OUT
    print(f"wrote {out} ({args.target} record; not in that format: {', '.join(LEFT_OUT)})")
    return 0


def _write_json(out: Path, doc: dict) -> None:
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {out}: {exc}") from None
