"""Every generated protocol passes `mafvar protocol check`, except for the judge
errors injected on purpose, which the check must report."""
from __future__ import annotations

import json

import pytest

from mafvar.cli import main

# Each judge error the director can inject into the record, and the issue code
# the engine's check must raise for it. The miscount is invisible in the
# record by design (a missed fist counted as a default vote), so it maps to none.
JUDGE_ERROR_ISSUES = {"protocol_audit": {"raise_forbidden"}, "miscount": set()}


def _check(tmp_path, capsys, game) -> tuple[int, dict]:
    path = tmp_path / "protocol.json"
    path.write_text(json.dumps(game.protocol))
    capsys.readouterr()
    rc = main(["protocol", "check", str(path), "--json"])
    return rc, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("key", [("default", 7), ("default", 8), ("default", 21), ("A", 3), ("B", 4), ("random", 5)])
def test_check_reports_only_injected_judge_errors(tmp_path, capsys, games, key):
    game = games[key]
    rc, out = _check(tmp_path, capsys, game)
    assert rc == 0 and out["valid"], out["issues"]
    expected = set().union(*(JUDGE_ERROR_ISSUES.get(n, set()) for n in game.injections))
    reported = {i["code"] for i in out["issues"] if i["severity"] in ("error", "audit")}
    assert reported == expected


def test_forbidden_raise_is_reported_at_the_raise(tmp_path, capsys, games):
    game = games[("A", 3)]
    _, out = _check(tmp_path, capsys, game)
    raise_events = [i for i, ev in enumerate(game.protocol["events"]) if ev["type"] == "raise_vote"]
    audits = [i for i in out["issues"] if i["code"] == "raise_forbidden"]
    assert len(raise_events) == 1 and [a["event"] for a in audits] == raise_events
    violation = [v for v in game.truth["violations"] if v["type"] == "protocol_audit"]
    assert violation and violation[0]["details"]["event"] == raise_events[0]


def test_engine_exits_follow_the_judge_not_the_fists(tmp_path, capsys, sample_game):
    """The game continues as the judge ruled: the engine's day exit on the
    miscounted day is the judge's leader, not the seat the fists eliminate."""
    _, out = _check(tmp_path, capsys, sample_game)
    mis = next(v for v in sample_game.truth["violations"] if v["type"] == "miscount")
    judged = [int(s) for s in mis["details"]["judge_outcome"]]
    true = [int(s) for s in mis["details"]["true_outcome"]]
    day_exits = [e["seat"] for e in out["exits"] if e["type"] == "day"]
    assert judged[0] in day_exits
    assert true[0] not in day_exits
