"""A vote heard: the judge's calls and thank-yous, one after the other.

Every rulebook has the judge call a vote the same way: "who votes against
number N", the window, "thank you", a short pause, the next call. Heard as
utterances (vision.audio.speech_segments) a vote is a *run*: call-shaped and
thank-you-shaped utterances alternating, each "thank you" a window after its
call (the same window at every call: the judge counts it), each next call a moment after the "thank you", nothing said in between.
A run has as many calls as the vote has candidates, which a protocol without
times still says. Players' talk seldom makes such a run, and almost never one
of the right length where the order of events puts a vote: this is what
places a vote's calls when the picture cannot (small or blurred hands) and the
protocol has no times (docs/vision.md "Alignment").
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import median
from typing import Protocol, Sequence


class Utterance(Protocol):
    @property
    def t(self) -> float: ...
    @property
    def t_end(self) -> float | None: ...
    @property
    def confidence(self) -> float: ...


@dataclass(frozen=True)
class Heard:
    """Utterances heard as one ("thank you" split in two at its stop)."""
    t: float
    t_end: float | None
    confidence: float


@dataclass(frozen=True)
class RunShape:
    """How the judge's vote sounds (seconds)."""
    call: tuple[float, float]          # a call's length
    thanks: tuple[float, float]        # "thank you"'s length
    thanks_after: tuple[float, float]  # from a call's end to its "thank you"
    next_call: float                   # from "thank you"'s end to the next call, at most
    window_jitter: float = 0.3         # a judge counts the same window at every call of a vote
    window_usual: float = 1.5          # "about 1.5 s" (rules-spec: MC 2.4.7), a judge's own may differ
    window_spread: float = 1.0         # how far a judge's own window is from the usual one, roughly
    joined: float = 0.35               # utterances this close are one (the stop in "thank you", "спасибо")


@dataclass(frozen=True)
class Run:
    """Utterances heard as one vote: `calls[k]` and its `thanks[k]`."""
    calls: tuple[Utterance, ...]
    thanks: tuple[Utterance, ...]

    @property
    def t0(self) -> float:
        return self.calls[0].t

    @property
    def t1(self) -> float:
        last = self.thanks[-1]
        return last.t_end if last.t_end is not None else last.t

    @property
    def confidence(self) -> float:
        us = self.calls + self.thanks
        return sum(u.confidence for u in us) / len(us)


def _length(u: Utterance) -> float | None:
    return None if u.t_end is None else u.t_end - u.t


def _is(u: Utterance, span: tuple[float, float]) -> bool:
    d = _length(u)
    return d is not None and span[0] <= d <= span[1]


def vote_runs(utterances: Sequence[Utterance], shape: RunShape, like_the_judge: bool = True) -> list[Run]:
    """Every run of consecutive utterances that sounds like a vote, from each call-shaped
    utterance a "thank you" follows, as long as it goes on (runs may overlap: one
    starting at the candidates read out, one at the first call; `assign_runs` sorts
    out which fits). `like_the_judge`: only the runs at the judge's window as the runs
    alone give it (`judge_window_of`); False: all (`judge_window_for` picks the window
    with the record's votes)."""
    us = sorted((u for u in utterances if u.t_end is not None), key=lambda u: u.t)
    out = []
    for k in range(len(us)):
        calls: list[Utterance] = []
        thanks: list[Utterance] = []
        i = k
        while i + 1 < len(us) and _is(us[i], shape.call) and _is(us[i + 1], shape.thanks):
            gap = us[i + 1].t - (us[i].t_end or us[i].t)
            if not shape.thanks_after[0] <= gap <= shape.thanks_after[1]:
                break
            if calls and abs(gap - (thanks[0].t - (calls[0].t_end or calls[0].t))) > shape.window_jitter:
                break
            if thanks and us[i].t - (thanks[-1].t_end or thanks[-1].t) > shape.next_call:
                break
            calls.append(us[i])
            said = us[i + 1]
            i += 2
            # "thank you" heard in two (its stop): the fragment right after it is part of it
            while i < len(us) and said.t_end is not None and us[i].t - said.t_end <= shape.joined \
                    and (us[i].t_end or us[i].t) - us[i].t < shape.call[0] \
                    and (us[i].t_end or us[i].t) - said.t <= shape.thanks[1]:
                said = Heard(said.t, us[i].t_end, said.confidence)
                i += 1
            thanks.append(said)
        if calls:
            out.append(Run(tuple(calls), tuple(thanks)))
    # a run that goes on from another's call is that run's tail, not a vote of its own
    later = {id(c) for r in out for c in r.calls[1:]}
    runs = [r for r in out if id(r.calls[0]) not in later]
    return _like_the_judge(runs, shape) if like_the_judge else runs


def _window(r: Run) -> float:
    return float(median(th.t - (c.t_end or c.t) for c, th in zip(r.calls, r.thanks)))


def judge_window_of(runs: Sequence[Run], shape: RunShape) -> float | None:
    """The judge's window (a call's end to its "thank you", s): where the windows of the
    runs of two calls or more lie densest, each call weighted by its run's confidence
    (kernel: `window_jitter` / 2), nearer the rulebooks' usual window weighing a little
    more (`window_usual`, `window_spread`: a weak prior). Not their median: over a
    full-length game the players' talk alternates into more runs than there are votes
    (the seed-7 game: 28 talk runs against 11 votes, the median 0.99 s against the judge's
    1.5 s), scattered, while one judge's votes keep one window. None when no run has two
    calls."""
    pts = _windows_weighed(runs)
    if not pts:
        return None
    half = shape.window_jitter / 2.0

    def density(w: float) -> float:
        return _usual(w, shape) * sum(wt for x, wt in pts if abs(x - w) <= half)

    return _mean_near(pts, max((x for x, _ in pts), key=lambda w: (density(w), -w)), shape)


def _windows_weighed(runs: Sequence[Run]) -> list[tuple[float, float]]:
    """(window, weight) of each run of two calls or more: its calls times its confidence."""
    return [(_window(r), r.confidence * len(r.calls)) for r in runs if len(r.calls) >= 2]


def _mean_near(pts: Sequence[tuple[float, float]], w: float, shape: RunShape) -> float:
    """The weighted mean of the windows within `window_jitter` / 2 of w (w itself if none)."""
    near = [(x, wt) for x, wt in pts if abs(x - w) <= shape.window_jitter / 2.0]
    return sum(x * wt for x, wt in near) / sum(wt for _, wt in near) if near else w


def _usual(w: float, shape: RunShape) -> float:
    return math.exp(-0.5 * ((w - shape.window_usual) / shape.window_spread) ** 2)


def at_window(runs: Sequence[Run], window: float, shape: RunShape) -> list[Run]:
    """The runs whose window lies within `window_jitter` of `window` (the judge's)."""
    return [r for r in runs if abs(_window(r) - window) <= shape.window_jitter]


def judge_window_for(sizes: Sequence[int], windows: Sequence[tuple[float, float]], runs: Sequence[Run],
                     shape: RunShape) -> float | None:
    """The judge's window that the record's votes fit best: of the windows the runs of two
    calls or more have, the one whose runs (within `window_jitter`) give the heaviest
    assignment of the record's votes (`assign_runs`' weights, in order, each vote between
    the marks placed around it), times the weak prior for the usual window; then, as
    `judge_window_of`, the weighted mean of the windows near it. The players' talk can
    alternate into more runs than there are votes, and a chattier table into many more
    (measured: joining utterances split by a pause multiplied the full-length game's
    talk runs 2.5 times and put their densest window at 0.68 s, against the judge's
    1.53 s), but talk seldom falls into runs of the votes' sizes in the votes' order."""
    pts = _windows_weighed(runs)
    if not pts or not sizes:
        return judge_window_of(runs, shape)
    best_w, best_score = None, 0.0
    for w in sorted({round(x, 2) for x, _ in pts}):
        near = at_window(runs, w, shape)
        weights = [_weight(r, w, shape) for r in near]
        score = _best(sizes, windows, near, weights, None)[0] * _usual(w, shape)
        if score > best_score + 1e-9:
            best_w, best_score = w, score
    if best_w is None:
        return judge_window_of(runs, shape)
    return _mean_near(pts, best_w, shape)


def _like_the_judge(runs: list[Run], shape: RunShape) -> list[Run]:
    """The runs whose window is the judge's (`judge_window_of`): one judge counts the
    same window all game, and a run far from it is talk that happened to alternate.
    With no run of two calls there is nothing to compare with: all are kept."""
    window = judge_window_of(runs, shape)
    return runs if window is None else at_window(runs, window, shape)


# How much better (in calls heard like the judge's, `_weight`) the runs taken must be than
# any other assignment without one of them: less, and two runs could be that vote.
ASSIGN_MARGIN = 0.3


# What one call and its "thank you" alone are worth: players' talk makes such pairs at the
# judge's window by the dozen in an hour, each further call of a run at the same window it
# seldom makes. Under ASSIGN_MARGIN, so a vote of one call is never taken from a run alone
# and cannot buy a wrong assignment of the votes around it.
LONE_CALL = 0.2


def _weight(run: Run, window: float | None, shape: RunShape | None) -> float:
    """How much a run heard as a vote is worth: LONE_CALL for its first call, one for each
    further call, all times 0.5-1 by how near the run's window is to the judge's (half at
    the edge of `window_jitter`, whole on it). A vote of two calls heard at the judge's
    window outweighs one of one, and two runs of one length are told apart by how like
    the judge they sound. (Weighing each call alike, a talk run of two calls 80 s early
    plus a lone talk pair for day 1's "all leave?" outweighed the day's two real votes
    once talk runs were 2.5 times as many: placed wrong and not doubted.)"""
    calls = LONE_CALL + len(run.calls) - 1
    if window is None or shape is None:
        return calls
    near = max(0.0, 1.0 - abs(_window(run) - window) / shape.window_jitter)
    return calls * (0.5 + 0.5 * near)


def assign_runs(sizes: Sequence[int], windows: Sequence[tuple[float, float]], runs: Sequence[Run],
                shape: RunShape | None = None, window: float | None = None) -> dict[int, Run]:
    """Votes (their number of calls, in the game's order, each with the stretch of the
    recording it must lie in) to runs of exactly that many calls, in order, weighing as
    many calls heard like the judge's as possible (`_weight`; with no `shape`, each call
    alike). Only a vote whose run beats every assignment without it by ASSIGN_MARGIN is
    returned: where two runs could be the vote, neither is taken. `window`: the judge's
    (`judge_window_for`); by default the one the runs alone give."""
    if window is None and shape is not None:
        window = judge_window_of(runs, shape)
    # talk right after a vote (a last word, the tie speeches) can happen to go on like
    # it: a vote may be the first calls of a longer run, never its middle or end (the
    # candidates are read out before it, which is not a call)
    runs = list(runs) + [Run(r.calls[:k], r.thanks[:k]) for r in runs for k in range(1, len(r.calls))]
    weights = [_weight(r, window, shape) for r in runs]
    best, pick = _best(sizes, windows, runs, weights, None)
    out = {}
    for i, j in pick.items():
        alt, _ = _best(sizes, windows, runs, weights, (i, j))
        if alt < best - ASSIGN_MARGIN:
            out[i] = runs[j]
    return out


def _best(sizes: Sequence[int], windows: Sequence[tuple[float, float]], runs: Sequence[Run],
          weights: Sequence[float], banned: tuple[int, int] | None) -> tuple[float, dict[int, int]]:
    """Monotone assignment (vote i to run j: runs in time order and not overlapping)
    with the most weight assigned; ties broken by no preference."""
    order = sorted(range(len(runs)), key=lambda j: runs[j].t0)
    rs = [runs[j] for j in order]
    n, m = len(sizes), len(rs)
    # score[i][j]: most weight assigned among the first i votes using runs before position j
    score = [[0.0] * (m + 1) for _ in range(n + 1)]
    move = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            best, how = score[i - 1][j], 0
            if score[i][j - 1] > best:
                best, how = score[i][j - 1], 1
            r = rs[j - 1]
            lo, hi = windows[i - 1]
            if (len(r.calls) == sizes[i - 1] and lo <= r.t0 and r.t1 <= hi
                    and (banned is None or banned != (i - 1, order[j - 1]))):
                # the previous vote's run must end before this one starts
                k = j - 1
                while k > 0 and rs[k - 1].t1 > r.t0:
                    k -= 1
                if score[i - 1][k] + weights[order[j - 1]] > best:
                    best, how = score[i - 1][k] + weights[order[j - 1]], 2 + k
            score[i][j], move[i][j] = best, how
    pick: dict[int, int] = {}
    i, j = n, m
    while i > 0 and j > 0:
        how = move[i][j]
        if how >= 2:
            pick[i - 1] = order[j - 1]
            i, j = i - 1, how - 2
        elif how == 1:
            j -= 1
        else:
            i -= 1
    return score[n][m], pick
