"""Can a seat's window be judged in a frame? Light, contrast, familiarity, margin.

The learned windows (vision.appearance) are right where they were trained
and wrong, loudly, one step outside: dim light, a low camera, a heavy
compression, the judge walking in front. Before review trusts what a window
says about a seat, this module says whether that window could be seen at
all, frame by frame, from what the extraction stored with it:

* `lum_<window>`: the patch's mean luminance (0-255): too dark to see;
* `con_<window>`: its standard deviation: too flat (fog of noise and
  compression, or a uniform thing in front of the seat);
* `far_<window>`: the descriptor's mean squared z-score against the
  window's training statistics: the input is unlike anything it was
  trained on (the judge's back, a camera behind the players);
* the window's own margin (its best class over the next), where the
  window decides the state: too unsure;
* the vision layer's own "cannot judge" states (`zone_unread`: the zone
  window sees a vote no hand read confirms; `mask_unread`: no reader can
  judge the mask, vision.seat_states; `body_unread`: a neighbour's own arm
  crossed the body window as it read a touch, vision.neighbour_arms).

Rule-free and pure: review.view turns these per-frame answers into
abstentions per seat and scheduled interval.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Iterable, Mapping

from vision.neighbour_arms import WHY as NEIGHBOUR_WHY
from vision.seat_states import head_reading
from vision.tracks import FrameState, Observed, Track, build_tracks


class Blind(StrEnum):
    """Why a window of a seat cannot be judged in a frame."""
    DARK = "dark"                # too little light
    FLAT = "flat"                # too little contrast
    UNFAMILIAR = "unfamiliar"    # unlike the window's training data
    UNSURE = "unsure"            # the window's best class barely beats the next
    UNREAD = "unread"            # the vision layer said it cannot judge (zone_unread, mask_unread)
    IMPLAUSIBLE = "implausible"  # the window reads this seat against what it shows all game (review.view)
    VENUE = "venue"              # the window misreads several seats of this game (review.view)
    UNLEARNED = "unlearned"      # the venue's model read this seat's judged examples wrong (mafvar learn)
    PLACED = "placed"            # the seat's player was not found when the seats were proposed (review.view)
    ZONE_PLACE = "zone_place"    # the seat's proposed table zone was not confirmed by the frames (review.view)
    NEIGHBOUR = "neighbour"      # a neighbour's own arm crossed the window then (vision.neighbour_arms)
    NO_THUMB = "no_thumb"        # a fist never seen with its thumb: when it voted is unknown (review.recount)


WHY_TEXT = MappingProxyType({
    Blind.DARK: "too dark", Blind.FLAT: "too little contrast",
    Blind.UNFAMILIAR: "unlike anything the models were trained on (occluded, or an unusual view)",
    Blind.UNSURE: "the classifier cannot decide",
    Blind.UNREAD: "the models cannot make it out (a hand they cannot read; a face too small, turned away or "
                  "unlike their training)",
    Blind.IMPLAUSIBLE: "the classifier misreads this seat (it contradicts what the seat does all game)",
    Blind.VENUE: "the classifier misreads this venue (it contradicts what several seats do all game)",
    Blind.UNLEARNED: "the venue's classifier did not learn this seat (it read the judges' held-out examples "
                     "of it wrong)",
    Blind.PLACED: "its player was not found when the seats were proposed, or the proposal was accepted as a "
                  "guess: the seat's regions are the fitted table's guess (draw the seat on the Calibration "
                  "page to judge it)",
    Blind.ZONE_PLACE: "its table zone was proposed without the table's edge confirming it, or may be off "
                      "by more than a hand's breadth allows (draw the zone on the Calibration page to judge it)",
    Blind.NEIGHBOUR: "a neighbour's own arm crossed its window at that moment (to her mask, raised, "
                     "standing up or touching this seat): whose touch it was cannot be told",
    Blind.NO_THUMB: "its fist was never seen with the thumb up, and a hand held or resting over the table "
                    "looks the same: when it voted (placed, lifted, or which call) is not judged",
})

WINDOWS = ("head", "zone", "body")

# The vision states that say "cannot judge this window here" (vision.tracks.Observed).
UNREAD_STATES: Mapping[Observed, str] = MappingProxyType({Observed.ZONE_UNREAD: "zone",
                                                          Observed.MASK_UNREAD: "head",
                                                          Observed.BODY_UNREAD: "body"})
# An unread state's reason (its value) that has a Blind of its own; the others are `Blind.UNREAD`.
UNREAD_WHY: Mapping[str, Blind] = MappingProxyType({NEIGHBOUR_WHY: Blind.NEIGHBOUR})


def _by_window(**v: float) -> Mapping[str, float]:
    return MappingProxyType(v)


@dataclass(frozen=True)
class ViewLimits:
    """Where a window stops being judgeable. Chosen on rendered games of seeds
    4000-4099 under random conditions (never the evaluation bank)."""
    min_lum: float = 30.0                       # mean luminance, 0-255
    min_con: float = 6.0                        # luminance standard deviation
    max_far: Mapping[str, float] = field(default_factory=lambda: _by_window(head=12.0, zone=12.0, body=12.0))
    min_margin: Mapping[str, float] = field(default_factory=lambda: _by_window(head=0.0, zone=0.0, body=0.0))


DEFAULT = ViewLimits()


@dataclass(frozen=True)
class WindowView:
    """One window of one seat in one analysed frame: judgeable, or why not."""
    seat: int
    t: float
    window: str
    blind: tuple[Blind, ...] = ()
    best: str | None = None           # the window's most likely class (None without the window)

    @property
    def seen(self) -> bool:
        return not self.blind


def best_class(features: Mapping[str, float], window: str) -> str | None:
    """The window's most likely class in a frame (None without the window)."""
    p = {k[len(window) + 5:]: v for k, v in features.items() if k.startswith(f"app_{window}_")}
    return max(p, key=lambda c: p[c]) if p else None


def margin(features: Mapping[str, float], window: str) -> float | None:
    """The window's best class probability minus the next (None without the window)."""
    p = sorted((v for k, v in features.items() if k.startswith(f"app_{window}_")), reverse=True)
    if not p:
        return None
    return p[0] - (p[1] if len(p) > 1 else 0.0)


def window_blind(features: Mapping[str, float], window: str, limits: ViewLimits = DEFAULT) -> tuple[Blind, ...]:
    """Why the window cannot be judged in a frame with these stored features
    (empty: it can). A feature the store lacks (an older analysis) is no evidence."""
    out: list[Blind] = []
    lum, con, far = (features.get(f"{k}_{window}") for k in ("lum", "con", "far"))
    if lum is not None and lum < limits.min_lum:
        out.append(Blind.DARK)
    if con is not None and con < limits.min_con:
        out.append(Blind.FLAT)
    if far is not None and far > limits.max_far.get(window, float("inf")):
        out.append(Blind.UNFAMILIAR)
    m = margin(features, window)
    if m is not None and m < limits.min_margin.get(window, 0.0):
        out.append(Blind.UNSURE)
    return tuple(out)


def frame_views(seat: int, t: float, features: Mapping[str, float],
                unread: Mapping[str, Blind] | Iterable[str] = (), limits: ViewLimits = DEFAULT) -> list[WindowView]:
    """Every window of one seat-frame; `unread`: the windows the vision layer
    said it cannot judge in this frame (with why, or `Blind.UNREAD`)."""
    gone = dict(unread) if isinstance(unread, Mapping) else dict.fromkeys(unread, Blind.UNREAD)
    return [WindowView(seat, t, w, window_blind(features, w, limits) + ((gone[w],) if w in gone else ()),
                       reading(features, w))
            for w in WINDOWS]


def reading(features: Mapping[str, float], window: str) -> str | None:
    """What decides the seat's state for a window in a frame: for the head the
    mask as the states read it (the face mesh first, vision.seat_states), for
    the others the learned window's best class."""
    return head_reading(features) if window == "head" else best_class(features, window)


# A zone the hands read as a vote within this many seconds is seen: its other
# frames are the same fist half hidden by its own motion (landing, lifting),
# not a vote the analysis could have missed. The vote must be one the recount
# counts, a fist track (vision.tracks: three frames): a lone frame read as a
# thumb-up makes no placement, and excusing the unread frames around it left
# the cell judged as no vote (the full-length game, seed 7, 2,122 s: a
# thumb-up unread for its whole 1.8 s but its last frame, counted as a default
# vote for another candidate, a false miscount that changed who left).
SEEN_VOTE_S = 1.5
SEEN_VOTE_CONF = 0.6


def unread_windows(frames: Iterable[FrameState],
                   tracks: Iterable[Track] | None = None) -> dict[tuple[int, float], dict[str, Blind]]:
    """(seat, t) -> the windows the vision layer's states say it cannot judge there, and why.
    `tracks`: the analysis' own tracks of these frames (the fists its recount counts);
    without them the fist tracks are built here from the frames."""
    frames = list(frames)
    if tracks is None:
        # every time a seat was read, so a frame without the fist ends its track
        looked: dict[int, set[float]] = {}
        for f in frames:
            looked.setdefault(f.seat, set()).add(f.t)
        tracks = build_tracks([f for f in frames if f.state is Observed.FIST_ON_TABLE],
                              {seat: sorted(ts) for seat, ts in looked.items()})
    votes: dict[int, list[tuple[float, float]]] = {}
    for tr in tracks:
        if tr.state is Observed.FIST_ON_TABLE and tr.confidence >= SEEN_VOTE_CONF:
            votes.setdefault(tr.seat, []).append((tr.t0, tr.t1))

    def near_vote(seat: int, t: float) -> bool:
        return any(t0 - SEEN_VOTE_S <= t <= t1 + SEEN_VOTE_S for t0, t1 in votes.get(seat, ()))

    out: dict[tuple[int, float], dict[str, Blind]] = {}
    for f in frames:
        w = UNREAD_STATES.get(f.state)
        if w is None or (w == "zone" and near_vote(f.seat, f.t)):
            continue
        out.setdefault((f.seat, round(f.t, 6)), {})[w] = UNREAD_WHY.get(f.value or "", Blind.UNREAD)
    return out


def seat_views(features: Iterable[tuple[int, float, Mapping[str, float]]], frames: Iterable[FrameState] = (),
               limits: ViewLimits = DEFAULT, tracks: Iterable[Track] | None = None) -> list[WindowView]:
    """Every window of every analysed seat-frame: `features` as the store
    gives them ((seat, t, features), vision.store.window_features), `frames`
    the classifiers' states of the same frames, `tracks` their tracks (unread_windows)."""
    unread = unread_windows(frames, tracks)
    out: list[WindowView] = []
    for seat, t, f in features:
        out.extend(frame_views(seat, t, f, unread.get((seat, round(t, 6)), {}), limits))
    return out


__all__ = ["Blind", "WHY_TEXT", "WINDOWS", "UNREAD_STATES", "UNREAD_WHY", "ViewLimits", "DEFAULT", "WindowView", "best_class", "reading", "margin",
           "window_blind", "frame_views", "unread_windows", "seat_views"]
