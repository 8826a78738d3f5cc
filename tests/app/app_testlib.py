"""Shared helpers for the app tests: the fixture game and an AppTest on a chosen page.

Loaded by path under a unique module name, because tests/ subfolders have no
__init__.py and another area may also have a module called `fixtures`.
"""
from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAIN = ROOT / "app" / "main.py"


def load_fixtures():
    name = "mafvar_app_test_fixtures"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("fixtures.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


fixtures = load_fixtures()


def copy_game(template: Path, dest_root: Path, name: str = "game1") -> Path:
    dest = dest_root / name
    shutil.copytree(template, dest)
    return dest


def app_on(page: str, game: Path | None, *, name: str = "Anna", role: str = "chief_judge",
           extra: dict | None = None, timeout: float = 60):
    """An AppTest that has run main.py and switched to views/<page>.py."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(MAIN), default_timeout=timeout)
    if game is not None:
        at.session_state["game_dir"] = str(game)
    if name:
        at.session_state["reviewer_name"] = name
    at.session_state["reviewer_role"] = role
    for k, v in (extra or {}).items():
        at.session_state[k] = v
    at.run()
    at.switch_page(f"views/{page}.py").run()
    return at


def no_exceptions(at) -> None:
    assert not at.exception, [e.value for e in at.exception]


def texts(at) -> str:
    """All markdown, captions, alerts and titles of the last run, joined."""
    parts = []
    for kind in ("markdown", "caption", "error", "warning", "info", "success", "title", "header", "subheader"):
        parts += [str(e.value) for e in getattr(at, kind)]
    return "\n".join(parts)
