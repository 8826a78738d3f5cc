import hashlib
import multiprocessing
import sqlite3
import time
from datetime import datetime, timedelta, timezone

import pytest

from review.store import (
    OPEN, ReviewStore, ReviewStoreError, ReviewerRole, Ruling, Verdict, VoteVerdict, appeal_is_late,
)
from review.store_schema import APPEND_ONLY_TABLES, SCHEMA_VERSION
from review_store_support import write_incidents

END = datetime(2026, 11, 1, 20, 0, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def incidents(tmp_path):
    """Every test's folder is a game whose analysis lists the incidents decided on."""
    write_incidents(tmp_path)


@pytest.fixture
def store(tmp_path):
    s = ReviewStore.open(tmp_path / "review.db")
    yield s
    s.close()


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_new_database_is_wal_versioned_and_marked(tmp_path):
    path = tmp_path / "review.db"
    with ReviewStore.open(path) as s:
        assert s.schema_version == SCHEMA_VERSION
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x4D465652
    conn.close()


def test_decisions_supersede_and_keep_history(store):
    first = store.decide("peek-1", "Boris", "side_judge", "unsure", "can't see the hand")
    second = store.decide("peek-1", "Anna", ReviewerRole.CHIEF_JUDGE, Verdict.CONFIRMED, "clear on frame 3")
    other = store.decide("peek-2", "Anna", "chief_judge", "rejected")
    third = store.decide("peek-1", "Anna", "chief_judge", "rejected", "second look: shadow")
    assert first.supersedes is None and other.supersedes is None
    assert second.supersedes == first.id and third.supersedes == second.id
    assert store.current_decision("peek-1") == third
    assert store.current_decision("peek-3") is None
    history = store.decision_history("peek-1")
    assert [d.verdict for d in history] == [Verdict.UNSURE, Verdict.CONFIRMED, Verdict.REJECTED]
    assert history[0].note == "can't see the hand" and history[0].role is ReviewerRole.SIDE_JUDGE
    assert store.current_decisions() == {"peek-1": third, "peek-2": other}


def test_bad_values_are_refused_before_writing(store):
    with pytest.raises(ValueError, match="unknown verdict"):
        store.decide("peek-1", "Anna", "chief_judge", "maybe")
    with pytest.raises(ValueError, match="unknown role"):
        store.decide("peek-1", "Anna", "referee", "confirmed")
    with pytest.raises(ValueError, match="name"):
        store.decide("peek-1", "  ", "chief_judge", "confirmed")
    with pytest.raises(ValueError, match="voter seat"):
        store.verify_vote(1, 1, 5, 11, "voted", "Boris", "side_judge")
    assert store.audit_log() == [] and store.all_decisions() == []


def test_triggers_refuse_update_and_delete_on_every_table(tmp_path):
    path = tmp_path / "review.db"
    with ReviewStore.open(path) as s:
        s.decide("peek-1", "Anna", "chief_judge", "confirmed")
        s.verify_vote(1, 1, 5, 3, "voted", "Boris", "side_judge")
        a = s.file_appeal(4, "miscount", reviewer="Anna", role="chief_judge",
                          incident_ids=["peek-1"])
        s.rule_appeal(a.id, "Anna", "chief_judge", "rejected", "not gross")
        s.answer_frame(12.5, 4, "mask", "mask_on", "Boris", "side_judge")
    # A raw connection, as any other tool would use: the database itself refuses.
    conn = sqlite3.connect(path, isolation_level=None)  # recursive_triggers off: the default
    for table in APPEND_ONLY_TABLES:
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] >= 1, table
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(f"UPDATE {table} SET rowid = rowid")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(f"DELETE FROM {table}")
    # A decision that does not supersede the current one breaks the chain: refused.
    with pytest.raises(sqlite3.IntegrityError, match="supersede"):
        conn.execute("INSERT INTO decisions (incident_id, reviewer, role, verdict, note,"
                     " created_at, supersedes) VALUES ('peek-1', 'Anna', 'chief_judge',"
                     " 'rejected', '', 'x', NULL)")
    # REPLACE would silently delete the old row: refused too, on every table's keys.
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("INSERT OR REPLACE INTO decisions (id, incident_id, reviewer, role, verdict,"
                     " note, created_at, supersedes) VALUES (1, 'peek-1', 'Anna', 'chief_judge',"
                     " 'rejected', '', 'x', 1)")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("INSERT OR REPLACE INTO reviewers (name, role, created_at)"
                     " VALUES ('Anna', 'chief_judge', 'x')")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("INSERT OR REPLACE INTO audit_log (id, at, actor, action, payload)"
                     " VALUES (1, 'x', 'mallory', 'forged', '{}')")
    assert conn.execute("SELECT actor FROM audit_log WHERE id = 1").fetchone()[0] == "Anna"
    assert conn.execute("SELECT verdict FROM decisions WHERE id = 1").fetchone()[0] == "confirmed"
    conn.close()


def test_every_write_is_in_the_audit_log(store):
    d = store.decide("peek-1", "Anna", "chief_judge", "confirmed", "note <b>")
    v = store.verify_vote(2, 1, None, 7, VoteVerdict.NOT_VOTED, "Boris", "side_judge")
    a = store.file_appeal(4, "not counted", reviewer="Anna", role="chief_judge")
    store.attach_incidents(a.id, ["peek-1"], reviewer="Anna", role="chief_judge")
    store.attach_incidents(a.id, ["peek-1"], reviewer="Anna", role="chief_judge")  # no-op
    r = store.rule_appeal(a.id, "Anna", "chief_judge", "upheld", "video is clear")
    store.add_reviewer("Anna", "chief_judge")  # already registered: no-op
    log = store.audit_log()
    assert [e.action for e in log] == ["add_reviewer", "decide", "add_reviewer", "verify_vote",
                                       "file_appeal", "attach_incidents", "rule_appeal"]
    assert log[1].payload["id"] == d.id and log[1].payload["note"] == "note <b>"
    assert log[1].actor == "Anna" and log[1].role == "chief_judge"
    assert log[3].payload["id"] == v.id and log[3].payload["candidate"] is None
    assert log[4].payload["appeal_id"] == a.id
    assert log[6].payload["id"] == r.id
    assert [x.name for x in store.reviewers()] == ["Anna", "Boris"]


def test_failed_write_leaves_no_audit_row(store):
    with pytest.raises(LookupError):
        store.rule_appeal(99, "Anna", "chief_judge", "upheld", "x")
    assert store.audit_log() == [] and store.reviewers() == []


def test_only_the_chief_judge_may_rule(store):
    a = store.file_appeal(4, "miscount on day 2", reviewer="Boris", role="side_judge")
    for role in ("side_judge", "organiser"):
        with pytest.raises(PermissionError, match="only the chief judge"):
            store.rule_appeal(a.id, "Boris", role, "upheld", "looks right")
    assert store.appeal(a.id).status == OPEN
    with pytest.raises(ValueError, match="reasons"):
        store.rule_appeal(a.id, "Anna", "chief_judge", "upheld", " ")
    first = store.rule_appeal(a.id, "Anna", "chief_judge", Ruling.REPLAY, "gross error")
    second = store.rule_appeal(a.id, "Anna", "chief_judge", "result_changed", "decides the game")
    appeal = store.appeal(a.id)
    assert appeal.status == "result_changed" and appeal.ruling == second
    assert second.supersedes == first.id and [r.ruling for r in appeal.rulings] == [
        Ruling.REPLAY, Ruling.RESULT_CHANGED]
    assert len(store.audit_log("rule_appeal")) == 2


def test_late_flag_follows_the_deadline(store):
    on_time = store.file_appeal(3, "g", reviewer="Anna", role="chief_judge",
                                filed_at=END + timedelta(minutes=14, seconds=59), game_end_at=END)
    at_limit = store.file_appeal(3, "g", reviewer="Anna", role="chief_judge",
                                 filed_at=END + timedelta(minutes=15), game_end_at=END)
    late = store.file_appeal(3, "g", reviewer="Anna", role="chief_judge",
                             filed_at=END + timedelta(minutes=15, seconds=1), game_end_at=END)
    unknown = store.file_appeal(3, "g", reviewer="Anna", role="chief_judge")
    custom = store.file_appeal(3, "g", reviewer="Anna", role="chief_judge",
                               filed_at=END + timedelta(minutes=11), game_end_at=END,
                               deadline_minutes=10)
    assert (on_time.late, at_limit.late, late.late, unknown.late, custom.late) == (
        False, False, True, None, True)
    assert late.minutes_after_end == pytest.approx(15 + 1 / 60)
    assert store.appeal(late.id).late is True  # as stored, not only as returned
    # Another time zone, same instant: the same answer.
    tz = timezone(timedelta(hours=3))
    assert appeal_is_late((END + timedelta(minutes=16)).astimezone(tz), END) is True


def test_store_survives_reopen(tmp_path):
    path = tmp_path / "review.db"
    with ReviewStore.open(path) as s:
        d = s.decide("peek-1", "Anna", "chief_judge", "confirmed", "kept")
        v = s.verify_vote(1, 2, 8, 4, "late", "Boris", "side_judge", "lands after thanks")
        a = s.file_appeal(5, "grounds", reviewer="Anna", role="chief_judge", game_end_at=END,
                          filed_at=END + timedelta(minutes=3), incident_ids=["peek-1"])
        n_log = len(s.audit_log())
    with ReviewStore.open(path, appeal_deadline_minutes=5) as s:
        assert s.current_decision("peek-1") == d
        assert s.current_verifications() == [v]
        assert s.appeal(a.id) == a
        assert len(s.audit_log()) == n_log
        s.decide("peek-1", "Anna", "chief_judge", "rejected")
        assert s.decision_history("peek-1")[-1].supersedes == d.id


def test_vote_verification_chain_per_cell(store):
    a = store.verify_vote(1, 1, 5, 3, "voted", "Boris", "side_judge")
    b = store.verify_vote(1, 1, 5, 4, "wrong_form", "Boris", "side_judge")
    c = store.verify_vote(1, 1, 5, 3, "late", "Anna", "chief_judge", "frame 12 shows it late")
    raise1 = store.verify_vote(1, 3, None, 3, "voted", "Boris", "side_judge")
    raise2 = store.verify_vote(1, 3, None, 3, "not_voted", "Boris", "side_judge")
    assert c.supersedes == a.id and b.supersedes is None
    assert raise2.supersedes == raise1.id
    assert store.current_verifications() == [b, c, raise2] or \
        sorted(store.current_verifications(), key=lambda x: x.id) == [b, c, raise2]
    assert [x.verdict for x in store.verification_history(1, 1, 5, 3)] == [
        VoteVerdict.VOTED, VoteVerdict.LATE]


def test_foreign_and_corrupt_files_are_refused_untouched(tmp_path):
    text = tmp_path / "text" / "review.db"
    text.parent.mkdir()
    text.write_text("these are my notes, not a database\n" * 20)

    foreign = tmp_path / "foreign" / "review.db"
    foreign.parent.mkdir()
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE songs (title TEXT)")
    conn.execute("INSERT INTO songs VALUES ('night music')")
    conn.commit()
    conn.close()

    corrupt = tmp_path / "corrupt" / "review.db"
    write_incidents(corrupt.parent)
    with ReviewStore.open(corrupt) as s:
        s.decide("peek-1", "Anna", "chief_judge", "confirmed")
    raw = bytearray(corrupt.read_bytes())
    for p in corrupt.parent.glob("review.db-*"):
        p.unlink()
    raw[100:4096] = b"\xff" * (4096 - 100)  # smash the schema page, keep the header
    corrupt.write_bytes(bytes(raw))

    newer = tmp_path / "newer" / "review.db"
    newer.parent.mkdir()
    conn = sqlite3.connect(newer)
    conn.execute(f"PRAGMA application_id = {0x4D465652}")
    conn.execute("PRAGMA user_version = 99")
    conn.execute("CREATE TABLE future (x)")
    conn.commit()
    conn.close()

    for path, message in [(text, "not an SQLite file"), (foreign, "another program"),
                          (corrupt, "corrupt"), (newer, "newer mafvar")]:
        before = _digest(path)
        listing = sorted(p.name for p in path.parent.iterdir())
        with pytest.raises(ReviewStoreError, match=message) as info:
            ReviewStore.open(path)
        assert str(path) in str(info.value) or "newer" in message
        assert _digest(path) == before, path
        assert sorted(p.name for p in path.parent.iterdir()) == listing


def test_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(ReviewStoreError, match="folder not found"):
        ReviewStore.open(tmp_path / "nope" / "review.db")
    with pytest.raises(ReviewStoreError, match="is a folder"):
        ReviewStore.open(tmp_path)


def test_empty_file_and_empty_sqlite_db_are_adopted(tmp_path):
    empty = tmp_path / "a.db"
    empty.touch()
    with ReviewStore.open(empty) as s:
        s.decide("x-1", "Anna", "chief_judge", "confirmed")
    blank = tmp_path / "b.db"
    sqlite3.connect(blank).execute("PRAGMA user_version").fetchone()
    with ReviewStore.open(blank) as s:
        assert s.schema_version == SCHEMA_VERSION


N_PER_WRITER = 200
N_INCIDENTS = 20


def _writer(path, name, role, start, out):
    # busy_timeout of 1 ms: lock waits fall through to the store's own retry loop,
    # which is what this test exercises.
    store = ReviewStore.open(path, busy_timeout_ms=1)
    start.wait()
    ids = []
    for i in range(N_PER_WRITER):
        d = store.decide(f"inc-{i % N_INCIDENTS}", name, role,
                         ("confirmed", "rejected", "unsure")[i % 3], f"{name} #{i}")
        ids.append(d.id)
        time.sleep(0.001)  # a pause between writes, so the two writers interleave
    store.close()
    out.put((name, ids))


def test_two_processes_deciding_at_once_lose_nothing(tmp_path):
    path = tmp_path / "review.db"
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(path, name, role, start, out))
             for name, role in (("Anna", "chief_judge"), ("Boris", "side_judge"))]
    for p in procs:
        p.start()
    time.sleep(0.5)  # both processes imported and opened, waiting on the event
    start.set()
    results = dict(out.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0

    with ReviewStore.open(path) as s:
        decisions = s.all_decisions()
        log = s.audit_log("decide")
        assert len(decisions) == 2 * N_PER_WRITER
        for name in ("Anna", "Boris"):
            notes = {d.note for d in decisions if d.reviewer == name}
            assert notes == {f"{name} #{i}" for i in range(N_PER_WRITER)}
            assert sorted(results[name]) == sorted(d.id for d in decisions if d.reviewer == name)
        # The writers really ran at the same time: each wrote between the other's writes.
        anna, boris = results["Anna"], results["Boris"]
        assert min(anna) < max(boris) and min(boris) < max(anna)
        assert sorted(e.payload["id"] for e in log) == sorted(d.id for d in decisions)
        assert {(e.actor, e.payload["note"]) for e in log} == {(d.reviewer, d.note)
                                                              for d in decisions}
        # Each incident's chain is linear: every decision supersedes the one before it.
        for k in range(N_INCIDENTS):
            chain = s.decision_history(f"inc-{k}")
            assert len(chain) == 2 * N_PER_WRITER // N_INCIDENTS
            assert chain[0].supersedes is None
            assert all(b.supersedes == a.id for a, b in zip(chain, chain[1:]))


def _endless_writer(path, started):
    store = ReviewStore.open(path)
    started.set()
    i = 0
    while True:
        store.decide(f"inc-{i % 7}", "Anna", "chief_judge", "confirmed", f"#{i}")
        store.verify_vote(1, 1, 5, 1 + i % 10, "voted", "Anna", "chief_judge")
        i += 1


def test_a_killed_writer_leaves_whole_transactions_only(tmp_path):
    path = tmp_path / "review.db"
    ctx = multiprocessing.get_context("spawn")
    started = ctx.Event()
    proc = ctx.Process(target=_endless_writer, args=(path, started))
    proc.start()
    assert started.wait(60)
    deadline = time.monotonic() + 30
    with ReviewStore.open(path) as watcher:
        while len(watcher.all_decisions()) < 100 and time.monotonic() < deadline:
            time.sleep(0.02)
    proc.kill()  # SIGKILL mid-loop: no cleanup, no chance to finish a transaction
    proc.join(10)

    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    with ReviewStore.open(path) as s:
        decisions = s.all_decisions()
        assert len(decisions) >= 100
        # Every decision and verification has its audit row and vice versa.
        assert sorted(e.payload["id"] for e in s.audit_log("decide")) == [d.id for d in decisions]
        n_verify = len(s.audit_log("verify_vote"))
        assert n_verify in (len(decisions), len(decisions) - 1)
        for k in range(7):
            chain = s.decision_history(f"inc-{k}")
            assert all(b.supersedes == a.id for a, b in zip(chain, chain[1:]))
        s.decide("inc-0", "Anna", "chief_judge", "rejected", "after the crash")
        assert s.current_decision("inc-0").note == "after the crash"


def test_threads_sharing_one_store(tmp_path):
    import threading

    with ReviewStore.open(tmp_path / "review.db") as s:
        def work(n):
            for i in range(25):
                s.decide(f"inc-{i % 3}", f"judge {n}", "side_judge", "unsure", f"{n}/{i}")

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(s.all_decisions()) == 100
        assert len(s.audit_log("decide")) == 100
        for k in range(3):
            chain = s.decision_history(f"inc-{k}")
            assert all(b.supersedes == a.id for a, b in zip(chain, chain[1:]))


def test_open_waits_for_a_locked_new_file_instead_of_calling_it_corrupt(tmp_path):
    # What a second reviewer sees while the first one is still creating review.db.
    import threading

    path = tmp_path / "review.db"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    release = threading.Timer(0.3, lambda: holder.execute("ROLLBACK"))
    release.start()
    t0 = time.monotonic()
    with ReviewStore.open(path, busy_timeout_ms=1) as s:
        assert time.monotonic() - t0 >= 0.25  # it waited for the lock
        assert s.schema_version == SCHEMA_VERSION
    release.join()
    holder.close()
