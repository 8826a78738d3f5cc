"""Hostile inputs for every way data gets into mafvar, and what each must do with them.

One `Kind` per input path: native protocols, mafiaratings and polemica
records, calibration files, the command line, and the review store's API.
Each kind draws an input with Hypothesis (real samples mutated: values
swapped for hostile ones, lists blown up, integers of thousands of digits,
lone surrogates, absurd round numbers, truncated or bit-flipped text) and
runs it through the same entry point a user reaches. The rule is the same
everywhere: a result, or a clean refusal in one line; never a traceback, and
never an "unexpected" error (the command-line boundary turns any escaped
exception into one, so it is counted as a failure here).

Used by tests/fuzz/test_fuzz_inputs.py (a bounded budget on every change)
and scripts/fuzz_inputs.py (the big budget, with figures).
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("MAFVAR_SHARED", ROOT.parent / "shared"))
SAMPLE = ROOT / "sample_videos" / "demo"


class FuzzFailure(AssertionError):
    """An input was not handled as promised (a traceback, an unexpected error, bad exit)."""


@dataclass
class Kind:
    name: str
    draw: Callable[[Any, Path], Any]       # (hypothesis data, scratch dir) -> input
    run: Callable[[Any, Path], str]        # (input, scratch dir) -> outcome label


# -- the samples ---------------------------------------------------------------------------

def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def records(platform: str) -> list[dict]:
    files = sorted((SHARED / "formats" / platform).glob("game_*.json"))
    if not files:
        raise FileNotFoundError(f"no {platform} records under {SHARED / 'formats'} "
                                "(set MAFVAR_SHARED)")
    return [_load(f) for f in files]


def native_protocols() -> list[dict]:
    from engine.importers import import_record
    out = [_load(SAMPLE / "protocol.json")]
    for platform in ("mafiaratings", "polemica"):
        out += [import_record(platform, r) for r in records(platform)]
    return out


def calibration_sample() -> dict:
    return _load(SAMPLE / "calibration.json")


# -- hostile values ------------------------------------------------------------------------

NASTY_TEXT = ["\ud800", "a\udfffb", "\x00", "Ann\x00a", "\u202eevil", "Zoë", "", " ", "\n",
              "x" * 20_000, "1" * 40, "nan", "-", "r1.vote", "../../etc/passwd", "ąę\u0301"]
BIG_INTS = [10 ** 9, 10 ** 15, -(10 ** 15), 2 ** 31, 2 ** 63, 10 ** 18, 10 ** 100]
ROUND_FIELDS = {"round", "votingRound", "don", "sheriff", "day", "night", "num", "voting",
                "pass", "seat", "candidate", "voter", "victim", "shooter", "position",
                "speaker", "nominee", "target", "by", "player"}


def scalars() -> st.SearchStrategy:
    return st.one_of(
        st.none(), st.booleans(),
        st.integers(-3, 60),
        st.sampled_from(BIG_INTS),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=12),
        st.sampled_from(NASTY_TEXT),
        st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF,
                              categories=("Cc", "Cf", "Cs", "Co", "Zs", "Ll", "Mn")), max_size=8),
    )


def values() -> st.SearchStrategy:
    return st.one_of(
        scalars(),
        st.lists(scalars(), max_size=6),
        st.dictionaries(st.sampled_from(sorted(ROUND_FIELDS) + ["type", "time", "x"]), scalars(),
                        max_size=3),
    )


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, prefix + (i,))
    return out


def _parent(doc: Any, path: tuple) -> Any:
    node = doc
    for key in path[:-1]:
        node = node[key]
    return node


def mutate_tree(data, doc: Any, *, round_bias: bool = False) -> Any:
    """1-4 structural mutations of a copy of `doc`."""
    doc = copy.deepcopy(doc)
    if data.draw(st.integers(0, 3), label="gentle") == 0:
        # a near miss: one value changed to something plausible, the rest intact
        paths = [p for p in _paths(doc) if p and not isinstance(_parent(doc, p)[p[-1]],
                                                                  (dict, list))]
        if paths:
            path = data.draw(st.sampled_from(paths), label="gentle path")
            _parent(doc, path)[path[-1]] = data.draw(st.one_of(
                st.integers(0, 12), st.sampled_from([None, True, False, "", "civ", "maf"]),
                st.floats(0, 5000, allow_nan=False)), label="gentle value")
        return doc
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        paths = _paths(doc)
        if round_bias:
            hot = [p for p in paths if p and isinstance(p[-1], str) and p[-1] in ROUND_FIELDS]
            if hot and data.draw(st.booleans(), label="round field"):
                paths = hot
        path = data.draw(st.sampled_from(paths), label="path")
        op = data.draw(st.sampled_from(["set", "set", "set", "delete", "blow_up", "nest",
                                        "absurd"]), label="op")
        if not path:
            if op in ("set", "absurd"):
                return data.draw(values(), label="whole document")
            continue
        parent = _parent(doc, path)
        key = path[-1]
        if op == "set":
            parent[key] = data.draw(values(), label="value")
        elif op == "absurd":
            parent[key] = data.draw(st.sampled_from(BIG_INTS + [-1, 51, 100, 1000, 10 ** 6]),
                                    label="absurd number")
        elif op == "delete":
            if isinstance(parent, dict):
                del parent[key]
            else:
                parent.pop(key)
        elif op == "blow_up":
            # many copies of one part, up to about 3 MB of JSON (over the 2 MB file limit),
            # and the last mutation: the tree is now too big to walk again cheaply
            target = parent[key]
            unit = target[0] if isinstance(target, list) and target else target
            size = len(json.dumps(unit, ensure_ascii=False, default=str)) + 2
            k = data.draw(st.sampled_from([2, 10, 100, 2_000, 6_000]), label="copies")
            k = max(2, min(k, 3_000_000 // size))
            if isinstance(target, list) and target:
                parent[key] = (target * (k // len(target) + 1))[:k]
            elif isinstance(parent, list):
                parent[key:key + 1] = [target] * k
            else:
                parent[key] = [target] * k
            break
        elif op == "nest":
            depth = data.draw(st.sampled_from([2, 20, 40, 200]), label="depth")
            value = parent[key]
            for _ in range(depth):
                value = [value]
            parent[key] = value
    return doc


def to_bytes(data, doc: Any) -> bytes:
    """Serialise, then maybe damage the text: huge integers, NaN, truncation, flipped bytes."""
    ascii_only = data.draw(st.booleans(), label="ensure_ascii")
    try:
        text = json.dumps(doc, ensure_ascii=ascii_only)
    except (ValueError, RecursionError):  # e.g. nesting beyond json.dumps
        text = "[" * 5000 + "]" * 5000
    op = data.draw(st.sampled_from(["none"] * 12 + ["bigint", "nan", "truncate", "flip",
                                                     "deep", "bom"]), label="text op")
    if op == "bigint":
        digits = data.draw(st.sampled_from([16, 300, 4_301, 5_000, 100_000]), label="digits")
        text = _replace_a_number(data, text, "9" * digits)
    elif op == "nan":
        text = _replace_a_number(data, text, data.draw(
            st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1e-999"])))
    elif op == "truncate" and text:
        text = text[:data.draw(st.integers(0, len(text) - 1), label="cut")]
    elif op == "deep":
        depth = data.draw(st.sampled_from([33, 1_000, 100_000]), label="deep text")
        text = "[" * depth + "1" + "]" * depth
    elif op == "bom":
        text = "\ufeff" + text
    raw = text.encode("utf-8", "surrogatepass")
    if op == "flip" and raw:
        raw = bytearray(raw)
        for _ in range(data.draw(st.integers(1, 8), label="flips")):
            i = data.draw(st.integers(0, len(raw) - 1), label="byte")
            raw[i] ^= data.draw(st.integers(1, 255), label="mask")
        raw = bytes(raw)
    return raw


def _replace_a_number(data, text: str, token: str) -> str:
    import re
    spots = [m.span() for m in re.finditer(r"(?<![\w.\"])-?\d+(?:\.\d+)?(?![\w.\"])", text)]
    if not spots:
        return text
    a, b = spots[data.draw(st.integers(0, len(spots) - 1), label="number")]
    return text[:a] + token + text[b:]


# -- running through the real entry points ------------------------------------------------------

def run_cli(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """`mafvar ARGV` in this process, with stdout as strict as a real terminal's."""
    from mafvar.cli import main
    out_buf, err_buf = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_buf, encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(err_buf, encoding="utf-8", errors="backslashreplace")
    old_in = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse: usage errors and --help
                code = exc.code if isinstance(exc.code, int) else 2
            except BaseException as exc:  # noqa: BLE001 - the very thing being looked for
                raise FuzzFailure(f"exception escaped `mafvar {_show(argv)}`: "
                                  f"{type(exc).__name__}: {exc}") from exc
            out.flush()
            err.flush()
    finally:
        sys.stdin = old_in
    o = out_buf.getvalue().decode("utf-8", "replace")
    e = err_buf.getvalue().decode("utf-8", "replace")
    if "Traceback" in e or "(unexpected;" in e:
        raise FuzzFailure(f"`mafvar {_show(argv)}` ended in an unexpected error: {e[-600:]}")
    if code not in (0, 1, 2):
        raise FuzzFailure(f"`mafvar {_show(argv)}` exited {code}")
    if code == 2 and e.strip() and len(e.strip().splitlines()) != 1 and "usage:" not in e:
        raise FuzzFailure(f"`mafvar {_show(argv)}` refused in more than one line: {e[:600]}")
    return code, o, e


def _show(argv: list[str]) -> str:
    text = " ".join(a if len(a) < 60 else a[:57] + "..." for a in argv)
    return text.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")[:300]


def _write(path: Path, raw: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return path


# -- the kinds ------------------------------------------------------------------------------------

_BASES: dict[str, list] = {}


def _bases(name: str, loader: Callable[[], list]) -> list:
    if name not in _BASES:
        _BASES[name] = loader()
    return _BASES[name]


def draw_protocol(data, tmp: Path) -> bytes:
    base = data.draw(st.sampled_from(_bases("native", native_protocols)), label="base")
    return to_bytes(data, mutate_tree(data, base))


def run_protocol(raw: bytes, tmp: Path) -> str:
    path = _write(tmp / "protocol.json", raw)
    code, out, _ = run_cli(["protocol", "check", str(path), "--json"])
    doc = json.loads(out)  # the JSON result is always whole
    if doc.get("format") != "mafvar-check":
        raise FuzzFailure("protocol check --json printed something else")
    return "valid" if code == 0 else "refused"


def _draw_record(platform: str):
    def draw(data, tmp: Path) -> bytes:
        base = data.draw(st.sampled_from(_bases(platform, lambda: records(platform))),
                         label="base")
        return to_bytes(data, mutate_tree(data, base, round_bias=True))
    return draw


def _run_record(platform: str):
    def run(raw: bytes, tmp: Path) -> str:
        path = _write(tmp / f"{platform}.json", raw)
        out = tmp / "imported.json"
        code, _, _ = run_cli(["protocol", "import", "--from", platform, str(path), "-o",
                              str(out), "--force"])
        if code == 0:
            from engine.protocol import schema_issues
            if schema_issues(json.loads(out.read_text(encoding="utf-8"))):
                raise FuzzFailure("an imported protocol fails the schema")
            return "imported"
        return "refused"
    return run


def draw_calibration(data, tmp: Path) -> bytes:
    base = _bases("calibration", lambda: [calibration_sample()])[0]
    return to_bytes(data, mutate_tree(data, base))


def run_calibration(raw: bytes, tmp: Path) -> str:
    from vision.calibration import CalibrationError, check_calibration, load_calibration, require_seats
    path = _write(tmp / "calibration.json", raw)
    try:
        cal = load_calibration(path)
        cam = next(iter(cal.cameras))
        check_calibration(cal, (1280, 720), cam=cam)
        require_seats(cal, cam)
    except CalibrationError as exc:
        if "\n" in str(exc):
            raise FuzzFailure(f"a calibration refusal in more than one line: {exc}") from exc
        return "refused"
    return "loaded"


# The command line: every sub-command, arguments drawn from hostile text and from files
# the other kinds produce. Guards keep a drawn command from starting long work on valid
# input (a server, a render, an analysis): the folders given hold no video, synth's
# output folder is never empty and --force is never drawn, review gets a missing folder.

def _text_arg() -> st.SearchStrategy:
    return st.one_of(
        st.text(max_size=20),
        st.sampled_from(NASTY_TEXT[:-1] + [
            "-1", "0", "99999999999999999999", "9" * 5000, "r1.vote", "r2.night=2472",
            "x=1:2:3", "late_vote:3", "none", "1280x720", "99999x99999", "--", "-h"]),
        st.from_regex(r"[a-z_]{1,12}(:\d{1,4})?(,[a-z_]{1,12})?", fullmatch=True))


def draw_cli(data, tmp: Path) -> dict:
    work = tmp / "cli"
    work.mkdir(parents=True, exist_ok=True)
    missing = str(work / "does-not-exist")
    empty = work / "empty"
    empty.mkdir(exist_ok=True)
    game = work / "game"
    game.mkdir(exist_ok=True)
    if data.draw(st.booleans(), label="protocol in game"):
        (game / "protocol.json").write_bytes(draw_protocol(data, tmp))
    else:
        (game / "protocol.json").unlink(missing_ok=True)
    if data.draw(st.booleans(), label="calibration in game"):
        (game / "calibration.json").write_bytes(draw_calibration(data, tmp))
    if data.draw(st.booleans(), label="review.db in game"):
        (game / "review.db").write_bytes(data.draw(st.binary(max_size=300), label="db bytes"))
    else:
        for p in game.glob("review.db*"):
            p.unlink()
    junk = work / data.draw(st.sampled_from(["junk.json", "junk.png", "review.db", "x.mp4"]),
                            label="junk name")
    junk.write_bytes(data.draw(st.binary(max_size=200), label="junk bytes"))
    odd = os.fsdecode(b"\xff\xfename.json")  # a file name that is not UTF-8
    Path(work, odd).write_bytes(b"{}")
    paths = st.sampled_from([missing, str(empty), str(game), str(junk), str(work / odd), ""])
    anything = st.one_of(paths, _text_arg())
    command = data.draw(st.sampled_from([
        "protocol check", "protocol import", "protocol", "hands", "synth", "report", "analyze",
        "eval", "bench", "audit", "review", "demo", "store verify", "store restore", "store",
        "roles set", "roles grant", "roles revoke", "roles show", "roles", "", "nonsense"]),
        label="command")
    argv = command.split()
    d = lambda s, label: data.draw(s, label=label)  # noqa: E731
    if command == "protocol check":
        argv += [d(anything, "file")] + d(st.lists(st.sampled_from(
            ["--json", "--profile", "mafclub-2023", "--profile", "nope"]), max_size=3), "opts")
    elif command == "protocol import":
        argv += ["--from", d(st.sampled_from(["mafiaratings", "polemica", "other"]), "from"),
                 d(anything, "input"), "-o", d(st.sampled_from([str(work / "out.json"), missing,
                                                               str(empty), str(junk)]), "out")]
    elif command == "hands":
        argv += [d(st.sampled_from([missing, str(junk), str(empty)]), "image")]
        if d(st.booleans(), "json"):
            argv.append("--json")
    elif command == "synth":
        (empty / "keep").write_text("x")  # a non-empty --out: refused before any render
        argv += ["--out", str(empty)]
        if d(st.booleans(), "seed"):
            argv += ["--seed", d(_text_arg(), "seed value")]
        for opt in d(st.lists(st.sampled_from(
                ["--inject", "--camera-height", "--camera-tilt", "--fov", "--lighting", "--noise",
                 "--crf", "--resolution", "--clip", "--workers", "--protocol", "--profile"]),
                max_size=4), "synth opts"):
            argv += [opt, d(anything, opt)]
        if d(st.booleans(), "no video"):
            argv.append("--no-video")
    elif command in ("analyze", "bench", "eval", "report"):
        argv += [d(paths, "game dir")]
        for opt in d(st.lists(st.sampled_from(["--phase", "--anchor", "--workers", "--json",
                                               "--as", "--role"]), max_size=3), "opts"):
            argv += [opt] if opt == "--json" else [opt, d(anything, opt)]
        if command in ("eval", "report"):
            argv = [a for a in argv if a not in ("--phase", "--anchor", "--workers")]
    elif command == "audit":
        argv += [d(st.sampled_from([missing, str(empty), str(junk)]), "folder")]
        if d(st.booleans(), "cluster"):
            argv += ["--cluster", d(st.sampled_from(["tcp://127.0.0.1:1", "nonsense", "\ud800"]),
                                    "address")]
    elif command == "review":
        argv += [missing] + d(st.lists(paths, max_size=2), "games")
        for opt in d(st.lists(st.sampled_from(["--host", "--port", "--upload-limit-mb"]),
                              max_size=2), "opts"):
            argv += [opt, d(anything, opt)]
    elif command == "demo":
        argv += ["--game", missing]
        if d(st.booleans(), "port"):
            argv += ["--port", d(_text_arg(), "port")]
    elif command in ("store verify", "store restore"):
        argv += [d(paths, "game")]
        if command == "store verify" and d(st.booleans(), "json"):
            argv.append("--json")
    elif command.startswith("roles "):
        argv += [d(st.sampled_from([str(empty), missing, str(game), str(junk)]), "folder")]
        if command in ("roles set",):
            argv += ["--role", d(st.sampled_from(["organiser", "chief_judge", "judge"]), "role")]
        if command in ("roles grant", "roles revoke"):
            argv += ["--name", d(anything, "name")]
        if command == "roles grant":
            argv += [x for r in d(st.lists(st.sampled_from(["organiser", "side_judge",
                                                            "chief_judge"]), max_size=3), "roles")
                     for x in ("--role", r)]
        if command == "roles show" and d(st.booleans(), "json"):
            argv.append("--json")
    elif command == "nonsense":
        argv += d(st.lists(anything, max_size=3), "args")
    if d(st.booleans(), "debug"):
        argv.insert(d(st.integers(0, len(argv)), "debug at"), "--debug")
    stdin = "\n".join(d(st.lists(st.one_of(st.text(max_size=30), st.sampled_from(
        ["organiser-pass", "short", "x" * 2000, "\x00\x01"])), max_size=3), "stdin lines"))
    return {"argv": argv, "stdin": stdin}


def run_cli_kind(inp: dict, tmp: Path) -> str:
    code, _, _ = run_cli(inp["argv"], inp["stdin"])
    return {0: "ok", 1: "help", 2: "refused"}[code]


def draw_store(data, tmp: Path) -> dict:
    op = data.draw(st.sampled_from(["decide", "verify_vote", "file_appeal", "attach",
                                    "rule", "export", "add_reviewer", "sign_in"]), label="op")
    text = st.one_of(st.text(max_size=30), st.sampled_from(NASTY_TEXT),
                     st.text(st.characters(categories=("Cc", "Cf", "Cs", "Zs", "Mn", "Lu")),
                             max_size=10))
    plausible = data.draw(st.booleans(), label="plausible")  # half the time, mostly valid
    people = st.sampled_from(["Anna", "Boris", "Zoë Petrova", "zoe  petrova", "Sam"])
    verdicts = {"decide": ["confirmed", "rejected", "unsure"], "verify_vote": ["voted", "late"],
                "rule": ["upheld", "rejected", "replay"]}.get(op, ["confirmed"])
    return {"op": op,
            "name": data.draw(people if plausible else text, label="name"),
            "role": data.draw(st.sampled_from(["chief_judge", "side_judge", "organiser"]
                                              + ([] if plausible else ["referee", "", "\ud800"])),
                              label="role"),
            "incident": data.draw(st.sampled_from(["peek-1", "peek-2"]) if plausible else
                                  st.one_of(st.sampled_from(["peek-1", "ghost"]), text),
                                  label="incident"),
            "verdict": data.draw(st.sampled_from(verdicts + ([] if plausible else ["maybe", ""])),
                                 label="verdict"),
            "note": data.draw(st.one_of(st.text(max_size=40), st.just("n" * 5000), text)
                              if not plausible else st.text(max_size=40), label="note"),
            "numbers": data.draw(st.lists(st.integers(1, 3) if plausible else st.one_of(
                st.integers(-2, 12), st.sampled_from(BIG_INTS), st.none(), st.booleans()),
                min_size=4, max_size=4), label="numbers"),
            "passphrase": data.draw(st.one_of(st.none(), text), label="passphrase")}


STORE_REFUSALS = (ValueError, LookupError, PermissionError)


def run_store(inp: dict, tmp: Path) -> str:
    from review.store import ReviewStore, ReviewStoreError, check_identity
    game = tmp / "store-game"
    if not (game / "analysis" / "incidents.json").exists():
        game.mkdir(parents=True, exist_ok=True)
        sys.path.insert(0, str(ROOT / "tests" / "review"))
        from review_store_support import write_incidents
        write_incidents(game, ["peek-1", "peek-2"])
    r, p, c, seat = inp["numbers"]
    try:
        if inp["op"] == "sign_in":
            check_identity(game, inp["name"], inp["role"], inp["passphrase"])
            return "ok"
        with ReviewStore.open(game / "review.db") as s:
            kw = {"passphrase": inp["passphrase"]}
            if inp["op"] == "decide":
                s.decide(inp["incident"], inp["name"], inp["role"], inp["verdict"], inp["note"], **kw)
            elif inp["op"] == "verify_vote":
                s.verify_vote(r, p, c, seat, inp["verdict"], inp["name"], inp["role"], inp["note"],
                              **kw)
            elif inp["op"] == "file_appeal":
                s.file_appeal(seat, inp["note"], reviewer=inp["name"], role=inp["role"],
                              incident_ids=[inp["incident"]], **kw)
            elif inp["op"] == "attach":
                s.attach_incidents(r, [inp["incident"]], reviewer=inp["name"], role=inp["role"],
                                   **kw)
            elif inp["op"] == "rule":
                s.rule_appeal(r, inp["name"], inp["role"], inp["verdict"], inp["note"], **kw)
            elif inp["op"] == "export":
                s.record_export(inp["name"], inp["role"], inp["note"], **kw)
            else:
                s.add_reviewer(inp["name"], inp["role"], **kw)
    except STORE_REFUSALS as exc:
        _one_line(exc)
        return "refused"
    except ReviewStoreError as exc:
        # the database's own checks caught what validation let through: a gap to close
        raise FuzzFailure(f"the store's validation missed what SQLite refused: {exc}") from exc
    return "written"


def _one_line(exc: BaseException) -> None:
    text = str(exc)
    if not text or "\n" in text:
        raise FuzzFailure(f"a refusal that is not one line: {text!r}")
    text.encode("utf-8", "backslashreplace")


KINDS: dict[str, Kind] = {
    "protocol": Kind("protocol", draw_protocol, run_protocol),
    "mafiaratings": Kind("mafiaratings", _draw_record("mafiaratings"), _run_record("mafiaratings")),
    "polemica": Kind("polemica", _draw_record("polemica"), _run_record("polemica")),
    "calibration": Kind("calibration", draw_calibration, run_calibration),
    "cli": Kind("cli", draw_cli, run_cli_kind),
    "store": Kind("store", draw_store, run_store),
}


def verify_store_after(tmp: Path) -> None:
    """After the store kind ran: whatever was written must still verify."""
    from review.store_integrity import verify_file
    db = tmp / "store-game" / "review.db"
    if db.exists():
        report = verify_file(db)
        if not report.ok:
            raise FuzzFailure(f"the store no longer verifies: {report.summary()}")
