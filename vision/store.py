"""Observations in SQLite (`analysis/observations.sqlite`, WAL mode).

Queryable by camera, seat and time. Tables:

* `frames(cam, t, width, height)`: every analysed frame.
* `landmarks(cam, seat, t, model, data, score)`: one row per seat, frame and
  model; `data` is JSON in frame pixels (see `SeatLandmarks.to_json`).
* `chunks(cam, t0, t1, fps, seats, models, label, done_at)`: schedule pieces already
  extracted, so an interrupted run resumes where it stopped.
* `states(cam, seat, state, t0, t1, confidence, value)`: per-frame (t0 = t1)
  or short per-seat states written by the classifiers; `value` keeps its
  type (a form name, a finger count, a neighbour seat).
* `tracks(cam, seat, state, t0, t1, confidence, value)`: smoothed intervals.
* `timings(cam, model, calls, cpu_seconds)`: cost per model, for benchmarks.
"""
from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from vision.landmarks import Model, SeatLandmarks

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS frames (
    cam TEXT NOT NULL, t REAL NOT NULL, width INTEGER, height INTEGER,
    PRIMARY KEY (cam, t));
CREATE TABLE IF NOT EXISTS landmarks (
    cam TEXT NOT NULL, seat INTEGER NOT NULL, t REAL NOT NULL, model TEXT NOT NULL,
    data TEXT NOT NULL, score REAL,
    PRIMARY KEY (cam, seat, t, model));
CREATE INDEX IF NOT EXISTS landmarks_seat_t ON landmarks (seat, t);
CREATE TABLE IF NOT EXISTS chunks (
    cam TEXT NOT NULL, t0 REAL NOT NULL, t1 REAL NOT NULL, fps REAL NOT NULL,
    seats TEXT NOT NULL, models TEXT NOT NULL, label TEXT, done_at REAL,
    PRIMARY KEY (cam, t0, t1, fps, seats, models));
CREATE TABLE IF NOT EXISTS states (
    cam TEXT NOT NULL DEFAULT 'cam1', seat INTEGER NOT NULL, state TEXT NOT NULL,
    t0 REAL NOT NULL, t1 REAL NOT NULL, confidence REAL, value);
CREATE INDEX IF NOT EXISTS states_seat_t ON states (seat, state, t0);
CREATE TABLE IF NOT EXISTS tracks (
    cam TEXT NOT NULL DEFAULT 'cam1', seat INTEGER NOT NULL, state TEXT NOT NULL,
    t0 REAL NOT NULL, t1 REAL NOT NULL, confidence REAL, value);
CREATE INDEX IF NOT EXISTS tracks_seat_t ON tracks (seat, state, t0);
CREATE TABLE IF NOT EXISTS timings (
    cam TEXT NOT NULL, model TEXT NOT NULL, calls INTEGER NOT NULL,
    cpu_seconds REAL NOT NULL, PRIMARY KEY (cam, model));
"""

# Times are stored rounded to the microsecond so that a frame time computed
# twice (t0 + k / fps) is the same key.
FEATURES_ROW = "features"     # the row of a frame analysed without models


def _t(t: float) -> float:
    return round(float(t), 6)


@dataclass(frozen=True)
class StoredInterval:
    cam: str
    seat: int
    state: str
    t0: float
    t1: float
    confidence: float | None
    value: str | int | float | None     # stored as given (untyped column)


class ObservationStore:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(self.path), timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            self.db.commit()
        elif int(row[0]) != SCHEMA_VERSION:
            raise ValueError(f"{self.path}: observation store version {row[0]}, "
                             f"this mafvar reads {SCHEMA_VERSION}; delete analysis/ to rebuild it")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "ObservationStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- writing ---------------------------------------------------------

    def add_frame_results(self, cam: str, t: float, size: tuple[int, int],
                          seats: Iterable[SeatLandmarks], commit: bool = True) -> None:
        self.db.execute("INSERT OR REPLACE INTO frames VALUES (?, ?, ?, ?)",
                        (cam, _t(t), size[0], size[1]))
        rows = []
        for s in seats:
            d = s.to_json()
            common = {"crop_box": d["crop_box"]}
            if d.get("features"):
                common["features"] = d["features"]   # pixel features ride with every model row
            per_model = {
                Model.POSE.value: ({"pose": d["pose"], **common},
                                   None if s.pose is None else float(s.pose[:, 3].mean())),
                Model.FACE.value: ({"faces": d["faces"], **common},
                                   max((f.score for f in s.faces), default=None)),
                Model.MESH.value: ({"mesh": d["mesh"], "eyes": d["eyes"], **common},
                                   1.0 if s.mesh else 0.0),
                Model.HANDS.value: ({"hands": d["hands"], **common},
                                    max((h.score for h in s.hands), default=None)),
            }
            # a frame no model ran on (a coarse pass) keeps its window features
            per_model[FEATURES_ROW] = (common, None)
            for model in s.cpu or (FEATURES_ROW,):
                data, score = per_model[model]
                rows.append((cam, s.seat, _t(s.t), model, json.dumps(data), score))
        self.db.executemany("INSERT OR REPLACE INTO landmarks VALUES (?, ?, ?, ?, ?, ?)", rows)
        if commit:
            self.db.commit()

    def mark_chunk_done(self, cam: str, t0: float, t1: float, fps: float,
                        seats: str, label: str | None, models: str = "all") -> None:
        self.db.execute("INSERT OR REPLACE INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (cam, _t(t0), _t(t1), float(fps), seats, models, label, time.time()))
        self.db.commit()

    def is_chunk_done(self, cam: str, t0: float, t1: float, fps: float, seats: str,
                      models: str = "all") -> bool:
        return self.db.execute(
            "SELECT 1 FROM chunks WHERE cam=? AND t0=? AND t1=? AND fps=? AND seats=? "
            "AND models=? AND done_at IS NOT NULL",
            (cam, _t(t0), _t(t1), float(fps), seats, models)).fetchone() is not None

    def add_timings(self, cam: str, cpu: dict[str, float], calls: dict[str, int]) -> None:
        for model, secs in cpu.items():
            self.db.execute(
                "INSERT INTO timings VALUES (?, ?, ?, ?) ON CONFLICT (cam, model) DO UPDATE "
                "SET calls = calls + excluded.calls, cpu_seconds = cpu_seconds + excluded.cpu_seconds",
                (cam, model, calls.get(model, 0), secs))
        self.db.commit()

    def add_intervals(self, table: str, rows: Iterable[StoredInterval]) -> None:
        if table not in ("states", "tracks"):
            raise ValueError("table is 'states' or 'tracks'")
        self.db.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?, ?, ?)",
                            [(r.cam, r.seat, r.state, _t(r.t0), _t(r.t1), r.confidence, r.value)
                             for r in rows])
        self.db.commit()

    # --- reading ---------------------------------------------------------

    def frame_times(self, cam: str = "cam1", t0: float | None = None,
                    t1: float | None = None) -> list[float]:
        q, args = "SELECT t FROM frames WHERE cam=?", [cam]
        q, args = _time_filter(q, args, t0, t1)
        return [r[0] for r in self.db.execute(q + " ORDER BY t", args)]

    def landmark_rows(self, seat: int | None = None, t0: float | None = None,
                      t1: float | None = None, model: str | None = None,
                      cam: str | None = None) -> Iterator[tuple[str, int, float, str, dict, float | None]]:
        """(cam, seat, t, model, data, score) rows, in time order; t in [t0, t1)."""
        q, args = "SELECT cam, seat, t, model, data, score FROM landmarks WHERE 1=1", []
        if cam is not None:
            q += " AND cam=?"
            args.append(cam)
        if seat is not None:
            q += " AND seat=?"
            args.append(int(seat))
        if model is not None:
            q += " AND model=?"
            args.append(str(model.value if isinstance(model, Model) else model))
        q, args = _time_filter(q, args, t0, t1)
        for c, s, t, m, data, score in self.db.execute(q + " ORDER BY t, seat, model", args):
            yield c, s, t, m, json.loads(data), score

    def window_features(self, t0: float | None = None, t1: float | None = None,
                        cam: str = "cam1") -> Iterator[tuple[int, float, dict[str, float]]]:
        """(seat, t, features) once per analysed seat-frame, in time order,
        without parsing the landmarks (the features ride with every model row)."""
        q = ("SELECT seat, t, json_extract(data, '$.features') FROM landmarks WHERE cam=?")
        q, args = _time_filter(q, [cam], t0, t1)
        for s, t, f in self.db.execute(q + " GROUP BY seat, t ORDER BY t, seat", args):
            yield s, t, json.loads(f) if f else {}

    def seat_landmarks(self, seat: int, t0: float | None = None, t1: float | None = None,
                       cam: str = "cam1") -> list[SeatLandmarks]:
        """Whole `SeatLandmarks` per analysed frame of one seat."""
        merged: dict[float, dict] = {}
        for _, s, t, _, data, _ in self.landmark_rows(seat, t0, t1, cam=cam):
            merged.setdefault(t, {"seat": s, "t": t}).update(data)
        return [SeatLandmarks.from_json(d) for _, d in sorted(merged.items())]

    def intervals(self, table: str, seat: int | None = None, state: str | None = None,
                  t0: float | None = None, t1: float | None = None,
                  cam: str | None = None) -> list[StoredInterval]:
        """Rows overlapping [t0, t1)."""
        if table not in ("states", "tracks"):
            raise ValueError("table is 'states' or 'tracks'")
        q, args = f"SELECT cam, seat, state, t0, t1, confidence, value FROM {table} WHERE 1=1", []
        for col, val in (("cam", cam), ("seat", seat), ("state", state)):
            if val is not None:
                q += f" AND {col}=?"
                args.append(val)
        if t1 is not None:
            q += " AND t0 < ?"
            args.append(t1)
        if t0 is not None:
            q += " AND t1 >= ?"
            args.append(t0)
        return [StoredInterval(*r) for r in self.db.execute(q + " ORDER BY t0, seat", args)]

    def done_chunks(self, cam: str = "cam1") -> list[tuple[float, float, float, str, str, str | None]]:
        """(t0, t1, fps, seats, models, label) of each finished chunk."""
        return list(self.db.execute(
            "SELECT t0, t1, fps, seats, models, label FROM chunks WHERE cam=? "
            "AND done_at IS NOT NULL ORDER BY t0", (cam,)))

    def timings(self, cam: str | None = None) -> dict[str, tuple[int, float]]:
        q, args = "SELECT model, SUM(calls), SUM(cpu_seconds) FROM timings", []
        if cam:
            q += " WHERE cam=?"
            args.append(cam)
        return {m: (int(n), float(s)) for m, n, s in self.db.execute(q + " GROUP BY model", args)}


def _time_filter(q: str, args: list, t0: float | None, t1: float | None) -> tuple[str, list]:
    if t0 is not None:
        q += " AND t >= ?"
        args.append(_t(t0))
    if t1 is not None:
        q += " AND t < ?"
        args.append(_t(t1))
    return q, args
