"""Does the record fit the recording? Found before any incident is raised.

A judge may upload the record of another game, of another table, or one that
starts elsewhere than the video. The analysis would still place the record's
phases somewhere and read fouls there, confidently and all wrong. Two things
say whether the record is this recording's:

- **its marks are found**: the nightfalls, mornings and vote calls the record
  expects, matched in order to the cues and the masking and fist clusters
  seen in the recording (`review.align`);
- **its ballots are seen**: at every vote call placed, the seats the record
  lists as voting against the candidate are the seats whose fist the video
  shows there (the share of cells where the two agree). Another game's
  ballots agree with the recording about as often as chance.

A phase is *placed* when its own mark was found (a vote call also needs its
ballots seen); phases placed only by the protocol's clock or between marks
count as placed when the record as a whole fits. No foul is raised from the
video in a phase that is not placed: it is withheld and counted, and the
report says why (`analysis/record_fit.json`, the app's first page, `analyze
--json`'s `record_fit`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from engine.protocol import Protocol
from engine.timeline import Interval, Kind

from .align import Alignment, PlacedInterval
from .incidents import Incident, Source
from .recount import CallRecount

FORMAT = "mafvar-record-fit"
VERSION = 1
FILE = "record_fit.json"        # in analysis/

# At least this share of (vote call, seat) cells must agree between the
# record's ballots and the fists seen (cells: the seats either names). The
# right record agrees in most cells (a miscount or an unread fist costs one
# each); another game's ballots agree by chance: two random sets of 5 voters
# of 10 share a third of their union on average.
MIN_BALLOT_AGREEMENT = 0.6
# A single call is placed when its own cells agree at least this much.
MIN_CALL_AGREEMENT = 0.5
# ... and the record's marks must be found at least this often.
MIN_MARKS_FOUND = 0.3
# Below these counts a measure says nothing.
MIN_CALLS_CHECKED = 2
MIN_MARKS_EXPECTED = 4
SEEN = ("video", "audio", "manual")


@dataclass(frozen=True)
class CallFit:
    key: str
    recorded: tuple[int, ...]      # seats the record lists voting
    seen: tuple[int, ...]          # seats whose fist the recording shows
    found: bool                    # the call's own mark was found

    @property
    def agreement(self) -> float | None:
        union = set(self.recorded) | set(self.seen)
        return None if not union else len(set(self.recorded) & set(self.seen)) / len(union)


@dataclass
class RecordFit:
    marks_expected: int
    marks_found: int
    calls: list[CallFit]
    placed: dict[str, bool]                # interval key -> placed
    withheld: list[dict] = field(default_factory=list)
    why: dict[str, str] = field(default_factory=dict)    # interval key -> why it is not placed, when known

    @property
    def compared(self) -> bool:
        """Whether any mark of the record fell within the recording (a clip ending before
        the first has nothing to compare: no fit is claimed, none denied)."""
        return self.marks_expected > 0

    @property
    def marks_share(self) -> float | None:
        return self.marks_found / self.marks_expected if self.marks_expected else None

    @property
    def cells(self) -> tuple[int, int]:
        """(cells agreeing, cells compared) over the calls whose marks were found."""
        agree = total = 0
        for c in self.calls:
            if c.found:
                union = set(c.recorded) | set(c.seen)
                agree += len(set(c.recorded) & set(c.seen))
                total += len(union)
        return agree, total

    @property
    def ballot_agreement(self) -> float | None:
        agree, total = self.cells
        checked = sum(1 for c in self.calls if c.found and c.agreement is not None)
        return agree / total if total and checked >= MIN_CALLS_CHECKED else None

    @property
    def fits(self) -> bool:
        share, agreement = self.marks_share, self.ballot_agreement
        if agreement is not None and agreement < MIN_BALLOT_AGREEMENT:
            return False
        if self.marks_expected >= MIN_MARKS_EXPECTED and share is not None and share < MIN_MARKS_FOUND:
            return False
        return True

    @property
    def placed_share(self) -> float:
        return sum(self.placed.values()) / len(self.placed) if self.placed else 0.0

    @property
    def unplaced(self) -> list[str]:
        return [k for k, ok in self.placed.items() if not ok]

    @property
    def message(self) -> str:
        """One sentence for the first page."""
        agreement = self.ballot_agreement
        found = (f"{self.marks_found} of {self.marks_expected} nightfalls, mornings and vote calls "
                 f"of the record found in the recording" if self.marks_expected else "no marks expected")
        ballots = ("" if agreement is None else
                   f"; the fists seen agree with the record's ballots in {agreement:.0%} of cells")
        if not self.fits:
            return (f"The record does not fit this recording: {found}{ballots}. No foul is raised "
                    f"from the video ({len(self.withheld)} withheld); check that the record and the "
                    f"video are of the same game and that the video starts before the game.")
        nights = sorted({k.split(".")[0] for k, w in self.why.items() if not w.startswith(NOT_PLACED_WHY)})
        uncalled = ("" if not nights else
                    f" The record gives no calls for the night{'s' if len(nights) != 1 else ''} of "
                    f"{', '.join(_round_label(r) for r in nights)} (who was awake when is not known): "
                    f"no night foul is judged there.")
        if self.unplaced:
            return (f"{found}{ballots}. {len(self.unplaced)} of {len(self.placed)} phases could not be "
                    f"placed; no foul is raised there ({len(self.withheld)} withheld).{uncalled}")
        if not self.compared:
            return ("No nightfall, morning or vote call of the record falls within the recording, so "
                    "whether the record and the video are of the same game could not be checked."
                    f"{uncalled}")
        return f"The record fits the recording: {found}{ballots}."

    def to_json(self) -> dict:
        share, agreement = self.marks_share, self.ballot_agreement
        agree, total = self.cells
        return {"format": FORMAT, "version": VERSION, "fits": self.fits, "message": self.message,
                "marks_expected": self.marks_expected, "marks_found": self.marks_found,
                "marks_share": None if share is None else round(share, 3),
                "ballot_cells": total, "ballot_cells_agreeing": agree,
                "ballot_agreement": None if agreement is None else round(agreement, 3),
                "phases": len(self.placed), "phases_placed": sum(self.placed.values()),
                "placed_share": round(self.placed_share, 3), "unplaced_phases": self.unplaced,
                "calls": [{"key": c.key, "found": c.found, "recorded": list(c.recorded), "seen": list(c.seen),
                           "agreement": None if c.agreement is None else round(c.agreement, 3)}
                          for c in self.calls],
                "withheld": list(self.withheld)}

    def summary(self) -> dict:
        """The part incidents.json and `analyze --json` carry."""
        doc = self.to_json()
        return {k: doc[k] for k in ("fits", "message", "marks_expected", "marks_found", "ballot_agreement",
                                    "phases", "phases_placed", "unplaced_phases")} | {
            "withheld": len(self.withheld)}

    def keep(self, incidents: Sequence[Incident], intervals: Sequence[Interval]) -> list[Incident]:
        """The incidents that may be raised: protocol findings always (they are the
        record's own), video ones only inside placed phases. The others are
        remembered in `withheld`."""
        by_key = {iv.key: iv for iv in intervals}
        out = []
        for inc in incidents:
            if inc.source is Source.PROTOCOL:
                out.append(inc)
                continue
            key = inc.phase.key if inc.phase.key in self.placed else _containing(inc, by_key.values())
            if self.fits and key is not None and self.placed.get(key, False):
                out.append(inc)
            else:
                self.withheld.append({"id": inc.id, "type": inc.type.value, "seats": list(inc.seats),
                                      "phase": inc.phase.key, "t0": inc.t0,
                                      "why": "the record does not fit" if not self.fits
                                      else self.why.get(key or "", "phase not placed")})
        return out


def _containing(inc: Incident, intervals) -> str | None:
    """The shortest interval holding the incident's start (its phase when its key is another)."""
    if inc.t0 is None:
        return None
    holding = [iv for iv in intervals if iv.t0 is not None and iv.t1 is not None and iv.t0 <= inc.t0 <= iv.t1]
    return min(holding, key=lambda iv: iv.t1 - iv.t0).key if holding else None


def measure_fit(protocol: Protocol, alignment: Alignment, recounts: Sequence[CallRecount],
                only: Sequence[str] | None = None, duration: float | None = None,
                unseen: Mapping[str, Mapping[int, object]] | None = None,
                default_last: bool = False) -> RecordFit:
    """How much of the record the recording shows (`only`: the phases analysed;
    `duration`: the video's length, past which no mark can be found: a recording
    that stops before the game ends is said so elsewhere, it is not another game;
    `unseen`: call key -> the seats whose zone could not be judged there, review.view;
    `default_last`: the profile counts a seat that votes for no one for the last
    candidate, so a record need not list a fist seen there from a seat it lists nowhere
    in that vote)."""
    starts = {p.interval.key: p.interval.t0 for p in alignment.placements}

    def wanted(key: str) -> bool:
        t0 = starts.get(key)
        if duration is not None and t0 is not None and t0 >= duration:
            return False
        return not only or any(key == k or key.startswith(k + ".") or k.startswith(key + ".") for k in only)

    matched = {k for k in alignment.matched if wanted(k.split(":", 1)[1])}
    expected = matched | {k for k in alignment.unmatched_expected if wanted(k.split(":", 1)[1])}

    def listed(rc: CallRecount) -> Sequence[int] | None:
        """The voters the record lists for this call (None: it lists none for it)."""
        ev = protocol.events[rc.event] if rc.event is not None and rc.event < len(protocol.events) else None
        return getattr(ev, "voters", None)

    passes: dict[tuple[int, int], list[CallRecount]] = {}
    for rc in recounts:
        passes.setdefault((rc.round, rc.pass_index), []).append(rc)
    listed_in_pass = {k: {s for rc in rcs for s in (listed(rc) or ())} for k, rcs in passes.items()}
    last_calls = {rcs[-1].key for rcs in passes.values()}
    calls = []
    for rc in recounts:
        recorded = listed(rc)
        if recorded is None:
            continue
        if default_last and rc.key in last_calls:
            # the full-length game's day 5: seat 1's fist for the last candidate, which the
            # judge counted by default and listed nowhere, made the call "disagree" and its
            # phase unplaced (no foul judged in it)
            recorded = tuple(set(recorded) | ({v.seat for v in rc.voters if v.t_place is not None}
                                              - listed_in_pass[(rc.round, rc.pass_index)]))
        # a seat whose zone the analysis could not judge there (review.view) says nothing of
        # the ballot: its fist was not seen, it was not seen missing either (nor where the
        # last call's cell is decided by the default rule). A dim venue whose fists only the
        # venue's zone window sees had 15 of 18 ballot cells "disagree" so (seeds 7101/7102)
        open_ = set(rc.unverified) | set((unseen or {}).get(rc.key, {}))
        seen = tuple(sorted({v.seat for v in rc.voters if v.t_place is not None} - open_))
        calls.append(CallFit(rc.key, tuple(sorted(set(recorded) - open_)), seen,
                             f"vote_call:{rc.key}" in alignment.matched))
    fit = RecordFit(len(expected), len(matched), calls, {})
    call_ok = {c.key: c.found and (c.agreement is None or c.agreement >= MIN_CALL_AGREEMENT) for c in calls}
    fits = fit.fits
    uncalled = nights_without_calls([p.interval for p in alignment.placements])
    # a night placed from a nightfall the alignment doubted: its masking and the rest of the
    # night were put where that guess puts them (the full-length record imported: the last
    # night 44 s early, its masking window raising four false late masks)
    night_doubts = {p.interval.round: alignment.doubts[f"nightfall:{p.interval.key}"]
                    for p in alignment.placements
                    if p.interval.kind is Kind.NIGHT and f"nightfall:{p.interval.key}" in alignment.doubts}
    doubted: dict[str, str] = {}   # interval key -> the first doubt of its marks
    for k, w in alignment.doubts.items():
        doubted.setdefault(k.split(":", 1)[1], w)
    for p in alignment.placements:
        key = p.interval.key
        if not wanted(key):
            continue
        fit.placed[key] = fits and _placed(p, call_ok)
        doubt = doubted.get(key)
        if doubt is None and p.interval.kind in NIGHT_PHASES:
            doubt = night_doubts.get(p.interval.round)
        if doubt is not None and p.anchored_by == "interpolated":
            # the utterance first taken for its call was not trusted (review.align.doubtful)
            fit.placed[key] = False
            fit.why[key] = f"{NOT_PLACED_WHY}: {doubt}"
        if p.interval.round in uncalled and p.interval.kind in NIGHT_INSIDE:
            fit.placed[key] = False
            fit.why[key] = uncalled[p.interval.round]
    return fit


# why a phase whose call the alignment doubted is not placed (its reason follows)
NOT_PLACED_WHY = "its call was not placed"


# A night's phases in which who may unmask, raise a hand or move depends on the
# judge's calls (the wakes of the deal night, each seat called at the shooting).
NIGHT_INSIDE = (Kind.NIGHT, Kind.MAFIA_WAKE, Kind.DON_WAKE, Kind.SHERIFF_WAKE, Kind.FREE_SEATING,
                Kind.SHOOTING, Kind.SHOOTING_CALL, Kind.DON_CHECK, Kind.SHERIFF_CHECK)
# Every phase of a night placed from its nightfall: those, and the masking window that opens at it.
NIGHT_PHASES = frozenset(NIGHT_INSIDE) | {Kind.MASKING}


def nights_without_calls(intervals: Sequence[Interval]) -> dict[int, str]:
    """round -> why, for the nights the record gives without the calls that say who is
    awake when: a deal night with no wake, a shooting with no seat called. A platform
    record (mafiaratings, polemica) never has them: the timeline then has the mafia's
    agreement and the shooting nowhere, and a mafioso opening their eyes there would
    read as a peek. Such a night's fouls are not judged (a false foul is worse than a
    missed one); its mask going on at nightfall still is (MASKING is outside)."""
    kinds: dict[int, set[Kind]] = {}
    for iv in intervals:
        kinds.setdefault(iv.round, set()).add(iv.kind)
    out = {}
    for r, ks in kinds.items():
        if Kind.NIGHT not in ks:
            continue
        if r == 0 and not ks & {Kind.MAFIA_WAKE, Kind.DON_WAKE, Kind.SHERIFF_WAKE, Kind.FREE_SEATING}:
            out[r] = "the record gives no wake for the deal night: who may open their eyes when is not known"
        elif Kind.SHOOTING in ks and Kind.SHOOTING_CALL not in ks:
            out[r] = "the record gives no seat called at the shooting: who may move when is not known"
    return out


def _round_label(prefix: str) -> str:
    """'r0' -> 'the deal night', 'r2' -> 'night 2'."""
    n = prefix[1:]
    return "the deal night" if n == "0" else f"night {n}"


def _placed(p: PlacedInterval, call_ok: dict[str, bool]) -> bool:
    iv = p.interval
    if iv.kind in (Kind.VOTE_CALL, Kind.RAISE_VOTE):
        return call_ok.get(iv.key, p.anchored_by in SEEN)
    return iv.t0 is not None
