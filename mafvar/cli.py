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

from mafvar.commands import analysis, audit, hands, protocol, report, review_app, synth  # noqa: E402
from mafvar.errors import UserError  # noqa: E402

# Order is the order shown in `mafvar --help`.
COMMANDS = (protocol, hands, synth, report, analysis, audit, review_app)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mafvar",
        description="Video-assisted refereeing for sport Mafia.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 1
    try:
        return int(handler(args) or 0)
    except UserError as exc:
        print(f"mafvar {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`mafvar ... | head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
