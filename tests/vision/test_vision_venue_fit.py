"""Fine-tuning a window on a venue's examples (vision.training.venue_fit) and the replay sample."""
import numpy as np

from vision.replay import load_replay_sample, stratified, write_replay_sample
from vision.training.venue_fit import Examples, agreement, fine_tune, pooled_statistics, recentre
from vision.training.window_fit import fit


def _base():
    """A two-class window trained on a 'committed' look: class a near 0, b near 3."""
    rng = np.random.default_rng(0)
    x = np.r_[rng.normal(0, 1, (300, 6)), rng.normal(3, 1, (300, 6))].astype(np.float32)
    y = np.array(["a"] * 300 + ["b"] * 300)
    return fit(x, y, ("a", "b"), hidden=16, epochs=20), x, y


def test_recentring_keeps_the_function_and_moves_the_distance():
    m, x, _ = _base()
    r = recentre(m, m.mean + 5.0, m.scale * 2.0)
    assert np.allclose(r.proba(x[:20]), m.proba(x[:20]), atol=1e-4)
    assert not np.allclose(r.mean, m.mean)


def test_pooled_statistics_lie_between_the_committed_data_and_the_venue():
    m, _, _ = _base()
    venue = np.random.default_rng(1).normal(10, 1, (50, 6)).astype(np.float32)
    mean, scale = pooled_statistics(m, venue)
    assert np.all(mean > m.mean) and np.all(mean < venue.mean(axis=0))
    assert np.all(scale > m.scale)


def test_fine_tuning_learns_the_venue_look_and_keeps_the_committed_one():
    m, x, y = _base()
    rng = np.random.default_rng(2)
    # the venue: its 'a' looks like the committed 'b' shifted in one feature (a dim hall)
    va = rng.normal(3, 1, (60, 6)).astype(np.float32)
    va[:, 0] -= 6.0
    vb = rng.normal(3, 1, (60, 6)).astype(np.float32)
    ex = Examples(np.r_[va, vb], np.r_[np.zeros(60, int), np.ones(60, int)], np.zeros(120, bool),
                  np.ones(120, np.float32))
    before = agreement(m, ex)
    tuned = fine_tune(m, x[::3], y[::3], ex, epochs=60, lr=2e-3)
    assert agreement(tuned, ex) > before and agreement(tuned, ex) > 0.9
    kept = (np.array(tuned.classes)[tuned.proba(x).argmax(1)] == y).mean()
    assert kept > 0.95                                   # nothing forgotten


def test_a_denial_pushes_its_class_down_without_naming_another():
    m, x, y = _base()
    rng = np.random.default_rng(3)
    xb = rng.normal(3, 1, (80, 6)).astype(np.float32)   # the committed model says b here
    deny = Examples(xb, np.ones(80, int), np.ones(80, bool), np.ones(80, np.float32))
    assert agreement(m, deny) < 0.2
    tuned = fine_tune(m, x[::3], y[::3], deny, epochs=60, lr=2e-3)
    assert agreement(tuned, deny) > 0.8


def test_the_replay_sample_is_stratified_and_round_trips(tmp_path):
    rng = np.random.default_rng(0)
    y = np.array(["a"] * 500 + ["b"] * 20)
    keep = stratified(y, 100, rng)
    assert (y[keep] == "a").sum() == 100 and (y[keep] == "b").sum() == 20
    x = rng.normal(0, 1, (520, 8)).astype(np.float32)
    games = [{"x": {"head": x, "zone": x[:0], "body": x[:0]}, "y": {"head": y, "zone": y[:0], "body": y[:0]}}]
    counts = write_replay_sample(tmp_path / "r.npz", games, 100, {"seeds": [1]})
    assert counts == {"head": {"a": 100, "b": 20}}
    back = load_replay_sample(tmp_path / "r.npz")
    # bytes per feature: within 1/255 of the range
    i = np.flatnonzero(y == "b")[:5]
    rows = {tuple(np.round(r, 1)) for r in back.x["head"]}
    assert all(min(np.abs(back.x["head"] - x[j]).max(axis=1)) < (x.max(0) - x.min(0)).max() / 255 + 1e-5
               for j in i) and rows


def test_the_committed_replay_sample_covers_every_window_class():
    from vision.appearance import committed_models
    sample = load_replay_sample()
    for kind, model in committed_models().items():
        assert set(sample.y[kind]) == set(model.classes), kind
        assert sample.x[kind].shape[1] == len(model.mean)
