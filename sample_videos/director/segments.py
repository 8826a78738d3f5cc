"""Flatten overlapping acts into one timeline per seat and layer.

Acts overlap by design (a mask lifted for a check inside the night's mask_on);
the flattened timeline is what the seat really shows at each instant: the
highest-priority act covering it, the latest-added on a tie, else the layer's
default state.
"""
from __future__ import annotations

from dataclasses import dataclass

from .model import DEFAULTS, LAYERS, Act


@dataclass(frozen=True)
class Segment:
    seat: int
    layer: str
    state: str
    t0: float
    t1: float
    params: tuple = ()

    def param(self, name: str, default=None):
        return dict(self.params).get(name, default)


def flatten(acts: list[Act], seat: int, layer: str, duration: float) -> list[Segment]:
    mine = [(k, a) for k, a in enumerate(acts) if a.seat == seat and a.layer == layer and a.t1 > a.t0]
    cuts = sorted({0.0, duration, *(min(max(a.t0, 0.0), duration) for _, a in mine),
                   *(min(max(a.t1, 0.0), duration) for _, a in mine)})
    out: list[Segment] = []
    for lo, hi in zip(cuts, cuts[1:]):
        if hi - lo < 1e-9:
            continue
        mid = (lo + hi) / 2
        covering = [(a.priority, k, a) for k, a in mine if a.t0 <= mid < a.t1]
        if covering:
            _, _, a = max(covering, key=lambda x: (x[0], x[1]))
            state, params = a.state, tuple(sorted(a.params.items()))
        else:
            state, params = DEFAULTS[layer], ()
        if out and out[-1].state == state and out[-1].params == params and abs(out[-1].t1 - lo) < 1e-9:
            prev = out[-1]
            out[-1] = Segment(seat, layer, state, prev.t0, hi, params)
        else:
            out.append(Segment(seat, layer, state, lo, hi, params))
    return out


def all_segments(acts: list[Act], duration: float) -> list[Segment]:
    return [seg for seat in range(1, 11) for layer in LAYERS
            for seg in flatten(acts, seat, layer, duration)]
