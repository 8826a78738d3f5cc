"""Text people type into the review: names, notes, grounds, reasons, passphrases.

Everything is normalised the same way before it is stored or compared:
Unicode NFC (so "é" typed as one or two code points is the same name), no
control characters (a NUL or an escape sequence in a name would corrupt
every report and terminal it reaches), no bidirectional overrides (they make
a name display as another), and a length limit named in the refusal.
"""
from __future__ import annotations

import unicodedata
from typing import Any

MAX_NAME = 80            # a person's name as it appears in the audit log
MAX_NOTE = 4000          # a note, an appeal's grounds, a ruling's reasons
MAX_INCIDENT_ID = 200
MIN_PASSPHRASE = 8
MAX_PASSPHRASE = 1024

# Explicit directional formatting characters (Unicode TR9): they reorder what
# follows them on screen, so "Anna\u202eredro" would read as someone else.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


def clean_name(value: Any, what: str = "a reviewer's name") -> str:
    """NFC, surrounding space stripped, inner runs of space made one; refused if empty,
    over `MAX_NAME` characters or holding a control or direction character."""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text")
    text = _checked(value, what, multiline=False, limit=MAX_NAME)
    text = " ".join(text.split())
    if not text:
        raise ValueError(f"{what} is empty: a reviewer needs a name")
    if len(text) > MAX_NAME:
        raise ValueError(f"{what} is {len(text)} characters long, over the limit of {MAX_NAME}")
    return text


def name_key(name: str) -> str:
    """What makes two names the same person: case and spacing do not count."""
    return clean_name(name).casefold()


def clean_note(value: Any, what: str = "a note", *, required: bool = False) -> str:
    """NFC; new lines and tabs kept, other control characters refused; at most `MAX_NOTE`."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text")
    text = _checked(value, what, multiline=True, limit=MAX_NOTE)
    if len(text) > MAX_NOTE:
        raise ValueError(f"{what} is {len(text):,} characters long, over the limit of "
                         f"{MAX_NOTE:,}")
    if required and not text.strip():
        raise ValueError(f"{what} is empty")
    return text


def clean_incident_id(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("an incident id must be a non-empty string")
    text = _checked(value, "an incident id", multiline=False, limit=MAX_INCIDENT_ID)
    if len(text) > MAX_INCIDENT_ID:
        raise ValueError(f"an incident id is at most {MAX_INCIDENT_ID} characters")
    return text


def clean_passphrase(value: Any) -> str:
    """NFC (the same passphrase typed on two keyboards matches); length checked."""
    if not isinstance(value, str):
        raise ValueError("a passphrase must be text")
    text = _checked(value, "a passphrase", multiline=False, limit=MAX_PASSPHRASE)
    if len(text) < MIN_PASSPHRASE:
        raise ValueError(f"a passphrase needs at least {MIN_PASSPHRASE} characters")
    if len(text) > MAX_PASSPHRASE:
        raise ValueError(f"a passphrase is at most {MAX_PASSPHRASE} characters")
    return text


def _checked(value: str, what: str, *, multiline: bool, limit: int) -> str:
    if len(value) > 4 * limit:
        # before normalising: NFC of a huge string is work we refuse to do
        raise ValueError(f"{what} is {len(value):,} characters long, over the limit of "
                         f"{limit:,}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{what} is not valid Unicode (a lone surrogate at character "
                         f"{exc.start})") from None
    text = unicodedata.normalize("NFC", value)
    for i, ch in enumerate(text):
        if multiline and ch in "\n\t":
            continue
        if ch == "\r" and multiline:
            continue
        if ch in _BIDI:
            raise ValueError(f"{what} holds a text-direction control character "
                             f"(U+{ord(ch):04X} at character {i})")
        if unicodedata.category(ch) == "Cc":
            raise ValueError(f"{what} holds a control character (U+{ord(ch):04X} at character {i})")
    return text
