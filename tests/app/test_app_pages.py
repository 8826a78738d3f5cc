"""Streamlit AppTest runs of each page against a real fixture game (video, protocol, review.db)."""
from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from app_testlib import app_on, copy_game, fixtures, no_exceptions, texts  # noqa: E402

from review.store import ReviewStore  # noqa: E402

PAGES = ["games", "calibration", "timeline", "queue", "incident", "votes", "appeals", "audit"]


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return fixtures.make_game(tmp_path_factory.mktemp("tpl"), "game1")


@pytest.fixture()
def game(template, tmp_path) -> Path:
    return copy_game(template, tmp_path)


def queue_rows(at) -> list[str]:
    return [m.value for m in at.markdown if "· confidence" in m.value]


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_every_page_loads_the_fixture_game(page, game):
    at = app_on(page, game)
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("page", PAGES[1:])
def test_every_page_reports_a_missing_workspace_without_an_exception(page, tmp_path):
    at = app_on(page, tmp_path / "no-such-game")
    no_exceptions(at)
    if page == "audit":  # the audit page asks for a folder; the missing game's parent exists
        return
    assert at.error, f"{page}: no error shown for a missing workspace"
    assert "game folder not found" in at.error[0].value


@pytest.mark.parametrize("page", ["queue", "incident", "votes", "appeals", "calibration"])
def test_pages_without_an_open_game_say_so(page):
    at = app_on(page, None)
    no_exceptions(at)
    assert any("No game is open" in e.value for e in at.error)


def test_games_page_shows_the_analysis_state(game):
    at = app_on("games", game)
    no_exceptions(at)
    assert "Fixture Cup" in texts(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Incidents"] == "6"
    assert metrics["Vote calls recounted"] == "2"
    # review.pipeline is not part of this checkout's contract: either a run button or a note
    assert any("Analysis" in t for t in texts(at).splitlines())


def test_games_page_names_the_empty_folder_it_was_started_on(tmp_path, monkeypatch):
    # started on a folder of games that holds none yet (a judge's first run): the page names
    # that folder and points to the form, instead of saying no folder was given
    empty = tmp_path / "games"
    empty.mkdir()
    monkeypatch.setenv("MAFVAR_GAMES", str(empty))
    at = app_on("games", None)
    no_exceptions(at)
    said = " ".join(i.value for i in at.info)
    assert f"No game yet in `{empty}`" in said and "Create one below" in said
    assert "No game folders were given" not in said
    monkeypatch.setenv("MAFVAR_GAMES", "")
    at = app_on("games", None)
    assert any("No game folders were given" in i.value for i in at.info)


def test_games_page_repeats_what_the_last_analysis_warned_of(game):
    # the terminal said the video ends before the record and the marks were not found;
    # the judge in the app must read it too (the calibration's lines have their own box)
    from review.workspace import ANALYSIS_STEPS, GameWorkspace
    ws = GameWorkspace(game)
    for step in ANALYSIS_STEPS:
        ws.mark_done(step, {})
    short = "video.mp4 lasts 68.1 s but the protocol runs to 194.0 s: phases after the end of the video are not analysed"
    ws.stats_path.write_text(json.dumps({"warnings": [
        short, "calibration.json: cam1: seat 5 is small (235 px tall)"]}), encoding="utf-8")
    at = app_on("games", game)
    no_exceptions(at)
    shown = "\n".join(str(w.value) for w in at.warning)
    assert "The last analysis warned" in shown and short in shown
    assert "seat 5 is small" not in shown


def test_queue_is_sorted_by_impact_then_confidence(game):
    at = app_on("queue", game)
    rows = queue_rows(at)
    assert len(rows) == 6
    kinds = [r.split("**")[1].split(" · ")[0] for r in rows]
    # result-changing miscount, then the exit-changing late vote, then the no-impact ones
    # by confidence: protocol audit 1.0 > touch day 0.95 > wrong form 0.70 > peek 0.65
    # (fixtures.INCIDENT_SPECS)
    assert kinds == ["miscount", "late vote", "protocol audit", "touch day", "wrong form", "peek"]


def test_queue_filters_narrow_the_list(game):
    at = app_on("queue", game)
    at.multiselect(key="f_type").set_value(["peek", "wrong_form"]).run()
    assert [r.split("**")[1].split(" · ")[0] for r in queue_rows(at)] == ["wrong form", "peek"]
    at.multiselect(key="f_type").set_value([]).run()
    at.multiselect(key="f_seat").set_value([6]).run()
    rows = queue_rows(at)
    assert len(rows) == 1 and "seat 6" in rows[0]
    at.multiselect(key="f_seat").set_value([]).run()
    at.multiselect(key="f_phase").set_value(["Day 1, vote on seat 5"]).run()
    assert len(queue_rows(at)) == 3
    assert "3 of 6 incidents" in texts(at)


def test_status_filter_follows_decisions_in_review_db(game):
    with ReviewStore.open(game / "review.db") as s:
        inc_id = json.loads((game / "analysis/incidents.json").read_text())["incidents"][0]["id"]
        s.decide(inc_id, "Boris", "side_judge", "rejected", "")
    at = app_on("queue", game)
    at.multiselect(key="f_status").set_value(["rejected"]).run()
    rows = queue_rows(at)
    assert len(rows) == 1 and "status **rejected**" in rows[0]
    at.multiselect(key="f_status").set_value(["open"]).run()
    assert len(queue_rows(at)) == 5


def test_opening_from_the_queue_selects_the_highest_impact_incident(game):
    at = app_on("queue", game)
    at.button(key=[b.key for b in at.button if b.key.startswith("open_")][0]).click().run()
    no_exceptions(at)
    assert at.session_state["incident_id"].startswith("miscount-")


def test_decision_is_written_to_review_db_and_shown(game):
    at = app_on("incident", game, name="Anna", role="chief_judge")
    inc_id = at.session_state["incident_id"]
    assert inc_id.startswith("miscount-")  # the first in priority order
    assert not (game / "review.db").exists()  # viewing creates nothing
    at.radio(key=f"verdict_{inc_id}").set_value("confirmed")
    at.text_area(key=f"note_{inc_id}").input("seat 6 fist lands at 7.3 s")
    at.button(key=f"FormSubmitter:decide_{inc_id}-Record decision").click().run()
    no_exceptions(at)
    with ReviewStore.open(game / "review.db") as s:
        d = s.current_decision(inc_id)
        log = s.audit_log("decide")
    assert d is not None
    assert (d.verdict.value, d.reviewer, d.role.value, d.note) == (
        "confirmed", "Anna", "chief_judge", "seat 6 fist lands at 7.3 s")
    assert [e.actor for e in log] == ["Anna"]
    assert any("Current decision: **confirmed** by Anna" in s.value for s in at.success)


def test_decision_needs_a_name(game):
    at = app_on("incident", game, name="")
    inc_id = at.session_state["incident_id"]
    at.button(key=f"FormSubmitter:decide_{inc_id}-Record decision").click().run()
    assert any("Enter your name" in e.value for e in at.error)
    assert not (game / "review.db").exists()


def test_frame_stepping_moves_by_exact_frames(game):
    at = app_on("incident", game)
    inc_id = at.session_state["incident_id"]
    key = f"frame_{inc_id}"
    start = at.session_state[key]
    assert start == round(6.2 * fixtures.FPS)  # the incident's t0
    at.button(key=f"step_1_{inc_id}").click().run()
    assert at.session_state[key] == start + 1
    at.button(key=f"step_{fixtures.FPS}_{inc_id}").click().run()
    assert at.session_state[key] == start + 1 + fixtures.FPS
    at.button(key=f"step_-1_{inc_id}").click().run()
    assert at.session_state[key] == start + fixtures.FPS
    assert f"**Frame {start + fixtures.FPS}**" in texts(at)
    end_key = [b.key for b in at.button if b.key.startswith("jump_end_")][0]
    at.button(key=end_key).click().run()
    assert at.session_state[key] == round(7.4 * fixtures.FPS)
    no_exceptions(at)


def test_incident_view_shows_the_rule_text_of_the_profile(game):
    at = app_on("incident", game)
    if "rule text is not available" in texts(at):
        pytest.skip("the rulebooks (../shared/seeds) are not beside this checkout")
    # MC 2.4.14 in the Maf Club 2023 rules is the non-voter default rule
    assert "2.4.14" in texts(at) and "vote" in texts(at).lower()


def test_incident_headline_shows_impact_confidence_and_clause_in_full(game):
    # st.metric cut "changes the result" and "MC 2.4.14 (...)" to one line with an ellipsis
    at = app_on("incident", game)
    no_exceptions(at)
    assert not at.metric, "the incident's headline values are not st.metric (it truncates them)"
    shown = [m.value for m in at.markdown]
    assert "**changes the result**" in shown          # the first incident: the miscount
    assert any(v.startswith("**MC 2.4.14") for v in shown), shown
    assert "**80%**" in shown


def _file_appeal(at, grounds, minutes_after):
    end = datetime(2026, 11, 1, 20, 0, tzinfo=timezone.utc)
    filed = end + timedelta(minutes=minutes_after)
    at.number_input(key="ap_seat").set_value(7)
    at.text_area(key="ap_grounds").input(grounds)
    at.date_input(key="ap_end_d").set_value(end.date())
    at.time_input(key="ap_end_t").set_value(end.time().replace(tzinfo=None))
    at.date_input(key="ap_filed_d").set_value(filed.date())
    at.time_input(key="ap_filed_t").set_value(filed.time().replace(tzinfo=None))
    at.button(key="FormSubmitter:file_appeal-File appeal").click().run()


def test_late_appeal_is_flagged(game):
    at = app_on("appeals", game, name="Boris", role="side_judge")
    _file_appeal(at, "my vote was not counted", minutes_after=20)
    no_exceptions(at)
    assert any("LATE" in w.value for w in at.warning)
    _file_appeal(at, "the judge declared victory early", minutes_after=10)
    assert any("in time" in s.value for s in at.success)
    with ReviewStore.open(game / "review.db") as s:
        appeals = s.appeals()
    assert [(a.filed_by_seat, a.late) for a in appeals] == [(7, True), (7, False)]
    at.run()
    assert "LATE" in texts(at) and "20 min after the end" in texts(at)


def test_only_the_chief_judge_can_rule(game):
    at = app_on("appeals", game, name="Boris", role="side_judge")
    _file_appeal(at, "seat 6 voted late", minutes_after=5)
    assert any("Only the chief judge" in w.value for w in at.warning)
    at.radio(key="ru_ruling").set_value("upheld")
    at.text_area(key="ru_reasons").input("I think so")
    at.button(key="FormSubmitter:rule_appeal-Record ruling").click().run()
    no_exceptions(at)
    assert any("only the chief judge may rule" in e.value for e in at.error)
    with ReviewStore.open(game / "review.db") as s:
        assert s.appeals()[0].rulings == ()
        assert s.audit_log("rule_appeal") == []

    chief = app_on("appeals", game, name="Anna", role="chief_judge")
    chief.radio(key="ru_ruling").set_value("result_changed")
    chief.text_area(key="ru_reasons").input("recount decides the game (001 4.20.2)")
    chief.button(key="FormSubmitter:rule_appeal-Record ruling").click().run()
    no_exceptions(chief)
    with ReviewStore.open(game / "review.db") as s:
        ap = s.appeals()[0]
    assert ap.status == "result_changed" and ap.ruling.reviewer == "Anna"


def test_appeal_attaches_incidents(game):
    at = app_on("appeals", game, name="Anna")
    inc_ids = [i["id"] for i in json.loads((game / "analysis/incidents.json").read_text())["incidents"]]
    at.multiselect(key="ap_attach").set_value(inc_ids[:2])
    _file_appeal(at, "miscount of candidate 5", minutes_after=3)
    with ReviewStore.open(game / "review.db") as s:
        assert set(s.appeals()[0].incident_ids) == set(inc_ids[:2])


def test_vote_grid_shows_the_recount_and_the_outcome_change(game):
    at = app_on("votes", game)
    no_exceptions(at)
    # announced 4:6 sends seat 8 out; the recount 5:5 ties 5 and 8
    assert any("seat 8 leaves (4:6)" in e.value and "seats 5, 8 tie (5:5)" in e.value for e in at.warning)


def test_the_vote_page_claims_no_outcome_from_a_recount_with_open_cells(game):
    # every cell abstained: the recount's 0:0 is a lower bound, not "seats 5, 8 tie"
    _nothing_judged(game)
    at = app_on("votes", game)
    no_exceptions(at)
    assert not any("Outcome impact" in str(w.value) for w in at.warning)
    assert any("The recount cannot say who left: 20 cell(s)" in str(i.value) for i in at.info)


def test_side_judge_verifies_a_vote_cell(game):
    at = app_on("votes", game, name="Boris", role="side_judge")
    at.selectbox(key="vg_call").set_value(0)
    at.selectbox(key="vg_seat").set_value(6)
    at.radio(key="vg_verdict").set_value("late")
    at.button(key="FormSubmitter:verify_cell-Record verification").click().run()
    no_exceptions(at)
    with ReviewStore.open(game / "review.db") as s:
        cells = s.current_verifications()
    assert [(c.round, c.pass_, c.candidate, c.voter_seat, c.verdict.value, c.reviewer)
            for c in cells] == [(0, 1, 5, 6, "late", "Boris")]


def test_organiser_cannot_verify_votes(game):
    at = app_on("votes", game, name="Olga", role="organiser")
    at.button(key="FormSubmitter:verify_cell-Record verification").click().run()
    assert any("Organisers cannot verify" in e.value for e in at.error)
    assert not (game / "review.db").exists()


def test_calibration_adjust_and_recheck(game):
    at = app_on("calibration", game)
    no_exceptions(at)
    assert any("calibration.json: usable: 10 seat regions inside the frame" in s.value for s in at.success)
    before = (game / "calibration.json").read_bytes()
    at.selectbox(key="cal_seat").set_value(3).run()
    at.number_input(key="cal_x_body_3").set_value(1200)  # 1200 + 220 > 1280: outside the frame
    at.button(key="FormSubmitter:adjust_body_3-Save and re-check").click().run()
    no_exceptions(at)
    assert any("calibration.json: refused" in e.value and "seat 3 body [1200, 30, 1420, 330] leaves the "
               "1280x720 frame" in e.value for e in at.error)
    doc = json.loads((game / "calibration.json").read_text())
    assert doc["cameras"]["cam1"]["seats"]["3"]["body"] == [1200, 30, 1420, 330]
    assert doc["confirmed_by"] == "Anna"
    assert (game / "calibration.json.bak").read_bytes() == before


def test_calibration_page_says_a_saved_guess_is_not_judged(game):
    # accepted as a guess in the app, the seats were shown as "usable" in green and nothing
    # said that the analysis would judge none of them
    from dataclasses import replace

    from vision.calibration import Proposed, load_calibration, save_calibration
    path = game / "calibration.json"
    cal = load_calibration(path)
    cam = next(iter(cal.cameras.values()))
    guess = Proposed(seen=True, zone_from="table_model", zone_error_px=None, guess=True)
    cam.seats[3] = replace(cam.seats[3], proposed=guess)
    save_calibration(cal, path)
    at = app_on("calibration", game)
    no_exceptions(at)
    shown = "\n".join(str(w.value) for w in at.warning)
    assert "seat 3: the seats are a guess (the check doubted the whole table): nothing is judged" in shown
    assert "seat 4" not in shown


def test_a_game_without_seats_yet_is_led_to_them_not_told_off(game):
    # a new game has no calibration: the next step, said as such (no red error)
    (game / "calibration.json").unlink()
    at = app_on("games", game)
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    assert any("Next: the seats." in i.value for i in at.info)
    assert at.button(key="run_analysis").disabled
    # no analysis has recorded which seat windows ran: nothing said of "the last analysis"
    assert "Seat windows of the last analysis" not in texts(at)
    from review.workspace import GameWorkspace
    GameWorkspace(game).appearance_model_path.write_text(json.dumps({"venue": None, "model_version": 0}))
    at = app_on("games", game)
    assert "Seat windows of the last analysis: the committed model" in texts(at)


def test_games_page_refuses_analysis_with_invalid_calibration(game):
    doc = json.loads((game / "calibration.json").read_text())
    del doc["cameras"]["cam1"]["seats"]["10"]
    (game / "calibration.json").write_text(json.dumps(doc))
    at = app_on("games", game)
    no_exceptions(at)
    if any("Analysis is unavailable" in i.value for i in at.info):
        pytest.skip("review.pipeline.analyze is not installed; nothing to refuse")
    assert any("The analysis is refused until the seats are calibrated" in e.value and "seat 10 has no region" in e.value
               for e in at.error)
    assert at.button(key="run_analysis").disabled


def test_audit_summarises_a_folder_of_games(template, tmp_path):
    g1 = copy_game(template, tmp_path, "game1")
    copy_game(template, tmp_path, "game2")
    with ReviewStore.open(g1 / "review.db") as s:
        s.file_appeal(3, "peek at night", reviewer="Anna", role="chief_judge")
    at = app_on("audit", g1, role="organiser")
    no_exceptions(at)
    df = at.dataframe[0].value
    assert list(df["game"]) == ["game1", "game2"]
    assert list(df["open appeals"]) == [1, 0]
    assert list(df["incidents"]) == [6, 6]
    assert list(df["status"]) == ["appeal open", "6 to review"]


def test_timeline_lists_phases_and_opens_incidents(game):
    at = app_on("timeline", game)
    no_exceptions(at)
    phases = at.selectbox(key="timeline_phase").options
    assert any("vote on 5" in p or "vote on seat 5" in p for p in phases)
    label = next(p for p in phases if "vote on 5" in p or "vote on seat 5" in p)
    at.selectbox(key="timeline_phase").set_value(label).run()
    buttons = [b for b in at.button if b.key.startswith("tl_open_")]
    # miscount (6.2), wrong form (6.6) and late vote (7.35) lie in the 6.2–7.4 s call
    assert {b.key.split("tl_open_")[1].split("-")[0] for b in buttons} == {"miscount", "wrong_form", "late_vote"}
    buttons[0].click().run()
    assert at.session_state["incident_id"] == buttons[0].key.split("tl_open_")[1]


def test_incident_without_time_or_seat_is_shown_without_frames(game):
    doc = json.loads((game / "analysis/incidents.json").read_text())
    audit_id = next(i["id"] for i in doc["incidents"] if i["type"] == "protocol_audit")
    at = app_on("incident", game, extra={"incident_id": audit_id})
    no_exceptions(at)
    assert not at.error
    assert "protocol audit · judge · —–—" in texts(at)
    assert any("No clip for this incident" in i.value for i in at.info)


@pytest.mark.slow
def test_landmarks_are_drawn_on_demand(game):
    at = app_on("incident", game)
    inc_id = at.session_state["incident_id"]
    assert not any("hand(s) found" in c.value for c in at.caption)
    at.toggle(key=f"lm_{inc_id}").set_value(True).run()
    no_exceptions(at)
    # the fixture's seats are flat colour: MediaPipe must find no hand there
    assert any("0 hand(s) found by MediaPipe" in c.value for c in at.caption)


def test_audit_exports_the_html_report(game):
    at = app_on("audit", game, role="organiser")
    assert not (game / "analysis" / "report.html").exists()
    at.button(key="audit_export_game1").click().run()
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    html = (game / "analysis" / "report.html").read_text()
    assert "miscount" in html.lower()
    assert at.get("download_button"), "no download button after the export"


@pytest.mark.parametrize("page", ["queue", "incident", "votes", "appeals"])
def test_a_foreign_review_db_is_reported_and_left_untouched(page, game):
    junk = b"SQLite format 3\x00" + b"\x00" * 200  # not a mafvar review database
    (game / "review.db").write_bytes(junk)
    at = app_on(page, game)
    no_exceptions(at)
    assert any("review.db" in e.value for e in at.error), [e.value for e in at.error]
    assert (game / "review.db").read_bytes() == junk


def test_a_damaged_incidents_file_is_a_warning_not_a_crash(game):
    (game / "analysis" / "incidents.json").write_text('{"format": "mafvar-incidents", "version": 1, "incidents": [{"id": 1}]}')
    at = app_on("queue", game)
    no_exceptions(at)
    assert any("incidents.json cannot be read" in w.value for w in at.warning)
    assert any("no incidents" in i.value for i in at.info)


def test_calibration_page_proposes_nothing_until_asked_and_renumbers_in_one_click(game):
    (game / "calibration.json").unlink()
    at = app_on("calibration", game)
    no_exceptions(at)
    assert any("This game has no calibration yet" in i.value for i in at.info)
    assert at.button(key="cal_propose").label == "Propose seats from the recording"
    assert not (game / "calibration.json").exists()


def test_calibration_page_renumbers_the_saved_seats(game):
    before = json.loads((game / "calibration.json").read_text())["cameras"]["cam1"]["seats"]
    at = app_on("calibration", game)
    at.selectbox(key="cal_saved_first").set_value(6).run()
    at.button(key="cal_saved_move").click().run()
    no_exceptions(at)
    after = json.loads((game / "calibration.json").read_text())
    assert after["cameras"]["cam1"]["seats"]["1"] == before["6"] and after["confirmed_by"] == "Anna"
    at.button(key="cal_saved_flip").click().run()
    flipped = json.loads((game / "calibration.json").read_text())["cameras"]["cam1"]["seats"]
    assert flipped["1"] == before["6"] and flipped["2"] == before["5"] and flipped["10"] == before["7"]


def test_votes_the_unread_seats_could_have_decided_are_on_the_first_page_and_the_vote_page(game):
    # analysis/stakes.json as review.stakes writes it: a vote whose record the picture
    # contradicts, one an unread seat could have decided, one it could not
    from review.recount_file import load_recount
    from review.stakes import STAKES_FILE, STAKES_FORMAT, STAKES_VERSION
    from review.workspace import ANALYSIS_STEPS, GameWorkspace
    ws = GameWorkspace(game)
    for step in ANALYSIS_STEPS:
        ws.mark_done(step, {})
    rnd = load_recount(ws.recount_path).calls[0].round
    clash = ("day 1, vote: seat 3 cannot be judged here (hand or face not read). The record lists seat 3 for 5, which with what "
             "the picture shows does not give its announced counts: its counts or its lists are wrong.")
    decides = "day 1, revote: seat 6 cannot be judged here (hand or face not read). If seat 6 voted for 5: seat 5 voted out."
    either = "day 9, vote: seat 4 cannot be judged here (dark); however seat 4 voted, seat 2 voted out."
    (ws.analysis_dir / STAKES_FILE).write_text(json.dumps({"format": STAKES_FORMAT, "version": STAKES_VERSION, "passes": [
        {"round": rnd + 8, "t0": 9.0, "decides": False, "text": either},
        {"round": rnd, "t0": 7.0, "decides": True, "record_fits": True, "text": decides},
        {"round": rnd, "t0": 5.0, "decides": True, "record_fits": False, "text": clash}]}), encoding="utf-8")
    at = app_on("games", game)
    no_exceptions(at)
    shown = "\n".join(str(w.value) for w in at.warning)
    assert "The record and the picture disagree** in 1 vote(s)" in shown and clash in shown
    assert decides not in shown and either not in texts(at)
    [box] = [e for e in at.expander if "1 other vote(s) where seats the picture could not judge" in e.label]
    assert decides in texts(box) and "the record agrees with what it saw" in box.label
    at = app_on("votes", game)
    no_exceptions(at)
    warned = [str(w.value) for w in at.warning]
    assert warned.index(clash) < warned.index(decides)


def test_a_vote_the_picture_judged_none_of_is_not_said_to_agree_with_the_record(game):
    # record_fits null: no cell of the vote was judged, so the record was checked against nothing
    from review.stakes import STAKES_FILE, STAKES_FORMAT, STAKES_VERSION
    from review.workspace import ANALYSIS_STEPS, GameWorkspace
    ws = GameWorkspace(game)
    for step in ANALYSIS_STEPS:
        ws.mark_done(step, {})
    text = "day 1, vote: seats 1, 2, 3 cannot be judged here (venue); too many readings to weigh."
    (ws.analysis_dir / STAKES_FILE).write_text(json.dumps({"format": STAKES_FORMAT, "version": STAKES_VERSION, "passes": [
        {"round": 0, "t0": 5.0, "decides": True, "record_fits": None, "text": text}]}), encoding="utf-8")
    at = app_on("games", game)
    no_exceptions(at)
    [box] = [e for e in at.expander if "vote(s) where seats the picture could not judge" in e.label]
    assert "agrees" not in box.label and "judged too little of them to check the record" in box.label


def test_vote_page_says_when_the_counts_come_from_the_records_ballots(game):
    from dataclasses import replace

    from review.recount_file import load_recount, save_recount
    from review.workspace import GameWorkspace
    ws = GameWorkspace(game)
    at = app_on("votes", game)
    assert "the count its ballots give" not in texts(at)
    rec = load_recount(ws.recount_path)
    save_recount(ws.recount_path, [replace(c, announced_from="ballots") for c in rec.calls], rec.game)
    at = app_on("votes", game)
    no_exceptions(at)
    assert "The record gives no counts" in texts(at) and "the count its ballots give" in texts(at)


def _nothing_judged(game) -> None:
    """The fixture as analysed where every cell of its two calls abstained (a venue the
    windows misread): steps done, recount cells unverified, the timeline naming the calls."""
    from dataclasses import replace

    from review.recount_file import load_recount, save_recount
    from review.workspace import ANALYSIS_STEPS, GameWorkspace
    ws = GameWorkspace(game)
    for step in ANALYSIS_STEPS:
        ws.mark_done(step, {})
    calls = load_recount(ws.recount_path).calls
    seats = list(range(1, 11))
    dark = [replace(c, voters=(), unverified=tuple((s, ("venue",)) for s in seats)) for c in calls]
    save_recount(ws.recount_path, dark, game={"profile": "mafclub-2023"})
    ws.timeline_path.write_text(json.dumps({"intervals": [
        {"kind": "vote_call", "key": f"r{c.round}.vote.p{c.pass_ - 1}.c{c.candidate}", "in_game": seats,
         "details": {"eligible": seats}} for c in calls]}), encoding="utf-8")


def test_games_page_says_no_incident_is_not_a_clean_game_when_little_was_judged(game):
    # the first page says how little the picture judged, not only "0 incidents to review"
    _nothing_judged(game)
    at = app_on("games", game)
    no_exceptions(at)
    shown = "\n".join(str(w.value) for w in at.warning)
    assert "Judged from the picture: 0 of 20 vote cells" in shown and "not mean a clean game" in shown


def test_the_queue_says_it_too_and_an_empty_queue_is_not_called_unanalysed(game):
    from review.incidents import save_incidents
    _nothing_judged(game)
    at = app_on("queue", game)
    no_exceptions(at)
    assert any("not mean a clean game" in str(w.value) for w in at.warning)
    save_incidents(game / "analysis" / "incidents.json", [], game={"profile": "mafclub-2023"})
    at = app_on("queue", game)
    no_exceptions(at)
    said = " ".join(str(i.value) for i in at.info)
    assert "no incident on the seats it could judge" in said and "not been analysed" not in said
    assert any("not mean a clean game" in str(w.value) for w in at.warning)