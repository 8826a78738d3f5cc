"""Secrets from the person at the keyboard: a hidden prompt, or one line of stdin.

Passphrases never come from the command line (argv is visible to every user
of the machine in `ps` and lands in shell history).
"""
from __future__ import annotations

import getpass
import sys

from mafvar.errors import UserError


def read_secret(label: str, *, confirm: bool = False) -> str:
    """A hidden prompt on a terminal; otherwise the next line of stdin (for scripts)."""
    if sys.stdin is not None and sys.stdin.isatty():
        first = getpass.getpass(f"{label}: ")
        if confirm and getpass.getpass(f"{label} (again): ") != first:
            raise UserError("the two entries differ; nothing was changed")
        return first
    line = sys.stdin.readline() if sys.stdin is not None else ""
    if not line:
        raise UserError(f"{label}: expected on a prompt or as a line of stdin, got nothing")
    return line.rstrip("\r\n")
