import base64
import hashlib
import io
import json
import re
from datetime import datetime, timedelta, timezone

from PIL import Image

from mafvar.cli import main as mafvar_main
from review.incidents import Evidence, Impact, Incident, Phase, save_incidents
from review.recount_file import VoteCall, VoterRecord, save_recount
from review.report import write_report
from review.store import ReviewStore

EVIL = "<script>alert('x')</script>"
END = datetime(2026, 11, 1, 20, 0, tzinfo=timezone.utc)


def _game(tmp_path):
    seats = [{"seat": i, "name": f"Player {i}", "role": "civ"} for i in range(1, 11)]
    seats[5]["name"] = EVIL
    (tmp_path / "protocol.json").write_text(json.dumps({
        "format": "mafvar-protocol", "version": 1,
        "game": {"tournament": "Autumn Cup", "table": 1, "number": 3, "judge": "Anna",
                 "profile": "mafclub-2023"},
        "seats": seats,
        "events": [{"type": "nightfall", "t": 3.0}, {"type": "result", "winner": "civ"}]}))
    frames = tmp_path / "analysis" / "frames"
    frames.mkdir(parents=True)
    Image.new("RGB", (1280, 720), (200, 30, 30)).save(frames / "early.jpg")

    low = Incident.create("peek", [7], 100.0, 101.0, Phase("Night 1", "night 1"), 0.95,
                          clause="MC 4.8.2", sanction="removal")
    changes = Incident.create(
        "early_vote", [6], 723.4, 725.0, Phase("Day 2, vote on seat 5", "day 2 vote on 5"), 0.6,
        clause="MC 2.4.11", sanction="foul",
        evidence=[Evidence("frame", "analysis/frames/early.jpg", 723.4),
                  Evidence("clip", "analysis/clips/early.mp4", 723.4)],
        impact=Impact(changes_exit=True, changes_result=True,
                      summary=f"ties 5 and 8 {EVIL}"))
    exit_only = Incident.create("late_vote", [2], 800.0, 800.5,
                                Phase("Day 2, vote on seat 8", "day 2 vote on 8"), 0.8,
                                impact=Impact(changes_exit=True))
    # an earlier analysis also found "orphan-123"; it was decided, then re-analysed away
    orphan = Incident(**{**vars(low), "id": "orphan-123"})
    save_incidents(tmp_path / "analysis" / "incidents.json", [low, exit_only, changes, orphan])
    with ReviewStore.open(tmp_path / "review.db") as s:
        s.decide("orphan-123", "Anna", "chief_judge", "rejected")
    save_incidents(tmp_path / "analysis" / "incidents.json", [low, exit_only, changes])
    save_recount(tmp_path / "analysis" / "recount.json", [
        VoteCall(round=2, pass_=1, candidate=5, t_call=720.0, t_thanks=726.0, announced=4,
                 recount=5, voters=(VoterRecord(6, 723.4, 727.0, "fist_thumb_up", True,
                                                "early_placement_counted", 0.9),
                                    VoterRecord(2, 726.5, 728.0, "fist_thumb_up", False,
                                                "late")),
                 defaults=(1, 3)),
        VoteCall(round=2, pass_=1, candidate=8, t_call=730.0, announced=5, recount=5)])
    with ReviewStore.open(tmp_path / "review.db") as s:
        s.decide(changes.id, "Boris", "side_judge", "unsure", "first look")
        s.decide(changes.id, "Anna", "chief_judge", "confirmed", f"clear {EVIL}")
        s.verify_vote(2, 1, 5, 2, "late", "Boris", "side_judge")
        s.file_appeal(4, f"my vote {EVIL}", reviewer="Anna", role="chief_judge",
                      game_end_at=END, filed_at=END + timedelta(minutes=20),
                      incident_ids=[changes.id])
    return low, changes, exit_only


def test_report_shows_everything_sorted_and_escaped(tmp_path):
    low, changes, exit_only = _game(tmp_path)
    paths = write_report(tmp_path)
    assert paths.html == tmp_path / "analysis" / "report.html" and paths.problems == ()
    page = paths.html.read_text()

    # Incidents in priority order: result-changing, then exit-changing, then the rest.
    rows = [m.group(1) for m in re.finditer(r'<tr class="[a-z]*" id="([^"]+)"', page)]
    assert rows == [changes.id, exit_only.id, low.id]
    assert "Autumn Cup" in page and "MC 2.4.11" in page and "changes the result" in page

    # User text is escaped everywhere; the page carries no script at all.
    assert "<script" not in page.lower()
    assert "<link" not in page.lower() and 'src="http' not in page  # self-contained
    assert html_escaped(EVIL) in page
    assert page.count(html_escaped(EVIL)) >= 4  # seat name, impact, note, appeal grounds

    # The thumbnail is an embedded, decodable JPEG scaled down from the 1280x720 frame.
    uris = re.findall(r'src="data:image/jpeg;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(uris) == 1
    thumb = Image.open(io.BytesIO(base64.b64decode(uris[0])))
    assert thumb.format == "JPEG" and thumb.size == (320, 180)
    assert thumb.getpixel((160, 90))[0] > 150  # the red frame, not a blank
    assert 'href="../analysis/clips/early.mp4"' in page

    # Decisions: current and history; orphan decisions are still listed.
    assert "confirmed" in page and "first look" in page and "orphan-123" in page
    assert "LATE" in page and "20.0 min after the end" in page
    assert page.count('class="mismatch"') == 2  # announced and recount cells of candidate 5
    assert "verified late by Boris" in page

    twin = json.loads(paths.json.read_text())
    assert twin["format"] == "mafvar-report" and twin["version"] == 1
    assert [i["id"] for i in twin["incidents"]] == [changes.id, exit_only.id, low.id]
    top = twin["incidents"][0]
    assert top["decision"]["verdict"] == "confirmed" and top["decision"]["reviewer"] == "Anna"
    assert [d["verdict"] for d in top["decision_history"]] == ["unsure", "confirmed"]
    assert twin["incidents"][2]["decision"] is None
    assert twin["summary"]["miscounts"] == 1 and twin["summary"]["changes_result"] == 1
    assert twin["summary"]["open_appeals"] == 1 and twin["appeals"][0]["late"] is True
    assert twin["recount"]["calls"][0]["voters"][1]["reason"] == "late"
    assert twin["game"]["result"] == "civ"


def html_escaped(text):
    import html
    return html.escape(text, quote=True)


def test_report_without_analysis_says_so_and_creates_nothing_else(tmp_path):
    paths = write_report(tmp_path)
    page = paths.html.read_text()
    for phrase in ("No protocol", "No analysis yet", "No recount yet", "No decisions yet",
                   "No appeals"):
        assert phrase in page
    assert not (tmp_path / "review.db").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["analysis"]
    twin = json.loads(paths.json.read_text())
    assert twin["incidents"] is None and twin["recount"] is None and twin["appeals"] is None
    assert twin["inputs"] == {"protocol": "missing", "incidents": "missing",
                              "recount": "missing", "review_db": "missing"}


def test_report_with_unreadable_inputs_reports_problems_and_keeps_files(tmp_path):
    (tmp_path / "review.db").write_text("not a database")
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "incidents.json").write_text("{oops")
    before = hashlib.sha256((tmp_path / "review.db").read_bytes()).hexdigest()
    paths = write_report(tmp_path)
    assert len(paths.problems) == 2
    assert hashlib.sha256((tmp_path / "review.db").read_bytes()).hexdigest() == before
    page = paths.html.read_text()
    assert "not a mafvar review database" in page and "unreadable" in page


def test_cli_report_prints_paths_and_fails_cleanly(tmp_path, capsys):
    _game(tmp_path)
    assert mafvar_main(["report", str(tmp_path)]) == 0
    out = capsys.readouterr().out.split()
    assert out == [str(tmp_path / "analysis" / "report.html"),
                   str(tmp_path / "analysis" / "report.json")]
    assert mafvar_main(["report", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert "game folder not found" in err and "Traceback" not in err


def test_report_on_inputs_past_the_limits_names_the_problem(tmp_path):
    # Found by the big fuzz budget: a 100,000-digit integer in protocol.json
    # ended `mafvar report` in Python's own digit-limit error.
    (tmp_path / "protocol.json").write_text('{"game": {"number": ' + "9" * 100_000 + "}}")
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "incidents.json").write_text('{"format": 1' + "0" * 5000 + "}")
    paths = write_report(tmp_path)
    assert any("an integer of 100,000 digits" in p for p in paths.problems), paths.problems
    assert any("incidents.json: not readable JSON" in p for p in paths.problems), paths.problems


def test_report_names_the_votes_unread_seats_could_have_decided(tmp_path):
    from review.stakes import STAKES_FILE, STAKES_FORMAT, STAKES_VERSION
    _game(tmp_path)
    decides = f"day 3, vote: seat 6 cannot be judged here (hand or face not read). If seat 6 voted for 8: seat 8 voted out {EVIL}."
    either = "day 3, revote: seat 2 cannot be judged here (dark); however seat 2 voted, seat 5 voted out."
    (tmp_path / "analysis" / STAKES_FILE).write_text(json.dumps({
        "format": STAKES_FORMAT, "version": STAKES_VERSION,
        "passes": [{"round": 2, "decides": True, "text": decides}, {"round": 2, "decides": False, "text": either}]}))
    paths = write_report(tmp_path)
    page = paths.html.read_text()
    assert "Votes the picture could not settle" in page
    assert html_escaped(decides) in page and either not in page and "<script" not in page.lower()
    twin = json.loads(paths.json.read_text())
    assert twin["summary"]["counts_at_stake"] == 1 and [p["text"] for p in twin["stakes"]] == [decides, either]


def test_report_says_how_much_the_picture_judged_and_when_it_is_too_little(tmp_path):
    _game(tmp_path)
    report = tmp_path / "analysis"
    # without the timeline the cells are not known: nothing said, nothing guessed
    twin = json.loads(write_report(tmp_path).json.read_text())
    assert "vote_cells" not in twin["summary"]
    seats = list(range(1, 11))
    (report / "timeline.json").write_text(json.dumps({"intervals": [
        {"kind": "vote_call", "key": f"r2.vote.p0.c{c}", "in_game": seats, "details": {"eligible": seats}}
        for c in (5, 8)]}))
    twin = json.loads(write_report(tmp_path).json.read_text())
    assert (twin["summary"]["vote_cells"], twin["summary"]["vote_cells_judged"]) == (20, 20)
    assert "Judged from the picture: 20 of 20 vote cells" in write_report(tmp_path).html.read_text()
    # the second call's seats all abstained: 10 of 20 judged, and the report says what that means
    save_recount(report / "recount.json", [
        VoteCall(round=2, pass_=1, candidate=5, t_call=720.0, announced=4, recount=5),
        VoteCall(round=2, pass_=1, candidate=8, t_call=730.0, announced=5, recount=0,
                 unverified=tuple((s, ("venue",)) for s in seats))])
    paths = write_report(tmp_path)
    twin = json.loads(paths.json.read_text())
    assert twin["summary"]["vote_cells_judged"] == 10 and twin["summary"]["coverage_thin"] is True
    page = paths.html.read_text()
    assert re.search(r'class="problem">Judged from the picture: 10 of 20 vote cells[^<]*does not mean a clean game',
                     page)
