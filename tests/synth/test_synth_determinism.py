"""Same seed and options give byte-identical files; different seeds differ."""
from __future__ import annotations

from sample_videos.synth import SynthOptions, build_game, write_game


def _files(tmp_path, name, opts):
    out = tmp_path / name
    write_game(build_game(opts), out, video=False)
    return {f: (out / f).read_bytes() for f in ("protocol.json", "truth.json")}


def test_same_seed_same_bytes(tmp_path):
    a = _files(tmp_path, "a", SynthOptions(seed=11))
    b = _files(tmp_path, "b", SynthOptions(seed=11))
    assert a["protocol.json"] == b["protocol.json"]
    assert a["truth.json"] == b["truth.json"]


def test_same_options_with_injections_same_bytes(tmp_path):
    opts = SynthOptions(seed=12, inject=("peek", "late_vote", "miscount"), lighting="dim")
    assert _files(tmp_path, "a", opts) == _files(tmp_path, "b", opts)


def test_different_seeds_differ(tmp_path):
    a = _files(tmp_path, "a", SynthOptions(seed=11))
    b = _files(tmp_path, "b", SynthOptions(seed=13))
    assert a["protocol.json"] != b["protocol.json"]
    assert a["truth.json"] != b["truth.json"]
