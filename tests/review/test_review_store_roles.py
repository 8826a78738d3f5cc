"""Roles proven, not declared: every rule of docs/app.md enforced by review.db's store.

Each role rule is tested one by one against the real store (and, for the
rules the database can state, against a raw SQLite connection too). ReviewerRole
passphrases live in the organiser's roles file; names and notes are
normalised and bounded before anything is written.
"""
from __future__ import annotations

import sqlite3
import unicodedata

import pytest

from review import rolebook
from review.roles import PERMITS, Action, ReviewerRole
from review.store import ReviewStore, check_identity
from review_store_support import write_incidents

ORGANISER, CHIEF, SIDE = "organiser-pass", "chief-judge-pass", "side-judge-pass"


@pytest.fixture
def game(tmp_path):
    g = tmp_path / "cup" / "table1"
    g.mkdir(parents=True)
    (g / "protocol.json").write_text("{}")  # a game folder of the tournament
    write_incidents(g)
    return g


@pytest.fixture
def protected(game):
    """The tournament folder (game's parent) with a passphrase for every role."""
    folder = game.parent
    rolebook.set_passphrase(folder, "organiser", ORGANISER)
    rolebook.set_passphrase(folder, "chief_judge", CHIEF, organiser_passphrase=ORGANISER)
    rolebook.set_passphrase(folder, "side_judge", SIDE, organiser_passphrase=ORGANISER)
    return folder


PASS = {"chief_judge": CHIEF, "side_judge": SIDE, "organiser": ORGANISER}


def _act(s: ReviewStore, action: Action, name: str, role: str, passphrase=None):
    """Perform one action of the role table as `name` acting as `role`."""
    if action is Action.DECIDE:
        return s.decide("peek-1", name, role, "confirmed", passphrase=passphrase)
    if action is Action.VERIFY_VOTE:
        return s.verify_vote(1, 1, 5, 3, "voted", name, role, passphrase=passphrase)
    if action is Action.FILE_APPEAL:
        return s.file_appeal(4, "miscount", reviewer=name, role=role, passphrase=passphrase)
    if action is Action.ATTACH_INCIDENTS:
        appeal = _appeal(s)
        return s.attach_incidents(appeal, ["peek-2"], reviewer=name, role=role,
                                  passphrase=passphrase)
    if action is Action.RULE_APPEAL:
        return s.rule_appeal(_appeal(s), name, role, "rejected", "not gross",
                             passphrase=passphrase)
    if action is Action.EXPORT:
        return s.record_export(name, role, "report", passphrase=passphrase)
    if action is Action.ANSWER_FRAME:
        return s.answer_frame(30.2, 3, "fist", "no_fist", name, role, passphrase=passphrase)
    raise AssertionError(action)


def _appeal(s: ReviewStore) -> int:
    appeals = s.appeals()
    if appeals:
        return appeals[0].id
    return s.file_appeal(1, "an appeal to act on", reviewer="Clerk", role="chief_judge",
                         passphrase=CHIEF if s.rolebook() else None).id


# The rules as docs/app.md states them, written out here (not read from review.roles),
# so the test fails if the table in the code drifts from the documented one.
DOCUMENTED = {
    Action.DECIDE: {"chief_judge", "side_judge", "organiser"},
    Action.VERIFY_VOTE: {"chief_judge", "side_judge"},
    Action.FILE_APPEAL: {"chief_judge", "side_judge", "organiser"},
    Action.ATTACH_INCIDENTS: {"chief_judge", "side_judge", "organiser"},
    Action.RULE_APPEAL: {"chief_judge"},
    Action.EXPORT: {"chief_judge", "organiser"},
    Action.ANSWER_FRAME: {"chief_judge", "side_judge"},
}


def test_the_code_table_is_the_documented_one():
    assert {a: {r.value for r in roles} for a, roles in PERMITS.items()} == DOCUMENTED


@pytest.mark.parametrize("action", list(Action), ids=lambda a: a.value)
@pytest.mark.parametrize("role", [r.value for r in ReviewerRole])
def test_each_role_rule_in_practice_mode(game, action, role):
    name = f"Tester {role}"
    with ReviewStore.open(game / "review.db") as s:
        before = len(s.audit_log())
        if role in DOCUMENTED[action]:
            _act(s, action, name, role)
            assert s.audit_log()[-1].action == action.value
            assert s.audit_log()[-1].actor == name and s.audit_log()[-1].role == role
        else:
            if action in (Action.ATTACH_INCIDENTS, Action.RULE_APPEAL):
                _appeal(s)
                before = len(s.audit_log())
            with pytest.raises(PermissionError, match="may not|only the chief judge"):
                _act(s, action, name, role)
            assert len(s.audit_log()) == before  # refused before anything was written


@pytest.mark.parametrize("action", list(Action), ids=lambda a: a.value)
@pytest.mark.parametrize("role", [r.value for r in ReviewerRole])
def test_each_role_rule_with_passphrases(game, protected, action, role):
    name = f"Tester {role}"
    with ReviewStore.open(game / "review.db") as s:
        if action in (Action.ATTACH_INCIDENTS, Action.RULE_APPEAL):
            _appeal(s)
        before = len(s.audit_log())
        if role not in DOCUMENTED[action]:
            with pytest.raises(PermissionError):
                _act(s, action, name, role, PASS[role])
            assert len(s.audit_log()) == before
            return
        with pytest.raises(PermissionError, match="needs the"):
            _act(s, action, name, role, None)
        wrong = PASS["side_judge" if role != "side_judge" else "chief_judge"]
        with pytest.raises(PermissionError, match="wrong passphrase"):
            _act(s, action, name, role, wrong)
        assert len(s.audit_log()) == before
        _act(s, action, name, role, PASS[role])
        entry = s.audit_log()[-1]
        assert (entry.action, entry.actor, entry.role, entry.auth) == (
            action.value, name, role, "passphrase")


def test_roles_file_holds_no_passphrase_in_clear(protected):
    text = (protected / rolebook.ROLES_FILE).read_text()
    for secret in (ORGANISER, CHIEF, SIDE):
        assert secret not in text
    book = rolebook.load_rolebook(protected / rolebook.ROLES_FILE)
    rec = book.passphrases[ReviewerRole.CHIEF_JUDGE]
    assert rec["kdf"] == "scrypt" and len(bytes.fromhex(rec["salt"])) == 16
    # salted: the same passphrase set twice hashes differently
    again = rolebook.hash_passphrase(CHIEF)
    assert again["hash"] != rec["hash"] and book.check_passphrase(ReviewerRole.CHIEF_JUDGE, CHIEF)


def test_only_the_organiser_changes_passphrases_and_sets_the_first(game):
    folder = game.parent
    with pytest.raises(rolebook.RoleBookError, match="organiser's passphrase first"):
        rolebook.set_passphrase(folder, "chief_judge", CHIEF)
    rolebook.set_passphrase(folder, "organiser", ORGANISER)
    with pytest.raises(rolebook.RoleBookError, match="wrong organiser passphrase"):
        rolebook.set_passphrase(folder, "chief_judge", "mallory-pass", organiser_passphrase=CHIEF)
    with pytest.raises(rolebook.RoleBookError, match="wrong organiser passphrase"):
        rolebook.grant(folder, "Mallory", ["chief_judge", "side_judge"])
    with pytest.raises(ValueError, match="at least 8"):
        rolebook.set_passphrase(folder, "chief_judge", "short", organiser_passphrase=ORGANISER)


def test_side_judge_cannot_reregister_as_chief_judge(game, protected):
    with ReviewStore.open(game / "review.db") as s:
        s.decide("peek-1", "Sam", "side_judge", "unsure", passphrase=SIDE)
        appeal = s.file_appeal(4, "miscount", reviewer="Sam", role="side_judge", passphrase=SIDE)
        # knowing the chief judge's passphrase is not enough for a name that holds another role
        with pytest.raises(PermissionError, match="already acts as side judge"):
            s.rule_appeal(appeal.id, "Sam", "chief_judge", "upheld", "mine", passphrase=CHIEF)
        with pytest.raises(PermissionError, match="already acts"):
            s.rule_appeal(appeal.id, " sam ", "chief_judge", "upheld", "case and space",
                          passphrase=CHIEF)
        assert s.appeal(appeal.id).status == "open"
        # the organiser grants it: now the same person may rule
        rolebook.grant(protected, "Sam", ["side_judge", "chief_judge"],
                       organiser_passphrase=ORGANISER)
        ruling = s.rule_appeal(appeal.id, "Sam", "chief_judge", "upheld", "granted",
                               passphrase=CHIEF)
        assert ruling.reviewer == "Sam" and s.appeal(appeal.id).status == "upheld"


def test_one_role_per_name_across_the_tournament(game, protected):
    other = protected / "table2"
    other.mkdir()
    (other / "protocol.json").write_text("{}")
    write_incidents(other)
    with ReviewStore.open(other / "review.db") as s:
        s.decide("peek-1", "Vera", "side_judge", "confirmed", passphrase=SIDE)
    with ReviewStore.open(game / "review.db") as s:
        with pytest.raises(PermissionError, match="game table2"):
            s.decide("peek-1", "Vera", "organiser", "confirmed", passphrase=ORGANISER)
        with pytest.raises(PermissionError, match="game table2"):
            check_identity(game, "Vera", "organiser", ORGANISER)
        assert check_identity(game, "Vera", "side_judge", SIDE) == "passphrase"
        s.decide("peek-1", "Vera", "side_judge", "confirmed", passphrase=SIDE)


def test_one_role_per_name_in_practice_mode_too(game):
    with ReviewStore.open(game / "review.db") as s:
        s.decide("peek-1", "Ivan", "side_judge", "confirmed")
        with pytest.raises(PermissionError, match="already acts as side judge"):
            s.decide("peek-1", "Ivan", "chief_judge", "rejected")
        assert [d.reviewer for d in s.all_decisions()] == ["Ivan"]


def test_removing_the_roles_file_does_not_open_the_roles(game, protected):
    with ReviewStore.open(game / "review.db") as s:
        s.decide("peek-1", "Anna", "chief_judge", "confirmed", passphrase=CHIEF)
    (protected / rolebook.ROLES_FILE).rename(protected / "moved-away.json")
    with ReviewStore.open(game / "review.db") as s:
        with pytest.raises(PermissionError, match="put the tournament's roles file back"):
            s.decide("peek-1", "Anna", "chief_judge", "rejected")
        with pytest.raises(PermissionError, match="roles file back"):
            check_identity(game, "Anna", "chief_judge")
        assert len(s.all_decisions()) == 1


def test_a_damaged_roles_file_stops_every_act(game, protected):
    (protected / rolebook.ROLES_FILE).write_text('{"format": "mafvar-roles", "version": 1, '
                                                  '"passphrases": {"chief_judge": {"kdf": "md5"}}}')
    with ReviewStore.open(game / "review.db") as s:
        with pytest.raises(PermissionError, match="malformed"):
            s.decide("peek-1", "Anna", "chief_judge", "confirmed", passphrase=CHIEF)


def test_a_decision_must_name_an_incident_of_the_game(game):
    with ReviewStore.open(game / "review.db") as s:
        with pytest.raises(LookupError, match="no incident 'ghost-1'"):
            s.decide("ghost-1", "Anna", "chief_judge", "confirmed")
        with pytest.raises(LookupError, match="no incident 'ghost-2'"):
            s.file_appeal(3, "x", reviewer="Anna", role="chief_judge",
                          incident_ids=["peek-1", "ghost-2"])
        a = s.file_appeal(3, "x", reviewer="Anna", role="chief_judge", incident_ids=["peek-1"])
        with pytest.raises(LookupError, match="ghost-3"):
            s.attach_incidents(a.id, ["ghost-3"], reviewer="Anna", role="chief_judge")
        assert s.all_decisions() == [] and s.appeal(a.id).incident_ids == ("peek-1",)
    (game / "analysis" / "incidents.json").unlink()
    with ReviewStore.open(game / "review.db") as s:
        with pytest.raises(LookupError, match="analyse the game"):
            s.decide("peek-1", "Anna", "chief_judge", "confirmed")


@pytest.mark.parametrize("name,message", [
    ("Ann\x00a", "control character"),
    ("Anna\x1b[31m", "control character"),
    ("Anna\u202eyrB", "text-direction"),
    ("A" * 81, "over the limit of 80"),
    ("\ud800Anna", "not valid Unicode"),
    ("   ", "empty"),
])
def test_bad_names_are_refused(game, name, message):
    with ReviewStore.open(game / "review.db") as s:
        with pytest.raises(ValueError, match=message):
            s.decide("peek-1", name, "side_judge", "confirmed")
        assert s.audit_log() == []


def test_names_are_normalised(game):
    decomposed = unicodedata.normalize("NFD", "Zoë  Petrova ")
    with ReviewStore.open(game / "review.db") as s:
        d = s.decide("peek-1", decomposed, "side_judge", "confirmed")
        assert d.reviewer == "Zoë Petrova" and unicodedata.is_normalized("NFC", d.reviewer)
        s.decide("peek-1", "Zoë Petrova", "side_judge", "rejected")
        assert [r.name for r in s.reviewers()] == ["Zoë Petrova"]  # one person, not two


def test_notes_have_a_limit_and_no_control_characters(game):
    with ReviewStore.open(game / "review.db") as s:
        with pytest.raises(ValueError, match="over the limit of 4,000"):
            s.decide("peek-1", "Anna", "chief_judge", "confirmed", "x" * (10 * 1024 * 1024))
        with pytest.raises(ValueError, match="control character"):
            s.decide("peek-1", "Anna", "chief_judge", "confirmed", "seen\x00hidden")
        d = s.decide("peek-1", "Anna", "chief_judge", "confirmed", "line one\nline two\ttab")
        assert d.note == "line one\nline two\ttab"
        with pytest.raises(ValueError, match="grounds"):
            s.file_appeal(3, "g" * 5000, reviewer="Anna", role="chief_judge")


def test_the_database_itself_refuses_what_the_rules_forbid(game):
    """A caller that bypasses ReviewStore (a raw connection) meets the same rules."""
    path = game / "review.db"
    with ReviewStore.open(path) as s:
        s.decide("peek-1", "Olga", "organiser", "confirmed")
    conn = sqlite3.connect(path, isolation_level=None)
    with pytest.raises(sqlite3.IntegrityError, match="organiser may not verify"):
        conn.execute("INSERT INTO vote_verifications (round, pass, candidate, voter_seat, verdict,"
                     " reviewer, role, note, created_at) VALUES (1, 1, 5, 3, 'voted', 'Olga',"
                     " 'organiser', '', 'x')")
    with pytest.raises(sqlite3.IntegrityError, match="length limit"):
        conn.execute("INSERT INTO decisions (incident_id, reviewer, role, verdict, note,"
                     " created_at, supersedes) VALUES ('peek-2', 'Olga', 'organiser',"
                     " 'confirmed', ?, 'x', NULL)", ("n" * 4001,))
    with pytest.raises(sqlite3.IntegrityError, match="chief_judge"):
        conn.execute("INSERT INTO appeal_rulings (appeal_id, reviewer, role, ruling, reasons,"
                     " created_at) VALUES (1, 'Olga', 'organiser', 'upheld', 'r', 'x')")
    with pytest.raises(sqlite3.IntegrityError, match="hash"):
        conn.execute("INSERT INTO audit_log (at, actor, action, payload) VALUES"
                     " ('x', 'mallory', 'decide', '{}')")
    conn.close()


def test_sign_in_checks_without_writing(game, protected):
    assert not (game / "review.db").exists()
    with pytest.raises(PermissionError, match="wrong passphrase"):
        check_identity(game, "Anna", "chief_judge", SIDE)
    with pytest.raises(PermissionError, match="needs the chief judge's passphrase"):
        check_identity(game, "Anna", "chief_judge", None)
    assert check_identity(game, "Anna", "chief_judge", CHIEF) == "passphrase"
    assert not (game / "review.db").exists()
    assert check_identity(game.parent.parent, "Anna", "chief_judge") == "practice"


def test_a_role_without_a_passphrase_cannot_act_once_passphrases_are_on(game):
    rolebook.set_passphrase(game.parent, "organiser", ORGANISER)
    with ReviewStore.open(game / "review.db") as s:
        with pytest.raises(PermissionError, match="no passphrase is set for the side judge"):
            s.decide("peek-1", "Sam", "side_judge", "confirmed", passphrase="anything-at-all")
