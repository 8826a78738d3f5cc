"""A record that does not fit the recording is found before any incident is raised."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.timeline import Interval, Kind
from review.align import Alignment, Mark, PlacedInterval
from review.incidents import Incident, IncidentType, Phase, Source
from review.record_fit import MIN_BALLOT_AGREEMENT, CallFit, RecordFit, measure_fit
from review.recount import CallRecount, VoterVerdict

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_videos" / "demo"


def call(key: str, recorded, seen, found=True) -> CallFit:
    return CallFit(key, tuple(recorded), tuple(seen), found)


def test_ballots_seen_decide_whether_the_record_fits():
    right = RecordFit(8, 7, [call("r0.vote.p0.c9", [1, 3, 8, 9, 10], [1, 3, 8, 9, 10]),
                             call("r0.vote.p0.c7", [2, 4, 6, 7], [2, 4, 6])], {})
    assert right.fits and right.ballot_agreement == pytest.approx(8 / 9)
    other = RecordFit(8, 7, [call("r0.vote.p0.c9", [2, 5, 6], [1, 3, 8, 9, 10]),
                             call("r0.vote.p0.c7", [1, 3, 4, 7], [2, 4, 6])], {})
    assert other.ballot_agreement < MIN_BALLOT_AGREEMENT and not other.fits
    assert "does not fit this recording" in other.message
    # too few marks found fails it as well, even without ballots to compare
    assert not RecordFit(12, 2, [], {}).fits
    # one call is no evidence either way
    assert RecordFit(8, 7, [call("r0.vote.p0.c9", [2, 5], [1, 3])], {}).ballot_agreement is None


def test_a_recording_with_no_mark_of_the_record_is_not_called_a_fit():
    # a clip that ends before the record's first nightfall: nothing was compared
    empty = RecordFit(0, 0, [], {})
    assert "could not be checked" in empty.message and "fits the recording" not in empty.message
    assert "fits the recording" in RecordFit(8, 8, [], {}).message


def _interval(kind, key, t0, t1, event=None):
    return Interval(kind, key, key, int(key.split(".")[0][1:]), t0, t1, event)


def _two_calls(first: Interval, last: Interval, source: str, lists):
    """Two vote calls of one pass placed from `source` at their starts, and a record (events
    2 and 3) listing `lists` as their voters."""
    alignment = Alignment(tuple(PlacedInterval(iv, 0.9, source) for iv in (first, last)), None,
                          {f"vote_call:{iv.key}": Mark("vote_call", iv.t0, 0.9, source) for iv in (first, last)},
                          ())

    class Proto:
        events = [None, None] + [type("V", (), {"voters": tuple(v)})() for v in lists]

    return alignment, Proto()


def test_video_incidents_are_withheld_outside_placed_phases_and_protocol_ones_kept():
    night = _interval(Kind.NIGHT, "r1.night", 90.0, 116.0)
    vote = _interval(Kind.VOTE_CALL, "r0.vote.p0.c9", 56.0, 59.0, 3)
    placements = (PlacedInterval(night, 0.9, "audio"), PlacedInterval(vote, 0.9, "audio"))
    alignment = Alignment(placements, None, {"vote_call:r0.vote.p0.c9": Mark("vote_call", 56.0, 0.9, "audio"),
                                             "nightfall:r1.night": Mark("nightfall", 90.0, 0.9, "audio")}, ())

    class Proto:
        events = [None, None, None, type("V", (), {"voters": (2, 5)})()]

    rc = CallRecount("r0.vote.p0.c9", 0, 0, 9, 3, 56.0, 57.0, 59.0, None, 5,
                     [VoterVerdict(s, True, "in_window", t_place=57.5) for s in (1, 3, 8, 9, 10)], [])
    fit = measure_fit(Proto(), alignment, [rc])      # type: ignore[arg-type]
    assert fit.calls[0].agreement == 0.0
    assert fit.placed == {"r1.night": True, "r0.vote.p0.c9": False}
    inc = [Incident(f"i{k}", t, (9,), t0, t0 + 1, Phase("x", key), 0.9, source=src)
           for k, (t, t0, key, src) in enumerate([
               (IncidentType.EARLY_VOTE, 56.5, "r0.vote.p0.c9", Source.VIDEO),
               (IncidentType.PEEK, 100.0, "r1.night", Source.VIDEO),
               (IncidentType.MISCOUNT, 57.0, "r0.vote.p0.c9", Source.PROTOCOL)])]
    kept = fit.keep(inc, [night, vote])
    assert [i.id for i in kept] == ["i1", "i2"]
    assert [w["id"] for w in fit.withheld] == ["i0"] and fit.withheld[0]["why"] == "phase not placed"
    assert fit.to_json()["format"] == "mafvar-record-fit"


def test_seats_whose_zone_could_not_be_judged_say_nothing_of_the_ballots():
    # seats 2, 4, 6 voted; their fists only the zone window saw (abstained, review.view); in the
    # last call their cells are decided by the default rule, so the recount does not list them
    alignment, proto = _two_calls(_interval(Kind.VOTE_CALL, "r0.vote.p0.c9", 56.0, 59.0, 2),
                                  _interval(Kind.VOTE_CALL, "r0.vote.p0.c7", 60.0, 63.0, 3),
                                  "audio", [(1, 3), (2, 4, 6, 7)])
    rcs = [CallRecount("r0.vote.p0.c9", 0, 0, 9, 2, 56.0, 57.0, 59.0, None, 2,
                       [VoterVerdict(s, True, "in_window", t_place=57.5) for s in (1, 3)], []),
           CallRecount("r0.vote.p0.c7", 0, 0, 7, 3, 60.0, 61.0, 63.0, None, 4,
                       [VoterVerdict(7, True, "in_window", t_place=61.5)], [2, 4, 6])]
    blind = measure_fit(proto, alignment, rcs)      # type: ignore[arg-type]
    assert blind.ballot_agreement == pytest.approx(3 / 6) and not blind.fits
    unseen = {"r0.vote.p0.c7": {2: ("unread",), 4: ("unread",), 6: ("unread",)}}
    fit = measure_fit(proto, alignment, rcs, unseen=unseen)      # type: ignore[arg-type]
    assert fit.ballot_agreement == 1.0 and fit.fits
    assert fit.calls[1].recorded == (7,) and fit.calls[1].seen == (7,)


@pytest.mark.slow
@pytest.mark.skipif(not (SAMPLE / "video.mp4").is_file(), reason="the committed sample is not built")
def test_another_games_record_against_the_sample_video_raises_no_incident(tmp_path, capsys):
    from mafvar.cli import main
    other = tmp_path / "other"
    assert main(["synth", "--seed", "8", "--no-video", "--out", str(other)]) == 0
    results = {}
    for name, protocol in (("own", SAMPLE / "protocol.json"), ("another", other / "protocol.json")):
        ws = tmp_path / name
        ws.mkdir()
        for f in ("video.mp4", "calibration.json"):
            (ws / f).symlink_to(SAMPLE / f)
        shutil.copy(protocol, ws / "protocol.json")
        capsys.readouterr()
        assert main(["analyze", str(ws), "--phase", "r0.vote", "--json"]) == 0
        stats = json.loads(capsys.readouterr().out)
        doc = json.loads((ws / "analysis" / "incidents.json").read_text())
        results[name] = (stats["record_fit"], [i for i in doc["incidents"] if i["source"] == "video"],
                         doc["game"]["record_fit"])
        recounted = json.loads((ws / "analysis" / "recount.json").read_text())["calls"]
        results[name + " cells"] = [(c["candidate"], {u["seat"]: u["why"] for u in c["unverified"]})
                                    for c in recounted]
    own_fit, own_video, _ = results["own"]
    assert own_fit["fits"] and own_fit["ballot_agreement"] >= 0.8
    assert own_video, "the sample's own record finds the injected day-1 vote fouls"
    fit, video, in_file = results["another"]
    assert not fit["fits"] and fit["ballot_agreement"] < MIN_BALLOT_AGREEMENT
    assert "does not fit this recording" in fit["message"]
    assert video == []
    assert in_file["fits"] is False
    # the fists seen are not that record's ballots: no cell is counted from them
    assert results["another cells"] and all(len(open_) >= 9 and all(w == ["record_does_not_fit"]
                                                                    for w in open_.values())
                                            for _, open_ in results["another cells"])
    assert all("record_does_not_fit" not in str(open_) for _, open_ in results["own cells"])


def test_a_night_the_record_gives_without_calls_is_not_judged():
    """A platform record has no wakes and no shooting calls: a mafioso opening their eyes at
    the agreement would read as a peek. Those nights' video fouls are withheld, saying why;
    the mask going on at nightfall is still judged, and a night with its calls is too."""
    deal = _interval(Kind.NIGHT, "r0.night", 2.0, 20.0)
    masking = _interval(Kind.MASKING, "r0.masking", 2.0, 5.0)
    night1 = Interval(Kind.NIGHT, "r1.night", "r1.night", 1, 86.0, 116.0, None)
    shoot1 = Interval(Kind.SHOOTING, "r1.shoot", "r1.shoot", 1, 90.0, 105.0, None)
    call1 = Interval(Kind.SHOOTING_CALL, "r1.shoot.s1", "r1.shoot.s1", 1, 91.0, 92.0, None)
    night2 = Interval(Kind.NIGHT, "r2.night", "r2.night", 2, 168.0, 196.0, None)
    shoot2 = Interval(Kind.SHOOTING, "r2.shoot", "r2.shoot", 2, 172.0, 184.0, None)
    ivs = [deal, masking, night1, shoot1, call1, night2, shoot2]
    alignment = Alignment(tuple(PlacedInterval(iv, 0.9, "audio") for iv in ivs), None,
                          {f"nightfall:{iv.key}": Mark("nightfall", iv.t0, 0.9, "audio")
                           for iv in (deal, night1, night2)}, ())

    class Proto:
        events: list = []

    fit = measure_fit(Proto(), alignment, [])      # type: ignore[arg-type]
    assert fit.placed["r0.masking"] and fit.placed["r1.night"] and fit.placed["r1.shoot"]
    assert not fit.placed["r0.night"] and not fit.placed["r2.night"] and not fit.placed["r2.shoot"]
    inc = [Incident(f"i{k}", t, (s,), t0, t0 + 1, Phase("x", key), 0.9, source=Source.VIDEO)
           for k, (t, s, t0, key) in enumerate([
               (IncidentType.PEEK, 7, 6.0, "r0.night"), (IncidentType.MASK_LATE, 8, 3.0, "r0.masking"),
               (IncidentType.PEEK, 2, 95.0, "r1.night"), (IncidentType.NIGHT_POSE, 1, 173.0, "r2.night")])]
    kept = fit.keep(inc, ivs)
    assert [i.id for i in kept] == ["i1", "i2"]
    assert [w["id"] for w in fit.withheld] == ["i0", "i3"]
    assert "no wake for the deal night" in fit.withheld[0]["why"]
    assert "no seat called at the shooting" in fit.withheld[1]["why"]
    assert "the deal night, night 2" in fit.message and "no night foul is judged there" in fit.message


def test_a_night_placed_from_a_doubted_nightfall_judges_no_mask_there():
    """The full-length record imported: the last night's nightfall was taken from an
    utterance the order of events alone put there (44 s early), and its masking window
    opened at it raised four late masks. Every phase of that night is withheld, saying why;
    the night before, placed from a mark, is judged."""
    night4 = _interval(Kind.NIGHT, "r4.night", 2904.6, 2942.0)
    masking4 = _interval(Kind.MASKING, "r4.masking", 2904.6, 2907.6)
    night5 = _interval(Kind.NIGHT, "r5.night", 3437.3, 3518.5)
    masking5 = _interval(Kind.MASKING, "r5.masking", 3437.3, 3440.3)
    check5 = _interval(Kind.DON_CHECK, "r5.don_check", 3464.4, 3491.5)
    day5 = _interval(Kind.DAY, "r5.day", 3518.5, 3550.7)
    placements = (PlacedInterval(night4, 0.9, "video"), PlacedInterval(masking4, 0.9, "video"),
                  PlacedInterval(night5, 0.3, "interpolated"), PlacedInterval(masking5, 0.3, "interpolated"),
                  PlacedInterval(check5, 0.3, "interpolated"), PlacedInterval(day5, 0.8, "speech"))
    why = "heard only where the order of events put it (no mark of the picture near)"
    alignment = Alignment(placements, None, {"nightfall:r4.night": Mark("nightfall", 2904.6, 0.9, "video"),
                                             "morning:r5.night": Mark("morning", 3518.5, 0.8, "video")},
                          ("nightfall:r5.night",), {"nightfall:r5.night": why})

    class Proto:
        events: list = []

    fit = measure_fit(Proto(), alignment, [])      # type: ignore[arg-type]
    assert fit.placed["r4.night"] and fit.placed["r4.masking"] and fit.placed["r5.day"]
    assert not fit.placed["r5.night"] and not fit.placed["r5.masking"] and not fit.placed["r5.don_check"]
    inc = [Incident(f"i{k}", IncidentType.MASK_LATE, (s,), t0, t0 + 1, Phase("x", key), 1.0, source=Source.VIDEO)
           for k, (s, t0, key) in enumerate([(4, 3440.5, "r5.masking"), (6, 3440.5, "r5.masking"),
                                             (7, 2907.8, "r4.masking")])]
    kept = fit.keep(inc, [p.interval for p in placements])
    assert [i.id for i in kept] == ["i2"]
    assert [w["id"] for w in fit.withheld] == ["i0", "i1"] and why in fit.withheld[0]["why"]


def test_a_fist_for_the_last_candidate_the_record_counted_by_default_agrees_with_it():
    """The full-length game's day 5: the judge listed nobody for the last candidate and
    counted seat 1 there by default (announced 1); the picture saw seat 1's fist there.
    Where the profile counts a non-voter for the last candidate that agrees with the record;
    a seat the record lists for another candidate seen there still does not."""
    alignment, proto = _two_calls(_interval(Kind.VOTE_CALL, "r4.vote.p0.c1", 3326.0, 3329.0, 2),
                                  _interval(Kind.VOTE_CALL, "r4.vote.p0.c7", 3333.8, 3336.5, 3),
                                  "speech", [(4, 6), ()])
    def recounts(last_seen):
        return [CallRecount("r4.vote.p0.c1", 4, 0, 1, 2, 3326.0, 3327.0, 3329.0, 2, 2,
                            [VoterVerdict(s, True, "in_window", t_place=3327.5) for s in (4, 6)], []),
                CallRecount("r4.vote.p0.c7", 4, 0, 7, 3, 3333.8, 3334.8, 3336.5, 1, 1,
                            [VoterVerdict(s, True, "in_window", t_place=3335.0) for s in last_seen], [])]

    as_before = measure_fit(proto, alignment, recounts((1,)))      # type: ignore[arg-type]
    assert as_before.calls[1].agreement == 0.0 and not as_before.placed["r4.vote.p0.c7"]
    fit = measure_fit(proto, alignment, recounts((1,)), default_last=True)      # type: ignore[arg-type]
    assert fit.calls[1].agreement == 1.0 and fit.placed["r4.vote.p0.c7"] and fit.placed["r4.vote.p0.c1"]
    other = measure_fit(proto, alignment, recounts((6,)), default_last=True)      # type: ignore[arg-type]
    assert other.calls[1].agreement == 0.0 and not other.placed["r4.vote.p0.c7"]
