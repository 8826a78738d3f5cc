"""The `review.db` schema as an ordered list of migrations.

Migration i (1-based) takes the database from `PRAGMA user_version` i-1 to i.
Migrations are only ever appended: a file written by an older mafvar is
upgraded in place, never re-created. Every table is append-only, enforced by
triggers, so history cannot be rewritten even by a buggy caller.
"""
from __future__ import annotations

# "MFVR": marks a SQLite file as a mafvar review database (PRAGMA application_id).
APPLICATION_ID = 0x4D465652

ROLES = ("chief_judge", "side_judge", "organiser")
VERDICTS = ("confirmed", "rejected", "unsure")
VOTE_VERDICTS = ("voted", "not_voted", "wrong_form", "late")
RULINGS = ("upheld", "rejected", "replay", "result_changed")

# the tables of schema 1 (its migration creates their triggers; never changes)
_V1_TABLES = ("reviewers", "decisions", "vote_verifications", "appeals",
              "appeal_incidents", "appeal_rulings", "audit_log")
# schema 3: the judges' one-click answers about single frames (mafvar learn)
FRAME_QUESTIONS = ("mask", "fist")
FRAME_ANSWERS = ("mask_on", "mask_off", "fist", "no_fist", "cannot_tell")
APPEND_ONLY_TABLES = _V1_TABLES + ("frame_answers",)


def _in(values: tuple[str, ...]) -> str:
    return "(" + ", ".join(f"'{v}'" for v in values) + ")"


# The unique keys of each table: an insert that collides with one is refused
# outright, so INSERT OR REPLACE cannot delete a row behind the DELETE trigger
# (SQLite skips delete triggers on REPLACE unless recursive_triggers is on).
UNIQUE_KEYS: dict[str, tuple[tuple[str, ...], ...]] = {
    "reviewers": (("id",), ("name", "role")),
    "decisions": (("id",),),
    "vote_verifications": (("id",),),
    "appeals": (("id",),),
    "appeal_incidents": (("appeal_id", "incident_id"),),
    "appeal_rulings": (("id",),),
    "audit_log": (("id",),),
    "frame_answers": (("id",),),
}


def _append_only_triggers(table: str) -> str:
    hint = "append a new row that supersedes it" if table != "audit_log" else "it is a log"
    collide = " OR ".join(
        "EXISTS (SELECT 1 FROM {t} WHERE {cond})".format(
            t=table, cond=" AND ".join(f"{c} = NEW.{c}" for c in key))
        for key in UNIQUE_KEYS[table])
    return f"""
CREATE TRIGGER {table}_no_replace BEFORE INSERT ON {table}
BEGIN SELECT RAISE(ABORT, '{table} is append-only: this row already exists ({hint})')
      WHERE {collide}; END;
CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table}
BEGIN SELECT RAISE(ABORT, '{table} is append-only: rows are never updated ({hint})'); END;
CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table}
BEGIN SELECT RAISE(ABORT, '{table} is append-only: rows are never deleted ({hint})'); END;
"""


_V1 = f"""
CREATE TABLE reviewers (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL CHECK (length(trim(name)) > 0),
    role        TEXT NOT NULL CHECK (role IN {_in(ROLES)}),
    created_at  TEXT NOT NULL,
    UNIQUE (name, role)
);

CREATE TABLE decisions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    incident_id  TEXT NOT NULL CHECK (length(incident_id) > 0),
    reviewer     TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN {_in(ROLES)}),
    verdict      TEXT NOT NULL CHECK (verdict IN {_in(VERDICTS)}),
    note         TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    supersedes   INTEGER UNIQUE REFERENCES decisions(id),
    FOREIGN KEY (reviewer, role) REFERENCES reviewers(name, role)
);
CREATE INDEX decisions_by_incident ON decisions(incident_id, id);

-- The chain of one incident's decisions is linear: a new decision supersedes
-- exactly the current (latest) one, and the first supersedes nothing.
CREATE TRIGGER decisions_chain BEFORE INSERT ON decisions
BEGIN
    SELECT RAISE(ABORT, 'decisions: a new decision must supersede the current one')
    WHERE NEW.supersedes IS NOT
          (SELECT max(id) FROM decisions WHERE incident_id = NEW.incident_id);
END;

CREATE TABLE vote_verifications (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    round        INTEGER NOT NULL CHECK (round >= 0),
    pass         INTEGER NOT NULL CHECK (pass >= 1),
    candidate    INTEGER CHECK (candidate IS NULL OR candidate BETWEEN 1 AND 10),
    voter_seat   INTEGER NOT NULL CHECK (voter_seat BETWEEN 1 AND 10),
    verdict      TEXT NOT NULL CHECK (verdict IN {_in(VOTE_VERDICTS)}),
    reviewer     TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN {_in(ROLES)}),
    note         TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    supersedes   INTEGER UNIQUE REFERENCES vote_verifications(id),
    FOREIGN KEY (reviewer, role) REFERENCES reviewers(name, role)
);
CREATE INDEX vote_verifications_by_cell
    ON vote_verifications(round, pass, candidate, voter_seat, id);

CREATE TRIGGER vote_verifications_chain BEFORE INSERT ON vote_verifications
BEGIN
    SELECT RAISE(ABORT, 'vote_verifications: a new verification must supersede the current one')
    WHERE NEW.supersedes IS NOT
          (SELECT max(id) FROM vote_verifications
            WHERE round = NEW.round AND pass = NEW.pass
              AND candidate IS NEW.candidate AND voter_seat = NEW.voter_seat);
END;

CREATE TABLE appeals (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    filed_by_seat     INTEGER NOT NULL CHECK (filed_by_seat BETWEEN 1 AND 10),
    grounds           TEXT NOT NULL CHECK (length(trim(grounds)) > 0),
    filed_at          TEXT NOT NULL,
    game_end_at       TEXT,
    deadline_minutes  REAL NOT NULL CHECK (deadline_minutes > 0),
    late              INTEGER CHECK (late IN (0, 1)),  -- NULL: game end unknown
    recorded_by       TEXT NOT NULL,
    role              TEXT NOT NULL CHECK (role IN {_in(ROLES)}),
    created_at        TEXT NOT NULL,
    FOREIGN KEY (recorded_by, role) REFERENCES reviewers(name, role)
);

CREATE TABLE appeal_incidents (
    appeal_id    INTEGER NOT NULL REFERENCES appeals(id),
    incident_id  TEXT NOT NULL CHECK (length(incident_id) > 0),
    attached_by  TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN {_in(ROLES)}),
    attached_at  TEXT NOT NULL,
    PRIMARY KEY (appeal_id, incident_id)
);

CREATE TABLE appeal_rulings (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    appeal_id   INTEGER NOT NULL REFERENCES appeals(id),
    reviewer    TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role = 'chief_judge'),
    ruling      TEXT NOT NULL CHECK (ruling IN {_in(RULINGS)}),
    reasons     TEXT NOT NULL CHECK (length(trim(reasons)) > 0),
    created_at  TEXT NOT NULL,
    supersedes  INTEGER UNIQUE REFERENCES appeal_rulings(id),
    FOREIGN KEY (reviewer, role) REFERENCES reviewers(name, role)
);

CREATE TRIGGER appeal_rulings_chain BEFORE INSERT ON appeal_rulings
BEGIN
    SELECT RAISE(ABORT, 'appeal_rulings: a new ruling must supersede the current one')
    WHERE NEW.supersedes IS NOT
          (SELECT max(id) FROM appeal_rulings WHERE appeal_id = NEW.appeal_id);
END;

CREATE TABLE audit_log (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    at       TEXT NOT NULL,
    actor    TEXT NOT NULL,
    role     TEXT,
    action   TEXT NOT NULL,
    payload  TEXT NOT NULL CHECK (json_valid(payload))
);
""" + "".join(_append_only_triggers(t) for t in _V1_TABLES)

# Schema 2 (hardening): the audit log becomes a hash chain (review/store_integrity.py)
# and records how each act was authorised; the role rules and the text limits of
# review/roles.py and review/user_text.py are enforced by the database too, so a
# caller that bypasses ReviewStore is still refused. A store migrated from 1
# gets a `chain_start` row sealing its older rows (written by ReviewStore).
LIMITS_SQL = {  # table -> (column, max length) checked on insert
    "reviewers": (("name", 80),),
    "decisions": (("incident_id", 200), ("reviewer", 80), ("note", 4000)),
    "vote_verifications": (("reviewer", 80), ("note", 4000)),
    "appeals": (("grounds", 4000), ("recorded_by", 80)),
    "appeal_incidents": (("incident_id", 200), ("attached_by", 80)),
    "appeal_rulings": (("reviewer", 80), ("reasons", 4000)),
}


def _limit_trigger(table: str, cols: tuple[tuple[str, int], ...]) -> str:
    cond = " OR ".join(f"length(NEW.{c}) > {n}" for c, n in cols)
    named = ", ".join(f"{c} {n}" for c, n in cols)
    return f"""
CREATE TRIGGER {table}_limits BEFORE INSERT ON {table}
BEGIN SELECT RAISE(ABORT, '{table}: text over its length limit ({named} characters)')
      WHERE {cond}; END;
"""


_V2 = """
ALTER TABLE audit_log ADD COLUMN auth TEXT;         -- practice | passphrase | NULL (mafvar)
ALTER TABLE audit_log ADD COLUMN row_digests TEXT;  -- [[table, rowid, sha256], ...] of this write
ALTER TABLE audit_log ADD COLUMN prev_hash TEXT;
ALTER TABLE audit_log ADD COLUMN hash TEXT;

-- Once the chain has begun, every new row carries its hash and links to the last one.
CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only: a new row must carry its hash and the hash of the row before it')
    WHERE NEW.hash IS NULL OR length(NEW.hash) != 64
       OR (EXISTS (SELECT 1 FROM audit_log WHERE hash IS NOT NULL)
           AND NEW.prev_hash IS NOT (SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1));
END;

-- docs/app.md: an organiser may not verify votes; only the chief judge rules (schema 1).
CREATE TRIGGER vote_verifications_role BEFORE INSERT ON vote_verifications
BEGIN SELECT RAISE(ABORT, 'vote_verifications: an organiser may not verify votes')
      WHERE NEW.role NOT IN ('chief_judge', 'side_judge'); END;
""" + "".join(_limit_trigger(t, c) for t, c in LIMITS_SQL.items())

# Schema 3: a judge's answer about one seat in one frame ("mask on or off?", "a fist
# or not?"), asked where an answer teaches the seat windows most (review.lessons,
# `mafvar learn`). A new answer about the same (t, seat, question) supersedes the
# last one; judges only, as for vote verifications.
_V3 = f"""
CREATE TABLE frame_answers (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    t           REAL NOT NULL CHECK (t >= 0),
    seat        INTEGER NOT NULL CHECK (seat BETWEEN 1 AND 10),
    question    TEXT NOT NULL CHECK (question IN {_in(FRAME_QUESTIONS)}),
    answer      TEXT NOT NULL CHECK (answer IN {_in(FRAME_ANSWERS)}),
    reviewer    TEXT NOT NULL CHECK (length(reviewer) <= 80),
    role        TEXT NOT NULL CHECK (role IN ('chief_judge', 'side_judge')),
    note        TEXT NOT NULL DEFAULT '' CHECK (length(note) <= 4000),
    created_at  TEXT NOT NULL,
    supersedes  INTEGER UNIQUE REFERENCES frame_answers(id),
    FOREIGN KEY (reviewer, role) REFERENCES reviewers(name, role)
);
CREATE INDEX frame_answers_by_frame ON frame_answers(t, seat, question, id);

CREATE TRIGGER frame_answers_chain BEFORE INSERT ON frame_answers
BEGIN
    SELECT RAISE(ABORT, 'frame_answers: a new answer must supersede the current one')
    WHERE NEW.supersedes IS NOT
          (SELECT max(id) FROM frame_answers
            WHERE t = NEW.t AND seat = NEW.seat AND question = NEW.question);
END;
""" + _append_only_triggers("frame_answers")

# Append only. Never edit a migration that has shipped.
MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3)
SCHEMA_VERSION = len(MIGRATIONS)
