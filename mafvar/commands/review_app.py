"""`mafvar review` and `mafvar demo`: start the review app on localhost."""
from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

from app.server import DEFAULT_HOST, DEFAULT_PORT, server_command, server_env
from app.uploads import DEFAULT_SIZE_LIMIT
from mafvar.errors import UserError
from review.workspace import PROTOCOL_FILE, GameWorkspace, is_game_dir


def register(subparsers: argparse._SubParsersAction) -> None:
    review = subparsers.add_parser("review", help="start the review app on localhost",
                                   description="Start the Streamlit review app for one or more "
                                               "game folders (or folders of games).")
    review.add_argument("games", nargs="*", metavar="GAME_DIR",
                        help="game folders, or folders that hold game folders")
    _server_args(review)
    review.set_defaults(handler=run_review)

    demo = subparsers.add_parser("demo", help="open the committed sample game in the review app")
    demo.add_argument("--game", default=None, help=argparse.SUPPRESS)
    _server_args(demo)
    demo.set_defaults(handler=run_demo)


def _server_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to bind (default {DEFAULT_HOST}: this machine only)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--upload-limit-mb", type=int, default=DEFAULT_SIZE_LIMIT // 1024 ** 2,
                   help="largest video upload accepted, in MB (default 4096)")


def _serve(games: list[Path], args: argparse.Namespace, open_game: Path | None = None) -> int:
    if not 0 < args.port < 65536:
        raise UserError(f"port {args.port} is not 1..65535")
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "localhost") else args.host
    url = f"http://{shown}:{args.port}/"
    if open_game is not None:
        url += f"?game={quote(str(open_game))}"
    print(f"mafvar review app: {url}", flush=True)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: listening on {args.host}: other machines can reach the app", file=sys.stderr)
    proc = subprocess.Popen(server_command(args.host, args.port, args.upload_limit_mb),
                            env=server_env(games, args.upload_limit_mb))

    def stop_server(signum, _frame):
        # forward a stop to the server and wait for it, so the port is free when we exit
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop_server)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_review(args: argparse.Namespace) -> int:
    games = []
    for g in args.games:
        p = Path(g).expanduser()
        if not p.is_dir():
            raise UserError(f"not a folder: {g}")
        games.append(p.resolve())
    return _serve(games, args, games[0] if len(games) == 1 and is_game_dir(games[0]) else None)


def demo_dir() -> Path:
    import sample_videos
    return Path(sample_videos.__file__).resolve().parent / "demo"


def run_demo(args: argparse.Namespace) -> int:
    game = Path(args.game).resolve() if args.game else demo_dir()
    if not is_game_dir(game):
        raise UserError(f"the sample game is missing: {game} has no {PROTOCOL_FILE} "
                        "(regenerate it with `make sample`)")
    if not GameWorkspace(game).incidents_path.is_file():
        from mafvar.terminal import ProgressLine, library_log
        from review.pipeline import analyze  # the models load only when the sample needs analysing
        print(f"analysing {game} first…", flush=True)
        with library_log(game) as term:
            line = ProgressLine(term)
            try:
                analyze(game, progress=line.show)
            except Exception as exc:
                raise UserError(f"analysis of the sample game failed: {exc}") from None
            finally:
                line.close()
    return _serve([game], args, game)
