"""The nasty cases found by hand (issue #18), kept as regression files, and the huge ones.

Every case goes through the real command a user would run and must end in
exit 2 with a message naming the limit. Files in tests/fuzz/corpus/ are
inputs of our own (protocols, calibrations); `*.patch.json` files are
changes applied to the real platform records in ../shared/formats (those are
read where they are, never copied into the repo). The huge inputs (a 50 MB
protocol of 1.3 million events, a record of the same size, nesting 100,000
deep) are generated here rather than committed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz_kinds import ROOT, SAMPLE, SHARED, run_cli

CORPUS = Path(__file__).parent / "corpus"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))


def build(name: str) -> bytes:
    if not name.endswith(".patch.json"):
        return (CORPUS / name).read_bytes()
    patch = json.loads((CORPUS / name).read_text(encoding="utf-8"))
    base = json.loads((SHARED / "formats" / patch["base"]).read_text(encoding="utf-8"))
    for path, value in patch.get("set", []):
        node = base
        for key in path[:-1]:
            node = node[key]
        if isinstance(value, dict) and "repeat" in value:
            value = [value["repeat"]] * value["times"]
        node[path[-1]] = value
    text = json.dumps(base, ensure_ascii=True)
    if "replace_text" in patch:
        old, new = patch["replace_text"]
        text = text.replace(old, new, 1)
    return text.encode("ascii")


def refused(argv: list[str]) -> str:
    code, out, err = run_cli(argv)
    assert code == 2, (argv, out[-500:], err[-500:])
    return out + err


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_case_is_refused_by_name(name, tmp_path):
    case = EXPECTED[name]
    raw = build(name)
    command = case["command"]
    if command == "check":
        path = tmp_path / "protocol.json"
        path.write_bytes(raw)
        code, out, _ = run_cli(["protocol", "check", str(path), "--json"])
        assert code == 2
        messages = " ".join(i["message"] for i in json.loads(out)["issues"])
        assert case["message"] in messages, messages
    elif command.startswith("import:"):
        path = tmp_path / "record.json"
        path.write_bytes(raw)
        out = tmp_path / "out.json"
        text = refused(["protocol", "import", "--from", command.split(":")[1], str(path), "-o",
                        str(out)])
        assert case["message"] in text, text
        assert len(text.strip().splitlines()) == 1 and not out.exists()
    elif command == "calibration":
        ws = tmp_path / "game"
        ws.mkdir()
        (ws / "protocol.json").write_bytes((SAMPLE / "protocol.json").read_bytes())
        os.link(SAMPLE / "video.mp4", ws / "video.mp4")  # the committed sample's recording
        (ws / "calibration.json").write_bytes(raw)
        text = refused(["analyze", str(ws)])
        assert case["message"] in text and "calibration.json" in text, text
        assert not (ws / "analysis" / "incidents.json").exists()
    else:
        raise AssertionError(f"unknown command {command!r} in expected.json")


def _huge_protocol(n_events: int) -> bytes:
    head = json.loads((SAMPLE / "protocol.json").read_text(encoding="utf-8"))
    head["events"] = []
    text = json.dumps(head)[:-2]  # ... "events": [
    event = '{"type": "note", "text": "a judge\'s note, long enough"}, '
    return (text + event * (n_events - 1) + event[:-2] + "]}").encode()


def test_a_50_mb_protocol_of_1_3_million_events_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.json"
    path.write_bytes(_huge_protocol(1_300_000))
    assert path.stat().st_size > 50 * 1024 * 1024 * 0.9
    code, out, _ = run_cli(["protocol", "check", str(path)])
    assert code == 2 and "over the limit of 2.0 MB" in out, out[-300:]
    text = refused(["synth", "--seed", "1", "--out", str(tmp_path / "x"), "--protocol", str(path)])
    assert "over the limit of 2.0 MB" in text


def test_a_50_mb_record_is_refused_before_reading(tmp_path):
    base = json.loads((SHARED / "formats" / "mafiaratings" / "game_4842.json").read_text())
    base["comment"] = "x" * (50 * 1024 * 1024)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(base))
    text = refused(["protocol", "import", "--from", "mafiaratings", str(path), "-o",
                    str(tmp_path / "o.json")])
    assert "over the limit of 2.0 MB" in text


def test_more_events_than_the_limit_within_the_size_limit(tmp_path):
    path = tmp_path / "many.json"
    path.write_bytes(_huge_protocol(5_001))
    code, out, _ = run_cli(["protocol", "check", str(path), "--json"])
    assert code == 2
    assert "protocol has 5,001 events, over the limit of 5,000" in out


def test_nesting_100000_deep_is_refused(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    code, out, _ = run_cli(["protocol", "check", str(path)])
    assert code == 2 and "nested more than 32 levels deep" in out
    text = refused(["protocol", "import", "--from", "polemica", str(path), "-o",
                    str(tmp_path / "o.json")])
    assert "nested more than 32 levels deep" in text


def test_lone_surrogates_and_odd_file_names_print_in_a_real_terminal_stream(tmp_path):
    """Through a real process and pipe: stdout is strict UTF-8 there, unlike in-process."""
    odd = os.fsencode(tmp_path) + b"/\xff\xfe-protocol.json"
    with open(odd, "wb") as f:
        f.write(b'{"format": "mafvar-protocol", "version": 1, "seats": "\\ud800", "events": []}')
    env = dict(os.environ, PYTHONPATH=str(ROOT), LC_ALL="C.UTF-8")
    env.pop("PYTHONIOENCODING", None)
    proc = subprocess.run([sys.executable, "-m", "mafvar", "protocol", "check", odd],
                          capture_output=True, env=env, timeout=120)
    out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    assert proc.returncode == 2, err
    assert "Traceback" not in err and "lone surrogate \\ud800" in out
    proc = subprocess.run([sys.executable, "-m", "mafvar", "protocol", "check", odd + b".gone"],
                          capture_output=True, env=env, timeout=120)
    out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    assert proc.returncode == 2 and "Traceback" not in err
    assert "\\udcff\\udcfe-protocol.json.gone: no such file" in out
    missing = os.fsencode(tmp_path) + b"/\xff-record.json"
    proc = subprocess.run([sys.executable, "-m", "mafvar", "protocol", "import", "--from",
                           "polemica", missing, "-o", os.fsencode(tmp_path) + b"/o.json"],
                          capture_output=True, env=env, timeout=120)
    err = proc.stderr.decode("utf-8")
    assert proc.returncode == 2 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "no such file" in err
