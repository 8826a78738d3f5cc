"""`mafvar audit`: analyse every game workspace in a folder, locally or on a Dask cluster.

One task per game: the task runs `review.pipeline.analyze` on the game's
folder, which writes the results into that game's own `analysis/`. The
driver only collects a small summary per game (status, incident count,
open appeals, wall seconds) and writes `FOLDER/audit.json`.

Where it runs:
- by default a local pool of `workers` spawned processes, each analysing one
  game at a time with one extraction process (the games are the parallelism);
- with `cluster="tcp://host:port"`, the workers of a `dask.distributed`
  scheduler the organisers started themselves (`dask scheduler`,
  `dask worker tcp://host:port --nthreads 1`). Requirement: every worker
  must see the game folders at the SAME absolute paths as the machine running
  `mafvar audit` (a shared filesystem: NFS, SMB, a cluster volume), and must
  have the same mafvar installed (the same requirements.lock). The audit
  checks both before it submits anything.

Safe to re-run: after a game's analysis finishes, the task stamps
`analysis/audited.json` with a fingerprint of the game's inputs (protocol,
calibration, videos) and of the analysis markers; a later audit reports a game
whose stamp still matches as "skipped" without running anything. A game
whose run was interrupted (a killed worker, a power cut) is analysed again,
and `analyze` itself resumes from its finished steps and extracted chunks,
which is why Dask may retry a task on another worker (`retries=2`, and the
scheduler reschedules the tasks of a worker that dies).

A game that cannot be analysed (bad protocol, missing video...) is reported
as failed with the engine's one-line message; the other games go on.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable, Sequence

from .atomic_write import write_json_atomic
from .workspace import ANALYSIS_DIR, PROTOCOL_FILE, GameWorkspace, WorkspaceError, is_game_dir

AUDIT_FORMAT = "mafvar-audit"
AUDIT_VERSION = 1
AUDIT_FILE = "audit.json"
STAMP_FORMAT = "mafvar-audit-stamp"
FINAL_MARKERS = ("extract", "checks", "clips")  # all present = every frame extracted and the last steps ran
PER_CHOICES = ("game",)
LOCAL_ROUNDS = 3  # a local worker that dies breaks the whole pool: re-run the unfinished games this often
SKIP_DIRS = (ANALYSIS_DIR, "__pycache__", "node_modules")
_ADDRESS = re.compile(r"^((tcp|tls|ws|wss)://)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}$")


# vision.schedule keeps its MediaPipe graphs in per-process state when it extracts
# in-process (workers=1), so two analyses must not share a process at once: a
# Dask worker started with several threads runs its games one after another.
_ONE_ANALYSIS_PER_PROCESS = threading.Lock()


class AuditError(Exception):
    """The audit cannot start (bad folder, unreachable cluster...); the message says why."""


class GameStatus(str, Enum):
    DONE = "done"  # analysed in this audit
    SKIPPED = "skipped"  # already analysed, inputs unchanged
    FAILED = "failed"


@dataclass(frozen=True)
class GameResult:
    """The summary of one game, computed where the game was analysed."""
    game: str  # absolute path of the game's folder
    status: GameStatus
    wall_s: float
    incidents: int | None = None
    open_appeals: int | None = None
    message: str = ""  # why it failed (one line, never a traceback)
    warnings: tuple[str, ...] = ()
    worker: str = ""  # host:pid of the process that ran it

    def to_json(self, folder: Path | None = None) -> dict[str, Any]:
        name = self.game
        if folder is not None:
            try:
                name = Path(self.game).relative_to(folder).as_posix() or "."
            except ValueError:
                pass
        return {"game": name, "path": self.game, "status": self.status.value,
                "incidents": self.incidents, "open_appeals": self.open_appeals,
                "wall_s": round(self.wall_s, 2), "message": self.message,
                "warnings": list(self.warnings), "worker": self.worker}


@dataclass
class AuditReport:
    folder: Path
    backend: str  # "local" or "dask"
    cluster: str | None
    workers: int
    started_at: str
    wall_s: float = 0.0
    games: list[GameResult] = field(default_factory=list)
    written: Path | None = None  # where audit.json went

    @property
    def failed(self) -> list[GameResult]:
        return [g for g in self.games if g.status is GameStatus.FAILED]

    @property
    def ok(self) -> bool:
        return not self.failed

    def totals(self) -> dict[str, int]:
        count = {s.value: sum(1 for g in self.games if g.status is s) for s in GameStatus}
        return {"games": len(self.games), **count,
                "incidents": sum(g.incidents or 0 for g in self.games),
                "open_appeals": sum(g.open_appeals or 0 for g in self.games)}

    def to_json(self) -> dict[str, Any]:
        return {"format": AUDIT_FORMAT, "version": AUDIT_VERSION, "folder": str(self.folder),
                "backend": self.backend, "cluster": self.cluster, "workers": self.workers,
                "started_at": self.started_at, "wall_s": round(self.wall_s, 2),
                "totals": self.totals(), "games": [g.to_json(self.folder) for g in self.games]}


Progress = Callable[[GameResult, int, int], None]  # (a finished game, games finished, games in all)


# -- finding games ------------------------------------------------------------------------

def find_games(folder: str | os.PathLike[str]) -> list[Path]:
    """The game workspaces in `folder`: itself if it holds a protocol.json, else every
    sub-folder (at any depth, not inside a game) that does, sorted by path."""
    root = Path(folder).expanduser()
    if not root.exists():
        raise AuditError(f"folder not found: {root}")
    if not root.is_dir():
        raise AuditError(f"not a folder: {root} (give the folder that holds the games)")
    root = root.resolve()
    if is_game_dir(root):
        return [root]
    games: list[Path] = []
    for here, dirs, files in os.walk(root):
        if PROTOCOL_FILE in files and Path(here) != root:
            games.append(Path(here))
            dirs[:] = []  # a game's own sub-folders (analysis/, clips) hold no games
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
    return sorted(games)


# -- the re-run stamp ---------------------------------------------------------------------

def input_fingerprint(game_dir: str | os.PathLike[str]) -> str | None:
    """What a finished analysis depended on: the inputs' sizes and times, and the final
    markers (a later `mafvar analyze --phase` rewrites them, so the stamp goes stale)."""
    ws = GameWorkspace(game_dir)
    h = hashlib.sha1()
    for path in (ws.protocol_path, ws.calibration_path, *ws.expected_videos()):
        try:
            st = path.stat()
        except OSError:
            return None
        h.update(f"{path.name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    for step in FINAL_MARKERS:
        info = ws.marker_info(step)
        if info is None:
            return None
        h.update(f"{step}:{info.get('finished_at')}\n".encode())
    return h.hexdigest()[:20]


def is_finished(game_dir: str | os.PathLike[str]) -> bool:
    """True if an audit analysed this game completely and nothing it read has changed since."""
    try:
        ws = GameWorkspace(game_dir)
        stamp = json.loads(ws.audit_stamp_path.read_text(encoding="utf-8"))
        current = input_fingerprint(game_dir)
    except (OSError, ValueError, WorkspaceError):
        return False
    return (isinstance(stamp, dict) and stamp.get("format") == STAMP_FORMAT
            and current is not None and stamp.get("fingerprint") == current
            and ws.incidents_path.is_file())


def write_stamp(game_dir: Path, incidents: int | None) -> None:
    fp = input_fingerprint(game_dir)
    if fp is None:  # the analysis did not finish every step: nothing to vouch for
        return
    ws = GameWorkspace(game_dir)
    write_json_atomic(ws.audit_stamp_path,
                      {"format": STAMP_FORMAT, "version": 1, "fingerprint": fp, "incidents": incidents,
                       "audited_at": datetime.now(timezone.utc).isoformat()})


# -- one game (runs in a pool process or on a Dask worker) --------------------------------

def analyze_one(game: str, force: bool = False) -> GameResult:
    """Analyse one game in place (or skip it if finished) and summarise it.

    A game the engine refuses (review.pipeline.AnalysisError) is a FAILED result;
    anything else unexpected is raised so that Dask can retry the task elsewhere,
    and the driver reports its message.
    """
    from .pipeline import AnalysisError, analyze

    t0 = time.perf_counter()
    path = Path(game)
    if not force and is_finished(path):
        return _summary(path, GameStatus.SKIPPED, time.perf_counter() - t0)
    try:
        with _ONE_ANALYSIS_PER_PROCESS:
            stats = analyze(path, progress=None, workers=1, force=force)
    except AnalysisError as exc:
        return GameResult(str(path), GameStatus.FAILED, time.perf_counter() - t0,
                          message=_one_line(str(exc)), worker=_me())
    result = _summary(path, GameStatus.DONE, time.perf_counter() - t0, tuple(stats.warnings))
    write_stamp(path, result.incidents)
    return result


def _summary(path: Path, status: GameStatus, wall_s: float, warnings: tuple[str, ...] = ()) -> GameResult:
    ws = GameWorkspace(path)
    notes = list(warnings)
    incidents = None
    try:
        from .incidents import load_incidents
        incidents = len(load_incidents(ws.incidents_path).incidents)
    except FileNotFoundError:
        pass
    except ValueError as exc:
        notes.append(str(exc))
    appeals, note = open_appeals(ws)
    if note:
        notes.append(note)
    return GameResult(str(path), status, wall_s, incidents, appeals, warnings=tuple(notes), worker=_me())


def open_appeals(ws: GameWorkspace) -> tuple[int | None, str | None]:
    """Appeals without a ruling in review.db; (None, None) when there is no review.db.
    Never creates the database (a game nobody reviewed yet has none)."""
    if not ws.review_db_path.is_file():
        return None, None
    from .store import OPEN, ReviewStore, ReviewStoreError
    try:
        with ReviewStore.open(ws.review_db_path) as store:
            return sum(1 for a in store.appeals() if a.status == OPEN), None
    except (ReviewStoreError, OSError, ValueError) as exc:
        return None, f"appeals not counted: {_one_line(str(exc))}"


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "unknown error"


def _me() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def sees_folder(folder: str) -> bool:
    """Run on each Dask worker before the audit: does it share our filesystem?"""
    return os.path.isdir(folder)


# -- the audit ----------------------------------------------------------------------------

def audit(folder: str | os.PathLike[str], cluster: str | None = None, workers: int = 2,
          per: str = "game", progress: Progress | None = None, force: bool = False) -> AuditReport:
    """Analyse every game in `folder` and write FOLDER/audit.json.

    `cluster`: a Dask scheduler address ("tcp://host:port"); None for a local pool of
    `workers` processes. `force`: re-analyse finished games too. Raises AuditError if
    the audit cannot start; a game that fails is reported in the result, never raised.
    """
    if per not in PER_CHOICES:
        raise AuditError(f"per={per!r}: only one task per game is supported "
                         "(the steps of one game write the same analysis/ folder)")
    if workers < 1:
        raise AuditError(f"workers must be at least 1 (got {workers})")
    games = find_games(folder)
    root = Path(folder).expanduser().resolve()
    if not games:
        raise AuditError(f"no game in {root}: a game is a folder with a protocol.json")
    if not os.access(root, os.W_OK):
        raise AuditError(f"cannot write {root / AUDIT_FILE}: the folder is read-only")
    report = AuditReport(root, "dask" if cluster else "local", cluster, workers,
                         datetime.now(timezone.utc).isoformat(timespec="seconds"))
    t0 = time.perf_counter()
    results: dict[str, GameResult] = {}
    todo: list[str] = []
    for game in games:  # finished games are summarised here, without a task
        t_game = time.perf_counter()
        if not force and is_finished(game):
            results[str(game)] = _summary(game, GameStatus.SKIPPED, time.perf_counter() - t_game)
            _tell(progress, results[str(game)], len(results), len(games))
        else:
            todo.append(str(game))

    def collect(res: GameResult) -> None:
        results[res.game] = res
        _tell(progress, res, len(results), len(games))

    if todo:
        if cluster:
            _run_dask(todo, cluster, root, force, collect)
        else:
            _run_local(todo, workers, force, collect)
    report.games = [results[str(g)] for g in games]
    report.wall_s = time.perf_counter() - t0
    report.written = write_json_atomic(root / AUDIT_FILE, report.to_json())
    return report


def _tell(progress: Progress | None, res: GameResult, done: int, total: int) -> None:
    if progress is not None:
        progress(res, done, total)


def _failed(game: str, exc: BaseException, wall_s: float) -> GameResult:
    return GameResult(game, GameStatus.FAILED, wall_s, message=_one_line(f"{type(exc).__name__}: {exc}"))


def _run_local(todo: Sequence[str], workers: int, force: bool, collect: Callable[[GameResult], None]) -> None:
    """A pool of spawned processes (MediaPipe and fork do not mix); if one dies, the pool
    breaks: its unfinished games go to a fresh pool, up to LOCAL_ROUNDS times."""
    pending = list(todo)
    for round_ in range(LOCAL_ROUNDS):
        broken: list[str] = []
        started = time.perf_counter()
        with ProcessPoolExecutor(max_workers=min(workers, len(pending)), mp_context=get_context("spawn")) as pool:
            futures = {pool.submit(analyze_one, game, force): game for game in pending}
            for fut in as_completed(futures):
                game = futures[fut]
                try:
                    collect(fut.result())
                except BrokenProcessPool as exc:
                    if round_ + 1 < LOCAL_ROUNDS:
                        broken.append(game)
                    else:
                        collect(_failed(game, exc, time.perf_counter() - started))
                except Exception as exc:
                    collect(_failed(game, exc, time.perf_counter() - started))
        if not broken:
            return
        pending = broken


def _run_dask(todo: Sequence[str], address: str, root: Path, force: bool,
              collect: Callable[[GameResult], None]) -> None:
    try:
        from dask.distributed import Client, as_completed as dask_completed
    except ImportError as exc:
        raise AuditError(f"--cluster needs dask.distributed, which is not installed ({exc})") from None
    if not _ADDRESS.match(address):
        # checked here: a Client built from a malformed address hangs on its way out
        raise AuditError(f"cluster address {address!r}: expected a scheduler address like tcp://HOST:PORT")
    try:
        client = Client(address, timeout="15s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise AuditError(f"cannot reach the Dask scheduler at {address}: {_one_line(str(exc))}") from None
    with client:
        _check_workers(client, address, root)
        started = time.perf_counter()
        futures = {client.submit(analyze_one, game, force, pure=False, retries=2,
                                 key=f"mafvar-audit-{Path(game).name}-{os.urandom(4).hex()}"): game
                   for game in todo}
        for fut in dask_completed(list(futures), loop=client.loop):
            game = futures[fut]
            try:
                collect(fut.result())
            except Exception as exc:  # KilledWorker after too many deaths, or an unexpected error
                collect(_failed(game, exc, time.perf_counter() - started))


def _check_workers(client, address: str, root: Path) -> None:
    """Fail before submitting if there is no worker, or one cannot see the folder or import mafvar."""
    try:
        client.wait_for_workers(1, timeout=30)
    except (TimeoutError, OSError):
        raise AuditError(f"the Dask scheduler at {address} has no worker (start one with "
                         f"`dask worker {address} --nthreads 1`)") from None
    try:
        seen = client.run(sees_folder, str(root))
    except Exception as exc:  # the worker could not unpickle review.audit
        raise AuditError(f"a Dask worker of {address} cannot run the audit ({_one_line(str(exc))}): "
                         "install the same mafvar on every worker") from None
    blind = sorted(w for w, ok in seen.items() if not ok)
    if blind:
        raise AuditError(f"Dask worker(s) {', '.join(blind)} cannot see {root}: the workers must share "
                         "the filesystem with this machine, at the same path")


def format_table(report: AuditReport) -> str:
    """The per-game table and totals `mafvar audit` prints."""
    rows = [("GAME", "STATUS", "INCIDENTS", "OPEN APPEALS", "WALL S", "")]
    for g in report.games:
        doc = g.to_json(report.folder)
        rows.append((doc["game"], doc["status"], _cell(g.incidents), _cell(g.open_appeals),
                     f"{g.wall_s:.1f}", g.message))
    t = report.totals()
    rows.append(("TOTAL", f"{t['done']} done, {t['skipped']} skipped, {t['failed']} failed",
                 str(t["incidents"]), str(t["open_appeals"]), f"{report.wall_s:.1f}", ""))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = []
    for r in rows:
        cells = [r[0].ljust(widths[0]), r[1].ljust(widths[1]), r[2].rjust(widths[2]),
                 r[3].rjust(widths[3]), r[4].rjust(widths[4])]
        lines.append(("  ".join(cells) + ("  " + r[5] if r[5] else "")).rstrip())
    return "\n".join(lines)


def _cell(value: int | None) -> str:
    return "-" if value is None else str(value)
