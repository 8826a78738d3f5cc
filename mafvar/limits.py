"""Size and magnitude limits on everything a user hands to mafvar, checked before any work.

Every JSON input (protocols, rating-platform records, calibration files) is
read through `read_json_file`/`parse_json_text`: the file size is checked
before reading, integers are refused before Python converts their digits,
and the parsed tree is walked once for depth, node count, list lengths,
string lengths and text that is not valid Unicode (a lone UTF-16 surrogate
such as "\\ud800"). Each refusal is an `InputLimitError` whose message names
the limit, so the caller can print it as one line.

The limits are far above any real game (a 65-minute game's protocol is about
40 KB with a few hundred events) and far below what makes a step slow.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Limits:
    """Ceilings on one JSON input. Module-level `LIMITS` is the one the product uses."""
    max_bytes: int = 2 * 1024 * 1024          # a protocol or record file
    max_calibration_bytes: int = 256 * 1024
    max_depth: int = 32                       # nesting of objects and lists
    max_nodes: int = 100_000                  # values in the whole document
    max_list: int = 10_000                    # items in one list / keys in one object
    max_string: int = 10_000                  # characters in one string (a judge's note)
    max_int_digits: int = 15                  # |integer| < 10**15
    max_abs_number: float = 1e12              # any number, integer or not
    max_events: int = 5_000                   # events in one protocol (a long game: ~400)
    max_round: int = 50                       # round / day / night numbers in records
    max_passes: int = 10                      # voting passes (revotes) in one day
    max_seconds: float = 1_000_000.0          # any time on the protocol clock (11.6 days: live
                                              # records count from the booking, days before)


LIMITS = Limits()


class InputLimitError(ValueError):
    """An input over a size or magnitude limit, or not valid Unicode; one line, naming it."""


def read_text_file(path: str | os.PathLike[str], *, max_bytes: int = LIMITS.max_bytes,
                   what: str = "file") -> str:
    """UTF-8 text of `path`, refusing a file over `max_bytes` before reading it.

    Reads at most `max_bytes + 1` bytes, so a device or a growing file cannot
    make it read forever. Raises FileNotFoundError, OSError, InputLimitError
    (too big, or not UTF-8: the message names the byte offset).
    """
    p = Path(path)
    try:
        handle = open(p, "rb")
    except ValueError as exc:  # a NUL byte, or a surrogate no file system name can hold
        raise InputLimitError(f"{str(p)!r}: not a usable file name ({exc})") from None
    with handle:
        try:
            size = os.fstat(handle.fileno()).st_size
        except OSError:
            size = 0
        if size > max_bytes:
            raise InputLimitError(f"{p}: {what} is {_size(size)}, over the limit of "
                                  f"{_size(max_bytes)}")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputLimitError(f"{p}: {what} is over the limit of {_size(max_bytes)}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputLimitError(f"{p}: {what} is not UTF-8 text (byte {exc.start}: "
                              f"{exc.reason})") from None


def parse_json_text(text: str, *, limits: Limits = LIMITS, what: str = "document") -> Any:
    """Parse JSON under the limits. Raises json.JSONDecodeError for bad syntax and
    InputLimitError for anything over a limit (including nesting too deep)."""
    if len(text) > limits.max_bytes:
        raise InputLimitError(f"{what} is {len(text):,} characters, over the limit of "
                              f"{_size(limits.max_bytes)}")
    try:
        doc = json.loads(text, parse_int=lambda s: _int(s, limits, what),
                         parse_float=lambda s: _float(s, limits, what),
                         parse_constant=lambda s: _constant(s, what))
    except RecursionError:
        raise InputLimitError(f"{what}: nested more than {limits.max_depth} levels deep") from None
    check_tree(doc, limits=limits, what=what)
    return doc


def read_json_file(path: str | os.PathLike[str], *, limits: Limits = LIMITS,
                   max_bytes: int | None = None, what: str = "file") -> Any:
    """`read_text_file` then `parse_json_text`; messages start with the path."""
    text = read_text_file(path, max_bytes=max_bytes or limits.max_bytes, what=what)
    return parse_json_text(text, limits=limits, what=str(path))


def check_tree(doc: Any, *, limits: Limits = LIMITS, what: str = "document") -> None:
    """Depth, node count, list and string lengths, numbers and Unicode of a parsed tree.

    Iterative (no recursion), so a hostile tree cannot overflow the stack here.
    """
    nodes = 0
    stack: list[tuple[Any, int, str]] = [(doc, 1, "")]
    while stack:
        node, depth, where = stack.pop()
        nodes += 1
        if nodes > limits.max_nodes:
            raise InputLimitError(f"{what or 'document'}: more than {limits.max_nodes:,} values "
                                  f"(limit {limits.max_nodes:,})")
        if depth > limits.max_depth:
            raise InputLimitError(f"{_label(what, where)}: nested more than {limits.max_depth} "
                                  f"levels deep")
        if isinstance(node, str):
            check_string(node, limits=limits, what=f"{_label(what, where)}")
        elif isinstance(node, bool) or node is None:
            continue
        elif isinstance(node, int):
            if abs(node) >= 10 ** limits.max_int_digits:
                raise InputLimitError(f"{_label(what, where)}: integer over the limit of "
                                      f"{limits.max_int_digits} digits")
        elif isinstance(node, float):
            if not math.isfinite(node) or abs(node) > limits.max_abs_number:
                raise InputLimitError(f"{_label(what, where)}: number {node!r} is beyond the limit "
                                      f"of {limits.max_abs_number:g}")
        elif isinstance(node, dict):
            if len(node) > limits.max_list:
                raise InputLimitError(f"{_label(what, where)}: object with {len(node):,} keys, over "
                                      f"the limit of {limits.max_list:,}")
            for key, value in node.items():
                check_string(key, limits=limits, what=f"{_label(what, where)}: key")
                stack.append((value, depth + 1, f"{where}.{_short(key)}" if where else
                              _short(key)))
        elif isinstance(node, list):
            if len(node) > limits.max_list:
                raise InputLimitError(f"{_label(what, where)}: list of {len(node):,} items, over "
                                      f"the limit of {limits.max_list:,}")
            for i, value in enumerate(node):
                stack.append((value, depth + 1, f"{where}[{i}]"))


def check_string(text: str, *, limits: Limits = LIMITS, what: str = "text") -> None:
    """Refuse a string over the length limit or holding a lone UTF-16 surrogate."""
    if len(text) > limits.max_string:
        raise InputLimitError(f"{what}: text of {len(text):,} characters, over the limit of "
                              f"{limits.max_string:,}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raise InputLimitError(f"{what}: not valid Unicode (a lone surrogate "
                              f"\\u{ord(bad):04x} at character {exc.start})") from None


def check_number(value: Any, low: float, high: float, what: str) -> None:
    """A finite number in [low, high] (bools are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return  # the schema names type errors
    if not (isinstance(value, int) or math.isfinite(value)) or not low <= value <= high:
        raise InputLimitError(f"{what}: {_num(value)} is beyond the limit ({low:g}..{high:g})")


# -- internals -----------------------------------------------------------------------------

def _int(text: str, limits: Limits, what: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > limits.max_int_digits:
        # refused before int() converts it: a 4,300-digit integer must not even be parsed
        raise InputLimitError(f"{what}: an integer of {digits:,} digits, over the limit of "
                              f"{limits.max_int_digits} digits")
    return int(text)


def _float(text: str, limits: Limits, what: str) -> float:
    if len(text) > 64:
        raise InputLimitError(f"{what}: a number written with {len(text):,} characters, over "
                              f"the limit of 64")
    value = float(text)
    if not math.isfinite(value) or abs(value) > limits.max_abs_number:
        raise InputLimitError(f"{what}: number {text[:30]} is beyond the limit of "
                              f"{limits.max_abs_number:g}")
    return value


def _constant(text: str, what: str) -> float:
    raise InputLimitError(f"{what}: {text} is not a number JSON allows")


def _num(value: float) -> str:
    if isinstance(value, int) and abs(value) >= 10 ** 15:
        # str() of a huge int is itself refused past 4,300 digits: estimate from the bits
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    return repr(value)


def _short(key: str) -> str:
    text = key if len(key) <= 40 else key[:37] + "..."
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("ascii", "replace")
    return text


def _label(what: str, where: str) -> str:
    """"protocol, at events[3].seat", "at events[3].seat" (no `what`), or "document"."""
    if what and where:
        return f"{what}, at {where}"
    return what or (f"at {where}" if where else "document")


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    if n >= 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n} bytes"
