"""How the review app's Streamlit server is started: its command line and environment.

`mafvar review` and `mafvar demo` start it; the browser tests start it the
same way. The game folders and the upload limit reach the app through the
environment (app.game.GAMES_ENV, app.uploads.SIZE_LIMIT_ENV).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from app.game import GAMES_ENV
from app.uploads import SIZE_LIMIT_ENV

MAIN = Path(__file__).resolve().parent / "main.py"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8501


def server_command(host: str, port: int, upload_limit_mb: int) -> list[str]:
    return [sys.executable, "-m", "streamlit", "run", str(MAIN),
            "--server.headless", "true", "--server.address", host, "--server.port", str(port),
            "--server.maxUploadSize", str(max(upload_limit_mb, 1)),
            "--server.fileWatcherType", "none", "--server.runOnSave", "false",
            "--browser.gatherUsageStats", "false", "--global.developmentMode", "false",
            "--client.toolbarMode", "viewer"]


def server_env(games: list[Path], upload_limit_mb: int) -> dict[str, str]:
    env = dict(os.environ)
    env[GAMES_ENV] = os.pathsep.join(str(g) for g in games)
    env[SIZE_LIMIT_ENV] = str(upload_limit_mb * 1024 ** 2)
    root = str(MAIN.parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env
