"""Every finding the review reports, declared once: one `FoulSpec` entry per incident type.

An entry says what the finding is (its rules-spec §3 row and what the camera
sees), what each profile's rulebook cites for it and suggests as a sanction,
where in the game it is looked for (the timeline intervals and the seat
states that are its evidence, and what a seat's permits excuse), which other
finding it yields to when both describe one act, and which rule check finds
it (a function of review.checks). Every table the checks, the incidents and
the recount use is derived from `FOULS`; adding a foul is adding an entry
here and its check (docs/extending.md).

Clauses are keyed by the profile's code (engine/profiles/*.json `code`): a
profile whose rulebook says nothing of a foul, or a profile added later, cites
the spec row and says so.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Mapping

from engine.profiles import Profile
from engine.timeline import Kind, Permit
from vision.tracks import Observed


class IncidentType(str, Enum):
    MASK_LATE = "mask_late"
    MASK_TOUCH = "mask_touch"
    PEEK = "peek"
    NIGHT_POSE = "night_pose"
    FALSE_SHOT = "false_shot"
    SHOT_MISMATCH = "shot_mismatch"
    EARLY_GESTURE = "early_gesture"
    CHECK_POINTING = "check_pointing"
    TOUCH_NIGHT = "touch_night"
    TOUCH_DAY = "touch_day"
    STAND_UP = "stand_up"
    EARLY_VOTE = "early_vote"
    EARLY_LIFT = "early_lift"
    WRONG_FORM = "wrong_form"
    DOUBLE_VOTE = "double_vote"
    LATE_VOTE = "late_vote"
    VOTE_GESTURE = "vote_gesture"
    MISCOUNT = "miscount"
    PROTOCOL_AUDIT = "protocol_audit"


T = IncidentType
S = Observed
# Awake by right at night: the mafia shooting, the Don or Sheriff checking,
# free seating. A hand near the face or out of the pose is no foul there.
AWAKE_PERMITS = (Permit.MOVE, Permit.UNMASK, Permit.RAISE_HAND, Permit.GESTURE)

Citation = tuple[str, str]  # (clause in the profile's rulebook, suggested sanction)


@dataclass(frozen=True)
class FoulSpec:
    type: IncidentType
    violation: str | None                     # rules-spec §3 row ("V1"); None: not a player's foul
    what: str
    # profile code -> (clause, sanction); None where the rulebook is silent
    clauses: Mapping[str, Citation | None]
    checks: tuple[str, ...]                   # the functions of review.checks that find it
    window: tuple[Kind, ...] = ()             # the timeline intervals it is looked for in
    evidence: tuple[Observed, ...] = ()      # the seat states that show it
    excused_by: tuple[Permit, ...] = ()       # a seat granted one of these there commits no foul
    subsumed_by: tuple[IncidentType, ...] = ()  # one act, one incident: these report it instead
    from_recount: bool = False                # a recount flag of the same name

    def cite(self, profile: Profile) -> Citation:
        """(clause, sanction) under the profile, never empty for a player's foul; a
        judge's error (no violation) cites the rule that says what may follow, if any."""
        entry = self.clauses.get(profile.code)
        if self.violation is None:
            return (f"{profile.code} {entry[0]}", entry[1]) if entry else ("", "")
        if entry is None:
            return (f"rules-spec §3 {self.violation} ({profile.code}: no clause)",
                    "not stated by this profile's rules: judge's discretion")
        clause, sanction = entry
        return f"{profile.code} {clause}", sanction


def _c(**by_code: Citation | None) -> Mapping[str, Citation | None]:
    return MappingProxyType(by_code)


FOULS: tuple[FoulSpec, ...] = (
    FoulSpec(T.MASK_LATE, "V1", "Mask not on in time after \"Night\"", _c(
        MC=("000 4.3.10", "foul"), CC=("002 R14", "warning"),
        SM=("003 12.2.7", "foul"), RU=("004 L32", "foul")),
        checks=("check_masking",), window=(Kind.MASKING,), evidence=(S.MASK_OFF, S.MASK_LIFTED)),
    FoulSpec(T.MASK_TOUCH, "V3", "Hand touching the mask at night", _c(
        MC=("000 2.1.3", "warning or removal"), CC=("002 2.1.4", "warning or removal"),
        SM=("003 3.7, 14.1.10", "DQ if the mask is removed"), RU=None),
        checks=("check_night_behaviour",), window=(Kind.NIGHT,), evidence=(S.HAND_AT_MASK,),
        excused_by=AWAKE_PERMITS,
        # lifting the mask takes a hand to it: a peek is reported as the peek
        subsumed_by=(T.PEEK, T.MASK_LATE)),
    FoulSpec(T.PEEK, "V4", "Peeking: mask lifted, eyes visible at night", _c(
        MC=("000 4.8.2, 4.18.1", "removal (may be waived if harmless, 001 4.21c); red card if deliberate"),
        CC=("002 R11", "elimination; expulsion if deliberate"),
        SM=("003 14.1.10", "DQ"), RU=None),
        checks=("check_night_behaviour",), window=(Kind.NIGHT,), evidence=(S.MASK_LIFTED, S.MASK_OFF),
        excused_by=(Permit.UNMASK,),
        # a player reaching over to a neighbour at night leans and turns: the head
        # window wavers (measured on a rendered game) and the act is the touch;
        # a mask still off after the masking deadline is late masking
        subsumed_by=(T.MASK_LATE, T.TOUCH_NIGHT)),
    FoulSpec(T.NIGHT_POSE, "V5", "Night pose broken: arms uncrossed or head up", _c(
        MC=("000 2.1.2, 2.1.4", "warning or removal"), CC=("002 2.1.2", "warning"),
        SM=("003 11.1", "none stated"), RU=None),
        checks=("check_night_behaviour",), window=(Kind.NIGHT,), evidence=(S.HEAD_UP,),
        excused_by=AWAKE_PERMITS,
        # a seat out of the night pose because it was late to mask, peeked or
        # raised a hand is reported as that, not twice
        subsumed_by=(T.MASK_LATE, T.PEEK, T.MASK_TOUCH, T.FALSE_SHOT, T.EARLY_GESTURE, T.CHECK_POINTING,
                     T.STAND_UP, T.TOUCH_NIGHT)),
    FoulSpec(T.FALSE_SHOT, "V6", "Non-mafia player raising a hand during the shooting", _c(
        MC=("000 4.8.9", "removal"), CC=None,
        SM=("003 14.1.3", "DQ if it affected the game"), RU=("004 L33", "removal")),
        checks=("check_shooting",), window=(Kind.SHOOTING,),
        evidence=(S.HAND_RAISED, S.SHOT, S.ARM_UP), excused_by=(Permit.RAISE_HAND,)),
    FoulSpec(T.SHOT_MISMATCH, "V7", "Mafia shot gesture does not match the recorded shot", _c(
        MC=("000 2.5.2", "miss rules"), CC=("002 ¶Night", "miss rules"),
        SM=("003 8.5", "miss rules"), RU=("004 L27", "miss rules; a double shot is also a foul")),
        checks=("check_shooting",), window=(Kind.SHOOTING, Kind.SHOOTING_CALL), evidence=(S.SHOT,)),
    FoulSpec(T.EARLY_GESTURE, "V8", "Shooting or number gestures after \"Night\", before the active phase", _c(
        MC=("000 4.3.5", "foul"), CC=("002 R15", "warning"), SM=None,
        RU=("004 L33", "removal")),
        checks=("check_shooting",), window=(Kind.MASKING, Kind.SHOOTING),
        evidence=(S.HAND_RAISED, S.SHOT, S.FINGERS_SHOWN, S.POINTING)),
    FoulSpec(T.CHECK_POINTING, "V9", "Pointing out a check target to the Don or Sheriff", _c(
        MC=("000 4.8.8", "removal"), CC=("002 R16", "dismissal"),
        SM=("003 14.1.3", "DQ"), RU=("004 L33", "removal")),
        checks=("check_checks",), window=(Kind.DON_CHECK, Kind.SHERIFF_CHECK),
        evidence=(S.POINTING, S.FINGERS_SHOWN, S.HAND_RAISED), excused_by=(Permit.GESTURE,)),
    FoulSpec(T.TOUCH_NIGHT, "V10", "Touching another player at night", _c(
        MC=("000 4.8.7", "removal"), CC=None, SM=("003 14.1.4", "DQ"),
        RU=("004 L32-33", "foul (black-to-black contact during shooting: removal)")),
        checks=("check_night_behaviour",), window=(Kind.NIGHT,), evidence=(S.TOUCH, S.ARM_UP)),
    FoulSpec(T.TOUCH_DAY, "V11", "Touching a neighbour by day", _c(
        MC=("000 4.3.2", "foul"), CC=None, SM=("003 12.2.2", "foul"), RU=None),
        checks=("check_day_behaviour",), window=(Kind.DAY,), evidence=(S.TOUCH,)),
    FoulSpec(T.STAND_UP, "V15", "Standing up and stepping away from the chair", _c(
        MC=("000 4.8.3", "removal"), CC=None, SM=("003 14.1.2", "DQ"), RU=None),
        checks=("check_night_behaviour", "check_day_behaviour"), window=(Kind.NIGHT, Kind.DAY),
        evidence=(S.STANDING,)),
    FoulSpec(T.EARLY_VOTE, "V16", "Hand on the table before the candidate is called", _c(
        MC=("000 2.4.11", "foul; the vote counts (engine default, flagged)"), CC=None,
        SM=("003 12.2.3", "foul"), RU=None),
        checks=("vote_incidents",), window=(Kind.VOTE_CALL,), evidence=(S.FIST_ON_TABLE,), from_recount=True),
    FoulSpec(T.EARLY_LIFT, "V17", "Vote lifted before \"Thank you\"", _c(
        MC=("000 2.4.10", "foul; the vote counts"), CC=("002 R12", "dismissal"),
        SM=("003 6.9", "foul; the vote counts"), RU=("004 L17, L33", "foul (L33 says removal: conflict)")),
        checks=("vote_incidents",), window=(Kind.VOTE_CALL,), evidence=(S.FIST_ON_TABLE,), from_recount=True),
    FoulSpec(T.WRONG_FORM, "V18", "Wrong vote form: palm, fingertip, no thumb", _c(
        MC=("000 2.4.12 (001 wording)", "removal; the vote is void"), CC=None,
        SM=("003 14.1.14", "DQ if provocative"), RU=("004 L32", "foul (no thumb); the vote counts")),
        checks=("vote_incidents",), window=(Kind.VOTE_CALL,), evidence=(S.FIST_ON_TABLE,), from_recount=True),
    FoulSpec(T.DOUBLE_VOTE, "V20", "One voter placing a fist in two candidates' windows", _c(
        MC=("000 2.4.13", "foul; the first vote counts"), CC=("002 R12", "dismissal"),
        SM=("003 14.1.14", "DQ if deliberate"), RU=("004 L32", "foul")),
        checks=("vote_incidents",), window=(Kind.VOTE_CALL,), evidence=(S.FIST_ON_TABLE,), from_recount=True),
    FoulSpec(T.LATE_VOTE, "V21", "Fist placed on or after \"Thank you\"", _c(
        MC=("000 2.4.7", "the vote is void"), CC=("002 2.4.6", "the vote is void"),
        SM=("003 6.5-6.6", "counts on \"Thank you\" or within 1.5 s of the second call"),
        RU=("004 L17", "the vote is void")),
        checks=("vote_incidents",), window=(Kind.VOTE_CALL,), evidence=(S.FIST_ON_TABLE,), from_recount=True),
    FoulSpec(T.VOTE_GESTURE, "V22", "Nods, pointing or finger numbers during voting", _c(
        MC=("000 4.3.4; 001 2.4.1c", "foul"), CC=("002 R13", "warning"),
        SM=("003 12.2.4", "foul"), RU=None),
        checks=("check_day_behaviour",), window=(Kind.VOTING,),
        evidence=(S.POINTING, S.FINGERS_SHOWN, S.HAND_RAISED)),
    # not a player's violation: the judge's count against the recount (§4.2)
    # the clause a chief judge rules an appeal on: when the video may correct the result (§4.2)
    FoulSpec(T.MISCOUNT, None, "The judge's announced count differs from the recount", _c(
        MC=("001 4.20.2", "the result may be changed without a replay if the correction decides the game"),
        CC=("002 R17", "video review on protest; the game may be annulled and replayed"),
        SM=("003 6.6", "the judge may settle it from the video (votes within 1.5 s count)"), RU=None),
         checks=("vote_incidents",), window=(Kind.VOTE_CALL,)),
    # the engine's protocol-only audit findings (judge errors)
    FoulSpec(T.PROTOCOL_AUDIT, None, "A judge error visible from the protocol alone", _c(),
         checks=("protocol_incidents",)),
)

FOUL_OF: Mapping[IncidentType, FoulSpec] = MappingProxyType({f.type: f for f in FOULS})
# The rules-spec §3 row each type detects; miscounts and audit findings carry none.
VIOLATION_OF: Mapping[IncidentType, str | None] = MappingProxyType({f.type: f.violation for f in FOULS})
SUBSUMED_BY: Mapping[IncidentType, tuple[IncidentType, ...]] = MappingProxyType(
    {f.type: f.subsumed_by for f in FOULS if f.subsumed_by})
# The recount's flags are the incident types it finds (review.recount)
RECOUNT_FLAGS: tuple[str, ...] = tuple(f.type.value for f in FOULS if f.from_recount)
# The check functions, in the order they run (the order of first mention)
CHECK_NAMES: tuple[str, ...] = tuple(dict.fromkeys(name for f in FOULS for name in f.checks))
