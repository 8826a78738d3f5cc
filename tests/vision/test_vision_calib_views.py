"""scripts/calib_views.py: the fixed camera views `mafvar calibrate` is tuned and
measured on are valid synth settings within the documented ranges, and the
tuning, evaluation and check views share no seed (no rendering here)."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def views(script):
    return script("calib_views")


def test_every_view_is_a_synth_setting_within_its_range_and_the_sets_are_apart(views):
    from mafvar.cli import build_parser
    from mafvar.commands.synth import options_from_args

    tune, held, check = views.VIEWS["tune"], views.VIEWS["eval"], views.VIEWS["check"]
    assert len(tune) >= 12 and len(held) >= 12 and len(check) >= 12
    assert not set(tune) & set(held) and not set(check) & (set(tune) | set(held))
    for seed, view in {**tune, **held, **check}.items():
        args = build_parser().parse_args(["synth", "--seed", str(seed), "--out", "/nonexistent",
                                          *views.synth_options(view)])
        cond = options_from_args(args).effective_conditions()
        height, fov, azimuth, resolution, light, crf = view
        assert cond.camera.height == pytest.approx(height) and cond.camera.fov == pytest.approx(fov)
        assert cond.camera.azimuth == pytest.approx(azimuth) and cond.light.level == pytest.approx(light)
        assert f"{cond.capture.width}x{cond.capture.height}" == resolution and cond.capture.crf == crf
    # the range, both ends, in the held-out views
    assert {1.6, 3.5} <= {v[0] for v in held.values()} and {30, 75} <= {v[1] for v in held.values()}
    assert {0, 90, 270} <= {v[2] for v in held.values()} and {45, 135, 225, 315} <= {v[2] for v in held.values()}
    # the check views: both ends too, every camera between the others' azimuths
    assert {1.6, 3.5} <= {v[0] for v in check.values()} and {30, 75} <= {v[1] for v in check.values()}
    assert not {v[2] for v in check.values()} & {v[2] for v in {**tune, **held}.values()}


def test_a_render_needs_its_set_and_folder(views, capsys):
    with pytest.raises(SystemExit):
        views.main(["render"])
    assert "needs a set" in capsys.readouterr().err
