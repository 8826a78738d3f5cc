"""A damaged or edited review.db is detected, named by its first bad row, and restorable.

The edits are made as an attacker or a clumsy user would: a plain SQLite
connection (or the sqlite3 shell) that first drops the append-only triggers,
or removes them through `PRAGMA writable_schema`; bytes flipped in the file;
a process killed mid-write. Each case checks the message a person reads.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import multiprocessing
import shutil
import sqlite3
import subprocess
import time

import pytest

from mafvar.cli import main
from review import store_integrity as integrity
from review.store import ReviewStore, ReviewStoreError, StoreIntegrityError
from review.store_schema import MIGRATIONS, SCHEMA_VERSION
from review_store_support import write_incidents


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def game(tmp_path):
    g = tmp_path / "game"
    g.mkdir()
    write_incidents(g)
    with ReviewStore.open(g / "review.db") as s:
        s.decide("peek-1", "Anna", "chief_judge", "confirmed", "clear on frame 3")
        s.decide("peek-2", "Boris", "side_judge", "unsure")
        s.verify_vote(1, 1, 5, 3, "voted", "Boris", "side_judge")
        a = s.file_appeal(4, "miscount", reviewer="Anna", role="chief_judge",
                          incident_ids=["peek-1"])
        s.rule_appeal(a.id, "Anna", "chief_judge", "rejected", "not gross")
    with ReviewStore.open(g / "review.db"):
        pass  # a safe point: the backup now holds all of the above
    return g


def decision_id(game, incident="peek-1") -> int:
    conn = sqlite3.connect(game / "review.db")
    try:
        return conn.execute("SELECT id FROM decisions WHERE incident_id = ?",
                            (incident,)).fetchone()[0]
    finally:
        conn.close()


def test_an_intact_store_verifies(game):
    code, out, _ = run("store", "verify", str(game))
    assert code == 0, out
    assert "intact" in out and "hash chain intact" in out and "head of the chain" in out
    code, out, _ = run("store", "verify", str(game), "--json")
    doc = json.loads(out)
    assert (doc["format"], doc["version"], doc["ok"], doc["first_bad"]) == (
        "mafvar-store-verify", 1, True, None)
    assert doc["schema_version"] == SCHEMA_VERSION and len(doc["chain"]["head"]) == 64
    assert doc["backup"]["ok"] and doc["backup"]["audit_rows"] == doc["audit_rows"]


def _edit_decision_dropping_triggers(game, row_id):
    """What anyone with a plain SQLite connection can do: drop the guard, edit the row."""
    conn = sqlite3.connect(game / "review.db", isolation_level=None)
    conn.execute("DROP TRIGGER decisions_no_update")
    conn.execute("UPDATE decisions SET verdict = 'rejected' WHERE id = ?", (row_id,))
    conn.close()


def _edit_decision_with_the_shell(game, row_id):
    """The same edit through the sqlite3 command-line shell."""
    script = (f"DROP TRIGGER decisions_no_update;\n"
              f"UPDATE decisions SET verdict = 'rejected' WHERE id = {row_id};\n")
    subprocess.run([shutil.which("sqlite3"), str(game / "review.db")], input=script, text=True,
                   check=True, capture_output=True)


def _edit_decision_via_writable_schema(game, row_id):
    """The trigger removed from sqlite_master itself, then re-created as it was."""
    conn = sqlite3.connect(game / "review.db", isolation_level=None)
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'decisions_no_update'"
                       ).fetchone()[0]
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("DELETE FROM sqlite_master WHERE name = 'decisions_no_update'")
    conn.execute("PRAGMA writable_schema = OFF")
    conn.close()
    conn = sqlite3.connect(game / "review.db", isolation_level=None)
    conn.execute("UPDATE decisions SET verdict = 'rejected' WHERE id = ?", (row_id,))
    conn.execute(sql)  # the schema now looks untouched
    conn.close()


EDITS = {"python": _edit_decision_dropping_triggers, "writable_schema": _edit_decision_via_writable_schema,
         "shell": _edit_decision_with_the_shell}


@pytest.mark.parametrize("how", list(EDITS))
def test_an_edited_decision_is_reported_with_its_row(game, how):
    if how == "shell" and shutil.which("sqlite3") is None:
        pytest.skip("the sqlite3 shell is not installed (the python edit covers the same case)")
    row = decision_id(game)
    EDITS[how](game, row)
    code, out, _ = run("store", "verify", str(game))
    assert code == 2
    assert f"decisions row {row}: changed after audit-log row" in out
    assert "it now says 'rejected' on 'peek-1'" in out
    assert "mafvar store restore" in out
    doc = json.loads(run("store", "verify", str(game), "--json")[1])
    assert doc["ok"] is False and doc["first_bad"]["table"] == "decisions"
    assert doc["first_bad"]["row"] == row
    # the store refuses to be written (and says how to restore)
    before = (game / "review.db").read_bytes()
    with pytest.raises(StoreIntegrityError, match=f"decisions row {row}") as info:
        ReviewStore.open(game / "review.db")
    assert "Nothing will be written to it" in str(info.value)
    assert "review.db.backup" in str(info.value)
    assert (game / "review.db").read_bytes() == before


def test_an_edited_audit_row_breaks_the_chain_there(game):
    conn = sqlite3.connect(game / "review.db", isolation_level=None)
    conn.execute("DROP TRIGGER audit_log_no_update")
    conn.execute("UPDATE audit_log SET actor = 'Mallory' WHERE id = 3")
    conn.close()
    report = integrity.verify_file(game / "review.db")
    assert not report.ok
    assert report.first_bad.table == "audit_log" and report.first_bad.row == 3
    assert "audit_log row 3" in report.summary() and "does not match its hash" in report.summary()


def test_removed_last_rows_are_noticed(game):
    conn = sqlite3.connect(game / "review.db", isolation_level=None)
    for t in ("appeal_rulings", "audit_log"):
        conn.execute(f"DROP TRIGGER {t}_no_delete")
    conn.execute("DELETE FROM appeal_rulings")
    conn.execute("DELETE FROM audit_log WHERE id = (SELECT max(id) FROM audit_log)")
    conn.close()
    report = integrity.verify_file(game / "review.db")
    messages = " ".join(p.message for p in report.problems)
    assert "appeal_rulings: rows up to id 1 were written" in messages
    assert "gone from review.db" in messages  # the backup still has the removed audit row


def test_a_row_inserted_outside_mafvar_is_noticed(game):
    # the triggers allow a well-formed insert; nothing vouches for it
    conn = sqlite3.connect(game / "review.db", isolation_level=None)
    prev = conn.execute("SELECT max(id) FROM decisions WHERE incident_id = 'peek-2'").fetchone()[0]
    conn.execute("INSERT INTO decisions (incident_id, reviewer, role, verdict, note, created_at,"
                 " supersedes) VALUES ('peek-2', 'Boris', 'side_judge', 'confirmed', '', 'x', ?)",
                 (prev,))
    new = conn.execute("SELECT max(id) FROM decisions").fetchone()[0]
    conn.close()
    report = integrity.verify_file(game / "review.db")
    assert report.first_bad.message.startswith(f"decisions row {new}: no audit-log entry wrote it")


def test_history_rewritten_with_recomputed_hashes_differs_from_the_backup(game):
    """Someone who knows the algorithm rewrites a decision and every hash after it: the
    chain alone is consistent again, the backup taken earlier is not."""
    path = game / "review.db"
    row = decision_id(game)
    conn = sqlite3.connect(path, isolation_level=None)
    for t in ("decisions", "audit_log"):
        conn.execute(f"DROP TRIGGER {t}_no_update")
    conn.execute("UPDATE decisions SET verdict = 'rejected' WHERE id = ?", (row,))
    rows = conn.execute(f"SELECT {integrity.AUDIT_COLS} FROM audit_log ORDER BY id").fetchall()
    digest = integrity.row_digest("decisions", tuple(conn.execute(
        "SELECT rowid, * FROM decisions WHERE id = ?", (row,)).fetchone()))
    prev = integrity.GENESIS
    for r in rows:
        id_, at, actor, role, action, payload, auth, digests, _, _ = r
        if digests:
            items = json.loads(digests)
            for item in items:
                if item[:2] == ["decisions", row]:
                    item[2] = digest
            digests = json.dumps(items, separators=(",", ":"))
        h = integrity.audit_hash(prev, id_, at, actor, role, action, payload, auth, digests)
        conn.execute("UPDATE audit_log SET row_digests = ?, prev_hash = ?, hash = ? WHERE id = ?",
                     (digests, prev, h, id_))
        prev = h
    for t in ("decisions", "audit_log"):  # put the triggers back as they were
        conn.execute([x[3] for x in integrity.expected_schema() if x[1] == f"{t}_no_update"][0])
    conn.close()
    report = integrity.verify_file(path)
    assert [p.check for p in report.problems] == ["backup"]
    assert "differs from the backup (history rewritten" in report.summary()


def test_bytes_flipped_mid_file_are_refused_and_the_backup_restores(game):
    path = game / "review.db"
    with ReviewStore.open(path) as s:  # everything checkpointed into the main file
        s._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    decided = 2
    raw = bytearray(path.read_bytes())
    mid = len(raw) // 2
    for i in range(mid, mid + 200):
        raw[i] ^= 0xFF
    path.write_bytes(bytes(raw))
    damaged = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(ReviewStoreError, match="failed its integrity check") as info:
        ReviewStore.open(path)
    assert "mafvar store restore" in str(info.value)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == damaged  # not a byte written
    code, out, _ = run("store", "verify", str(game))
    assert code == 2 and "failed its integrity check" in out
    code, out, err = run("store", "restore", str(game))
    assert code == 0, err
    assert "restored" in out and "kept as review.db.damaged-" in out
    kept = [p for p in game.glob("review.db.damaged-*") if not p.name.endswith(("-wal", "-shm"))]
    assert len(kept) == 1 and hashlib.sha256(kept[0].read_bytes()).hexdigest() == damaged
    with ReviewStore.open(path) as s:
        assert len(s.current_decisions()) == decided
        s.decide("peek-3", "Anna", "chief_judge", "unsure", "after the restore")
    assert run("store", "verify", str(game))[0] == 0
    # nothing to restore in an intact store
    code, _, err = run("store", "restore", str(game))
    assert code == 2 and "nothing to restore" in err


def _endless_writer(path, started):
    store = ReviewStore.open(path)
    started.set()
    i = 0
    while True:
        store.decide(f"inc-{i % 7}", "Anna", "chief_judge", "confirmed", f"#{i}")
        i += 1


def test_a_killed_writer_leaves_an_intact_chain(tmp_path):
    write_incidents(tmp_path)
    path = tmp_path / "review.db"
    ctx = multiprocessing.get_context("spawn")
    started = ctx.Event()
    proc = ctx.Process(target=_endless_writer, args=(path, started))
    proc.start()
    assert started.wait(60)
    deadline = time.monotonic() + 60
    with ReviewStore.open(path, backup=False) as watcher:
        while len(watcher.all_decisions()) < 50 and time.monotonic() < deadline:
            time.sleep(0.02)
    proc.kill()  # SIGKILL mid-write
    proc.join(10)
    code, out, _ = run("store", "verify", str(tmp_path))
    assert code == 0, out
    assert "intact" in out and "hash chain intact" in out
    report = integrity.verify_file(path)
    assert report.audit_rows >= 50 and report.data_rows >= 50


def _v1_store(path):
    """A review.db as mafvar wrote it before the chain (schema 1), rows included."""
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in integrity.split_statements(MIGRATIONS[0]):
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("PRAGMA application_id = 1296455250")
    at = "2025-05-01T18:00:00.000000+00:00"
    conn.execute("INSERT INTO reviewers (name, role, created_at) VALUES ('Anna', 'chief_judge', ?)",
                 (at,))
    conn.execute("INSERT INTO audit_log (at, actor, role, action, payload) VALUES"
                 " (?, 'Anna', 'chief_judge', 'add_reviewer', ?)",
                 (at, json.dumps({"name": "Anna", "role": "chief_judge"})))
    conn.execute("INSERT INTO decisions (incident_id, reviewer, role, verdict, note, created_at)"
                 " VALUES ('peek-1', 'Anna', 'chief_judge', 'confirmed', 'old', ?)", (at,))
    conn.execute("INSERT INTO audit_log (at, actor, role, action, payload) VALUES"
                 " (?, 'Anna', 'chief_judge', 'decide', '{\"id\": 1}')", (at,))
    conn.close()


def test_an_older_store_is_migrated_never_lost_and_the_chain_says_where_it_starts(tmp_path):
    write_incidents(tmp_path)
    path = tmp_path / "review.db"
    _v1_store(path)
    report = integrity.verify_file(path)
    assert report.ok and report.schema_version == 1 and "before the hash chain" in report.warnings[0]
    with ReviewStore.open(path) as s:
        assert s.schema_version == SCHEMA_VERSION
        log = s.audit_log()
        assert [e.action for e in log] == ["add_reviewer", "decide", "chain_start"]
        assert log[2].payload["migrated_from_schema"] == 1
        assert log[2].payload["audit_rows_before"] == 2 and "chain starts here" in log[2].payload["note"]
        assert s.current_decision("peek-1").note == "old"
        s.decide("peek-1", "Anna", "chief_judge", "rejected", "new")
    # the file as it was is kept beside it
    old = sqlite3.connect(tmp_path / "review.db.schema1")
    assert old.execute("PRAGMA user_version").fetchone()[0] == 1
    assert old.execute("SELECT note FROM decisions").fetchall() == [("old",)]
    old.close()
    code, out, _ = run("store", "verify", str(tmp_path))
    assert code == 0 and "started when migrated from schema 1" in out
    # rows from before the migration are sealed too
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER decisions_no_update")
    conn.execute("UPDATE decisions SET note = 'rewritten' WHERE id = 1")
    conn.close()
    code, out, _ = run("store", "verify", str(tmp_path))
    assert code == 2 and "decisions row 1: changed after audit-log row 3" in out


def test_a_schema_2_store_opens_as_schema_3_with_every_row_and_its_chain(tmp_path, monkeypatch):
    # schema 3 (frame answers, mafvar learn) added a table: a store mafvar wrote at
    # schema 2 keeps its rows and its hash chain, and a copy of it as it was
    from review import store as store_module
    write_incidents(tmp_path)
    path = tmp_path / "review.db"
    with monkeypatch.context() as m:
        m.setattr(store_module, "SCHEMA_VERSION", 2)
        with ReviewStore.open(path) as s:
            assert s.schema_version == 2
            s.decide("peek-1", "Anna", "chief_judge", "confirmed", "at schema 2")
            s.verify_vote(1, 1, 5, 3, "voted", "Boris", "side_judge")
            head = s.audit_log()[-1]
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 2
    with ReviewStore.open(path) as s:
        assert s.schema_version == SCHEMA_VERSION == 3
        assert s.current_decision("peek-1").note == "at schema 2"
        assert [(v.voter_seat, v.verdict.value) for v in s.current_verifications()] == [(3, "voted")]
        assert head in s.audit_log()                          # the schema-2 audit rows, as they were
        s.answer_frame(12.5, 3, "mask", "mask_on", "Boris", "side_judge")
        assert [a.frame for a in s.current_frame_answers()] == [(12.5, 3, "mask")]
    assert (tmp_path / "review.db.schema2").exists()
    code, out, _ = run("store", "verify", str(tmp_path))
    assert code == 0 and "hash chain intact" in out


def test_the_app_refuses_a_store_that_fails(tmp_path):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))
    from app_testlib import app_on, fixtures

    game = fixtures.make_game(tmp_path, "game1")
    inc = json.loads((game / "analysis/incidents.json").read_text())["incidents"][0]["id"]
    with ReviewStore.open(game / "review.db") as s:
        s.decide(inc, "Anna", "chief_judge", "confirmed")
    row = decision_id(game, inc)
    _edit_decision_dropping_triggers(game, row)
    before = (game / "review.db").read_bytes()
    at = app_on("incident", game, name="Anna", role="chief_judge")
    at.session_state["incident_id"] = inc
    at.run()
    shown = " ".join(e.value for e in at.error)
    assert f"decisions row {row}: changed after audit-log row" in shown
    assert "Nothing will be written to it" in shown and "mafvar store restore" in shown
    assert (game / "review.db").read_bytes() == before
