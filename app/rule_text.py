"""The text of a rule clause in the game's profile, from the source rulebooks.

The engine cites clauses ("MC 2.4.7", "SM 6.5", "RU L17") but does not carry
their text; the rulebooks live beside the project (../shared/seeds, see
rules-spec §0). Which books a clause code stands for is each profile's own
declaration (engine/profiles/*.json `code` and `sources`). This reads the
numbered paragraph from there; when the books are absent the page says so
instead of guessing.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from engine.profiles import Profile, all_profiles

RULEBOOKS_ENV = "MAFVAR_RULEBOOKS"


def books_of_code() -> dict[str, tuple[str, ...]]:
    """Clause code -> the rulebooks it cites (e.g. MC -> 000, 001), from the profiles."""
    return {p.code: p.sources for p in all_profiles()}


def rulebook_dir() -> Path | None:
    env = os.environ.get(RULEBOOKS_ENV)
    candidates = [Path(env)] if env else []
    repo = Path(__file__).resolve().parent.parent
    candidates += [repo.parent / "shared" / "seeds", repo / "seeds"]
    return next((c for c in candidates if c.is_dir()), None)


@lru_cache(maxsize=8)
def _book_lines(prefix: str, folder: str) -> tuple[str, ...]:
    for path in sorted(Path(folder).glob(f"{prefix}_*.txt")):
        return tuple(path.read_text(encoding="utf-8", errors="replace").splitlines())
    return ()


@dataclass(frozen=True)
class ClauseRef:
    """A clause as the engine cites it: "MC 2.4.7", "MC 000 4.8.2, 4.18.1" (naming
    one of the profile's books), "rules-spec §3 V5 (RU: no clause)"."""
    code: str                 # the profile's clause code ("MC"), or "" when none
    book: str | None          # the rulebook named ("000"), None: the profile's first
    numbers: tuple[str, ...]  # "2.4.7", "4.18.1", "L17"
    raw: str


def parse_clause(clause: str, profile: Profile) -> ClauseRef:
    text = clause.strip()
    code, _, rest = text.partition(" ")
    if not rest or code not in books_of_code():
        if re.fullmatch(r"[0-9][0-9.]*[a-z]?|[LR]\d+", text):
            return ClauseRef(profile.code, None, (text,), clause)
        return ClauseRef("", None, (), clause)
    book = None
    first, _, after = rest.strip().partition(" ")
    if re.fullmatch(r"\d{3}", first) and after:
        book, rest = first, after
    numbers = tuple(n.strip().rstrip(".") for n in re.split(r"[,;]", rest) if n.strip())
    return ClauseRef(code, book, numbers, clause)


def editions(profile: Profile) -> dict[str, str]:
    """Book id -> its edition as the profile's title names it ("000" -> "English 2023-03-10")."""
    out = {}
    for book in profile.sources:
        m = re.search(re.escape(book) + r"\s+([^;)]+)", profile.title)
        out[book] = m.group(1).strip() if m else book
    return out


def clause_label(clause: str, profile: Profile | None = None) -> str:
    """The clause as a judge cites it: "MC 2.4.11"; another edition of the rules
    than the profile's first is named ("MC 2.4.15 (Russian 2023-02-27)"). Without
    a profile, the one whose clause code the clause carries."""
    if profile is None:
        code = clause.strip().partition(" ")[0]
        profile = next((p for p in all_profiles() if p.code == code), None)
        if profile is None:
            return clause.strip() or "no clause"
    ref = parse_clause(clause, profile)
    if not ref.code or not ref.numbers:
        return clause.strip() or "no clause"
    label = f"{ref.code} {', '.join(ref.numbers)}"
    if ref.book is not None and profile.sources and ref.book != profile.sources[0]:
        label += f" ({editions(profile).get(ref.book, ref.book)})"
    return label


def split_clause(clause: str, profile: Profile) -> tuple[str, str]:
    """("MC", "2.4.7") from "MC 2.4.7" or "MC 000 2.4.7"; a bare number takes the profile's code."""
    ref = parse_clause(clause, profile)
    return (ref.code or profile.code, ref.numbers[0] if ref.numbers else clause.strip())


# 002's unnumbered paragraphs as rules-spec §0 names them (¶Night), each found by a phrase of its own
PARAGRAPHS = {"Tie": "receive an equal", "Night": 'announces, "Night,"',
              "Day2": "Player 2 starts discussion", "Win": '"CITIZENS" win'}


def _listed_rule(lines: tuple[str, ...], n: int) -> str | None:
    """Item `n` of the book's last list numbered from 1: rules-spec §0 cites 002's
    conduct list, which restarts the numbering after the game's description,
    as R1-R18 ("R12": its item "12. ...")."""
    starts = [i for i, line in enumerate(lines) if re.match(r"^\s*1\.\s", line)]
    if not starts:
        return None
    item = re.compile(r"^\s*" + str(n) + r"\.\s")
    return next((line.strip() for line in lines[starts[-1]:] if item.match(line)), None)


def clause_text(clause: str, profile: Profile) -> str | None:
    """The paragraph of `clause` (its first number) in its rulebook, or None if not found."""
    if not clause:
        return None
    folder = rulebook_dir()
    if folder is None:
        return None
    ref = parse_clause(clause, profile)
    if not ref.code or not ref.numbers:
        return None
    # "2.4.12 (001 wording)": that book's paragraph; "6.5-6.6", "L32-33": the first of a range
    first = ref.numbers[0]
    wording = re.search(r"\((\d{3}) wording\)", first)
    number = re.split(r"[\s(]|(?<=\d)-", first, maxsplit=1)[0]
    # "2.4.15c": a part of 2.4.15 (the paragraph is quoted whole)
    number = re.sub(r"(?<=\d)[a-z]$", "", number)
    books = books_of_code().get(ref.code, ())
    for named in (ref.book, wording.group(1) if wording else None):
        if named is not None:
            books = (named,) + tuple(b for b in books if b != named)
    for prefix in books:
        lines = _book_lines(prefix, str(folder))
        if not lines:
            continue
        line_ref = re.fullmatch(r"L(\d+)", number)
        if line_ref:
            n = int(line_ref.group(1))
            return lines[n - 1].strip() if 0 < n <= len(lines) else None
        rule_ref = re.fullmatch(r"R(\d+)", number)
        if rule_ref:
            return _listed_rule(lines, int(rule_ref.group(1)))
        if number.startswith("¶"):
            phrase = PARAGRAPHS.get(number[1:])
            found = next((line.strip() for line in lines if phrase and phrase in line), None)
            if found:
                return found
            continue
        pattern = re.compile(r"^\s*(?:[-•*]\s*)?" + re.escape(number) + r"\.?(?:\s|$|[A-ZА-Я])")
        for line in lines:
            if pattern.match(line):
                return re.sub(r"^\s*[-•*]\s*", "", line).strip()
    return None
