"""The `mafvar` command line: one entry point that fronts every package.

Each sub-command is a module of `mafvar.commands` exposing
`register(subparsers)`; this file only lists them, in the order of
`mafvar --help`. Command modules import the libraries (engine, vision,
review, app, sample_videos) and `mafvar.errors`, never this file, and no
library imports a command module (tests/test_import_graph.py holds both).
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import NoReturn

# MediaPipe's C++ side logs every graph start to stderr (also in worker
# processes, which inherit the environment); users need our messages only.
os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# Work is spread over processes, one per core; a BLAS thread pool per process
# only fights them. The seat-window classifiers' small products took 0.4-2.8 ms
# each with OpenBLAS's two threads on a busy machine and 0.014 ms with one
# (measured). Set before numpy is imported, and inherited by spawned workers.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from mafvar.commands import (  # noqa: E402
    analysis, audit, calibrate, hands, learn, protocol, report, review_app, roles, stills, store, synth)
from mafvar.errors import UserError  # noqa: E402

# Order is the order shown in `mafvar --help`.
COMMANDS = (protocol, hands, stills, synth, calibrate, report, analysis, audit, learn, review_app, store, roles)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (sub-command parsers inherit the class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {one_line(Exception(message))} "
                     f"(see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mafvar",
        description="Video-assisted refereeing for sport Mafia.",
    )
    parser.add_argument("--debug", action="store_true",
                        help="on an unexpected error, print the full traceback too")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one sub-command; every run ends in a sentence.

    A `UserError` is the user's input: its one line, exit 2. Anything else
    that escapes a command is ours: one line naming it, exit 2, and the
    traceback only with `--debug` (also accepted after the sub-command).
    Text goes out with unencodable characters escaped, so a lone surrogate
    in a name or a path cannot turn a message into a crash.
    """
    safe_output()
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    if debug:  # accepted anywhere on the line, not only before the sub-command
        argv = ["--debug"] + [a for a in argv if a != "--debug"]
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 1
    command = getattr(args, "command", None) or "mafvar"
    try:
        return int(handler(args) or 0)
    except UserError as exc:
        print(f"mafvar {command}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`mafvar ... | head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - the boundary: nothing escapes as a traceback
        if debug:
            traceback.print_exc(file=sys.stderr)
        print(f"mafvar {command}: error: {type(exc).__name__}: {one_line(exc)} "
              f"(unexpected; nothing was presented as a result; run with --debug for the "
              f"traceback)", file=sys.stderr)
        return 2


def one_line(exc: BaseException, limit: int = 2000) -> str:
    """An exception's message on one line, never longer than `limit` characters."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - e.g. str() of an int past 4,300 digits
        text = ""
    text = " ".join(text.split()) or type(exc).__name__
    return text if len(text) <= limit else text[:limit - 1] + "…"


def safe_output() -> None:
    """Escape what the terminal's encoding cannot show instead of raising.

    stdout is strict by default; a lone surrogate (from a hostile record, or a
    non-UTF-8 file name on the command line) would make printing itself fail.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream
                pass


if __name__ == "__main__":
    sys.exit(main())
