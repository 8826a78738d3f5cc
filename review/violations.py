"""The video-observable violations of rules-spec §3: clause and sanction per profile.

Data, not logic: the rule checks look up what to cite and what to suggest.
Profiles map to the spec's columns MC, CC, SM, RU. A None entry means the
profile's source says nothing; the checks then cite the spec row and say so.
"""
from __future__ import annotations

from dataclasses import dataclass

PROFILE_COLUMN = {"mafclub-2023": "MC", "classic-club": "CC", "sport-mafia": "SM", "ru-club": "RU"}


@dataclass(frozen=True)
class Rule:
    code: str
    what: str
    # column -> (clause, sanction); None where the source is silent
    by_profile: dict[str, tuple[str, str] | None]


RULES: dict[str, Rule] = {r.code: r for r in [
    Rule("V1", "Mask not on in time after \"Night\"", {
        "MC": ("000 4.3.10", "foul"), "CC": ("002 R14", "warning"),
        "SM": ("003 12.2.7", "foul"), "RU": ("004 L32", "foul")}),
    Rule("V3", "Hand touching the mask at night", {
        "MC": ("000 2.1.3", "warning or removal"), "CC": ("002 2.1.4", "warning or removal"),
        "SM": ("003 3.7, 14.1.10", "DQ if the mask is removed"), "RU": None}),
    Rule("V4", "Peeking: mask lifted, eyes visible at night", {
        "MC": ("000 4.8.2, 4.18.1", "removal (may be waived if harmless, 001 4.21c); red card if deliberate"),
        "CC": ("002 R11", "elimination; expulsion if deliberate"),
        "SM": ("003 14.1.10", "DQ"), "RU": None}),
    Rule("V5", "Night pose broken: arms uncrossed or head up", {
        "MC": ("000 2.1.2, 2.1.4", "warning or removal"), "CC": ("002 2.1.2", "warning"),
        "SM": ("003 11.1", "none stated"), "RU": None}),
    Rule("V6", "Non-mafia player raising a hand during the shooting", {
        "MC": ("000 4.8.9", "removal"), "CC": None,
        "SM": ("003 14.1.3", "DQ if it affected the game"), "RU": ("004 L33", "removal")}),
    Rule("V7", "Mafia shot gesture does not match the recorded shot", {
        "MC": ("000 2.5.2", "miss rules"), "CC": ("002 ¶Night", "miss rules"),
        "SM": ("003 8.5", "miss rules"), "RU": ("004 L27", "miss rules; a double shot is also a foul")}),
    Rule("V8", "Shooting or number gestures after \"Night\", before the active phase", {
        "MC": ("000 4.3.5", "foul"), "CC": ("002 R15", "warning"), "SM": None,
        "RU": ("004 L33", "removal")}),
    Rule("V9", "Pointing out a check target to the Don or Sheriff", {
        "MC": ("000 4.8.8", "removal"), "CC": ("002 R16", "dismissal"),
        "SM": ("003 14.1.3", "DQ"), "RU": ("004 L33", "removal")}),
    Rule("V10", "Touching another player at night", {
        "MC": ("000 4.8.7", "removal"), "CC": None, "SM": ("003 14.1.4", "DQ"),
        "RU": ("004 L32-33", "foul (black-to-black contact during shooting: removal)")}),
    Rule("V11", "Touching a neighbour by day", {
        "MC": ("000 4.3.2", "foul"), "CC": None, "SM": ("003 12.2.2", "foul"), "RU": None}),
    Rule("V15", "Standing up and stepping away from the chair", {
        "MC": ("000 4.8.3", "removal"), "CC": None, "SM": ("003 14.1.2", "DQ"), "RU": None}),
    Rule("V16", "Hand on the table before the candidate is called", {
        "MC": ("000 2.4.11", "foul; the vote counts (engine default, flagged)"), "CC": None,
        "SM": ("003 12.2.3", "foul"), "RU": None}),
    Rule("V17", "Vote lifted before \"Thank you\"", {
        "MC": ("000 2.4.10", "foul; the vote counts"), "CC": ("002 R12", "dismissal"),
        "SM": ("003 6.9", "foul; the vote counts"), "RU": ("004 L17, L33", "foul (L33 says removal: conflict)")}),
    Rule("V18", "Wrong vote form: palm, fingertip, no thumb", {
        "MC": ("000 2.4.12 (001 wording)", "removal; the vote is void"), "CC": None,
        "SM": ("003 14.1.14", "DQ if provocative"), "RU": ("004 L32", "foul (no thumb); the vote counts")}),
    Rule("V20", "One voter placing a fist in two candidates' windows", {
        "MC": ("000 2.4.13", "foul; the first vote counts"), "CC": ("002 R12", "dismissal"),
        "SM": ("003 14.1.14", "DQ if deliberate"), "RU": ("004 L32", "foul")}),
    Rule("V21", "Fist placed on or after \"Thank you\"", {
        "MC": ("000 2.4.7", "the vote is void"), "CC": ("002 2.4.6", "the vote is void"),
        "SM": ("003 6.5-6.6", "counts on \"Thank you\" or within 1.5 s of the second call"),
        "RU": ("004 L17", "the vote is void")}),
    Rule("V22", "Nods, pointing or finger numbers during voting", {
        "MC": ("000 4.3.4; 001 2.4.1c", "foul"), "CC": ("002 R13", "warning"),
        "SM": ("003 12.2.4", "foul"), "RU": None}),
]}


def cite(code: str, profile_name: str) -> tuple[str, str]:
    """(clause, sanction) for a violation under a profile, never empty."""
    rule = RULES[code]
    column = PROFILE_COLUMN.get(profile_name, "MC")
    entry = rule.by_profile.get(column)
    if entry is None:
        return f"rules-spec §3 {code} ({column}: no clause)", "not stated by this profile's rules: judge's discretion"
    clause, sanction = entry
    return f"{column} {clause}", sanction
