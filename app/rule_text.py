"""The text of a rule clause in the game's profile, from the source rulebooks.

The engine cites clauses ("MC 2.4.7", "SM 6.5", "RU L17") but does not carry
their text; the rulebooks live beside the project (../shared/seeds, see
rules-spec §0), one per profile. This reads the numbered paragraph from
there; when the books are absent the page says so instead of guessing.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

RULEBOOKS_ENV = "MAFVAR_RULEBOOKS"
# rules-spec §0: MC = 000 (English; 001 Russian), CC = 002, SM = 003, RU = 004 (cited by line)
BOOK_OF_CODE = {"MC": ("000", "001"), "CC": ("002",), "SM": ("003",), "RU": ("004",)}
CODE_OF_PROFILE = {"mafclub-2023": "MC", "classic-club": "CC", "sport-mafia": "SM", "ru-club": "RU"}


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


def split_clause(clause: str, profile: str) -> tuple[str, str]:
    """("MC", "2.4.7") from "MC 2.4.7"; a bare number takes the profile's code."""
    clause = clause.strip()
    m = re.match(r"^(MC|CC|SM|RU)\s+(.+)$", clause)
    if m:
        return m.group(1), m.group(2).strip()
    return CODE_OF_PROFILE.get(profile, "MC"), clause


def clause_text(clause: str, profile: str) -> str | None:
    """The paragraph of `clause` in its rulebook, or None if not found."""
    if not clause:
        return None
    folder = rulebook_dir()
    if folder is None:
        return None
    code, number = split_clause(clause, profile)
    number = re.split(r"[\s,;]", number)[0].rstrip(".")
    for prefix in BOOK_OF_CODE.get(code, ()):
        lines = _book_lines(prefix, str(folder))
        if not lines:
            continue
        line_ref = re.fullmatch(r"L(\d+)", number)
        if line_ref:
            n = int(line_ref.group(1))
            return lines[n - 1].strip() if 0 < n <= len(lines) else None
        pattern = re.compile(r"^\s*(?:[-•*]\s*)?" + re.escape(number) + r"\.?(?:\s|$|[A-ZА-Я])")
        for line in lines:
            if pattern.match(line):
                return re.sub(r"^\s*[-•*]\s*", "", line).strip()
    return None
