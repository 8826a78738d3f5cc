"""Rule profiles as data: every parameter of rules-spec section 1, one JSON file per profile.

A `Profile` is one declared object, read from engine/profiles/<name>.json: its
name, its clause code ("MC") and rulebooks (`sources`), every option, and the
clause each option, and each rule the engine cites, comes from. The profiles
are the files found there, listed in their `order`: adding a profile is adding
a file. A tournament overrides single options with `get_profile(name,
overrides)`; a mafiaratings 13-digit rules code maps onto the same options
with `profile_from_mafiaratings_code`.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

PROFILE_DIR = Path(__file__).parent / "profiles"
DEFAULT_PROFILE = "mafclub-2023"


class ProfileError(ValueError):
    """Unknown profile, unknown option, or a value outside the option's choices."""


# Options whose values are a closed vocabulary; overrides are checked against it.
CHOICES: dict[str, tuple] = {
    "opener_rotation": ("next_with_shift", "next", "second_speaker"),
    "nominations": ("one_per_speech_replaces", "one_per_day", "several_last_counts"),
    "withdrawal": ("allowed", "auto", "no"),
    "first_day_voting": ("standard", "to-talk", "no-break", "self-break"),
    "first_day_single_candidate": ("no_vote",),
    "later_single_candidate": ("auto_eliminate", "vote"),
    "vote_window_opens": ("call_end", "call", "call1", "number"),
    "vote_window_closes": ("before_thanks", "on_thanks_inclusive"),
    "default_votes": ("last_candidate", "none"),
    "vote_form": ("thumb_up", "fist"),
    "revote_fewer_tied": ("revote", "raise"),
    "split_order": ("same", "reverse"),
    "raise_threshold": ("more_than_half",),
    "raise_limits": ("none", "sm7"),
    "kill_all": ("draw", "allowed", "no"),
    "split_on_four": ("allowed", "prohibited"),
    "split_on_nine": ("yes", "no", "after1"),
    "shot_target_removed_before_shooting": ("kill_stands", "miss_no_next_vote"),
    "first_killed_right": ("prima_nota", "points_only", "best_move", "none"),
    "first_killed_condition": ("all_ten", "nine_others", "fewer_than_two_left", None),
    "black_wins_when": ("black_ge_red",),
    "red_extra_win": (None, "ru_three_misses"),
    "all_leave_result": ("tie", "maf", None),
    "third_foul": ("lose-speech", "short-speech", "no"),
    "third_foul_timing": ("next_speech", "next_round", "this_round_if_before", "at_once"),
    "removal_vote_effect": ("mc", "sm", "ru", "none"),
    "on_record": ("no", "night-killed", "killed", "except-split", "all"),
}


@dataclass(frozen=True)
class Profile:
    """One rule set. Field names are the option names used in JSON and overrides."""
    name: str
    code: str                      # the clause prefix of its rulebook: MC, CC, SM, RU
    title: str
    sources: tuple[str, ...]       # the rulebooks (rules-spec section 0), e.g. ("000", "001")
    clauses: Mapping[str, str]     # option or cited rule -> clause, e.g. "MC 2.4.7"
    deal_method: str
    deal_violation: str | None
    mask_within_seconds: int
    night_pose: str
    mafia_wake_seconds: int | None
    don_wake: str
    don_wake_seconds: int | None
    sheriff_wake_seconds: int | None
    free_seating_seconds: int | None
    speech_seconds: int
    speech_end_words: tuple[str, ...]
    tie_speech_seconds: int
    tie_speech_order: str
    last_word_seconds: int
    last_word_may_nominate: bool
    first_day_opener: int
    opener_rotation: str
    nominations: str
    self_nomination: bool
    withdrawal: str
    muted_may_nominate: bool
    candidate_list_reads: str
    first_day_voting: str
    first_day_single_candidate: str
    later_single_candidate: str
    vote_window_opens: str
    vote_window_closes: str
    vote_grace_after_call2_seconds: float | None
    default_votes: str
    double_vote: str
    early_lift: str
    wrong_form: str | None
    vote_form: str                 # the vote itself: a fist with the thumb up, or a plain upright fist
    revote_fewer_tied: str
    split_order: str
    raise_threshold: str
    raise_limits: str
    first_day_raise_max: int | None
    sm7_table: Mapping[str, Any] | None
    kill_all: str
    split_on_four: str
    split_on_nine: str
    shooting_order: str
    miss_if_targets_differ: bool
    miss_if_missing_shot: bool
    miss_if_double_shot: bool
    double_shot_foul: bool
    shot_target_removed_before_shooting: str
    don_check_seconds: int | None
    sheriff_check_seconds: int | None
    checks_called_after_checker_gone: bool | None
    result_announced: str
    first_killed_right: str
    first_killed_condition: str | None
    first_killed_guess_seconds: int | None
    black_wins_when: str
    red_extra_win: str | None
    draw_quiet_phases: int | None
    all_leave_result: str | None
    result_fixed_at_decisive_moment: bool
    concede_requires_all: bool
    game_end_speech: bool
    fouls_to_remove: int
    third_foul: str
    third_foul_timing: str
    third_foul_exceptions: Mapping[str, Any]
    short_speech_seconds: int
    technical_fouls: bool
    tech_fouls_to_remove: int
    foul_announce_ordinal: bool
    hidden_night_fouls: bool
    removal_vote_effect: str
    removal_last_word: bool
    otv: bool
    instant_replay: bool
    oath: str
    on_record: str
    on_record_count: int
    scoring: Mapping[str, Any] | None


    def clause(self, key: str) -> str:
        """The clause of this profile's rulebook an option (or a rule the
        engine cites) comes from; "" when the source is silent."""
        return self.clauses.get(key, "")

    def options(self) -> dict[str, Any]:
        return {f.name: _thaw(getattr(self, f.name)) for f in dataclasses.fields(self)
                if f.name not in _META}

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "code": self.code, "title": self.title, "sources": list(self.sources),
                "options": self.options(), "clauses": dict(self.clauses)}


_META = ("name", "code", "title", "sources", "clauses")
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Profile) if f.name not in _META)


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


def _check_options(options: Mapping[str, Any], where: str) -> None:
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise ProfileError(f"{where}: unknown option(s) {', '.join(unknown)}; "
                           f"known options: {', '.join(OPTION_NAMES)}")
    for key, value in options.items():
        if key in CHOICES and value not in CHOICES[key]:
            raise ProfileError(f"{where}: option {key}={value!r} is not one of "
                               f"{', '.join(repr(c) for c in CHOICES[key])}")


@lru_cache(maxsize=1)
def _documents() -> dict[str, dict[str, Any]]:
    """Every profile file, by name, in the order the profiles are listed."""
    docs = []
    for path in sorted(PROFILE_DIR.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("name") != path.stem:
            raise ProfileError(f"{path}: the profile is named {doc.get('name')!r}; the file must be "
                               f"named after it")
        docs.append(doc)
    return {d["name"]: d for d in sorted(docs, key=lambda d: (d.get("order", len(docs)), d["name"]))}


def profile_names() -> tuple[str, ...]:
    """The known profiles, in their listed order (the default first)."""
    return tuple(_documents())


def _load_file(name: str) -> dict[str, Any]:
    docs = _documents()
    if name not in docs:
        raise ProfileError(f"unknown profile {name!r}; known profiles: {', '.join(docs)}")
    return docs[name]


def build_profile(doc: Mapping[str, Any], overrides: Mapping[str, Any] | None = None) -> Profile:
    """A Profile from a profile document (the JSON shape) plus option overrides."""
    options = dict(doc["options"])
    missing = sorted(set(OPTION_NAMES) - set(options))
    if missing:
        raise ProfileError(f"profile {doc.get('name')!r} lacks option(s) {', '.join(missing)}")
    _check_options(options, f"profile {doc.get('name')!r}")
    if overrides:
        if not isinstance(overrides, Mapping):
            raise ProfileError("overrides must be an object of option: value")
        _check_options(overrides, "override")
        options.update(overrides)
    return Profile(name=doc["name"], code=doc["code"], title=doc.get("title", doc["name"]),
                   sources=tuple(doc.get("sources", ())),
                   clauses=MappingProxyType(dict(doc.get("clauses", {}))),
                   **{k: _freeze(v) for k, v in options.items()})


def get_profile(name: str | None = None, overrides: Mapping[str, Any] | None = None) -> Profile:
    """The named profile (default mafclub-2023) with single options overridden.

    Raises ProfileError for an unknown profile name, an unknown option name or a
    value outside an option's vocabulary.
    """
    return build_profile(_load_file(name or DEFAULT_PROFILE), overrides)


def all_profiles() -> tuple[Profile, ...]:
    """Every known profile (without overrides), in their listed order."""
    return tuple(get_profile(name) for name in profile_names())


def profile_for_game(game: Mapping[str, Any]) -> Profile:
    """The profile a protocol's `game` object names: `profile` (default
    mafclub-2023) with its `overrides`, or a mafiaratings `rules_code`."""
    overrides = game.get("overrides") or None
    name = game.get("profile")
    if name is None and game.get("rules_code"):
        return profile_from_mafiaratings_code(game["rules_code"], overrides=overrides)
    return get_profile(name, overrides)


PROFILE_NAMES: tuple[str, ...] = profile_names()


# mafiaratings rules code: digit i selects the i-th value of option i (formats/README.md).
MAFIARATINGS_DIGITS: tuple[tuple[str, tuple], ...] = (
    ("opener_rotation", ("next", "next_with_shift")),          # rotation: first, last
    ("on_record", ("no", "night-killed", "killed", "except-split", "all")),
    ("on_record_count", tuple(range(10))),
    ("withdrawal", ("allowed", "auto", "no")),
    ("first_day_voting", ("standard", "to-talk", "no-break", "self-break")),
    ("split_order", ("same", "reverse")),
    ("kill_all", ("no", "draw")),
    ("split_on_four", ("allowed", "prohibited")),
    ("split_on_nine", ("yes", "no", "after1")),
    ("first_killed_right", ("prima_nota", "none")),            # legacy: yes, no
    ("game_end_speech", (True, False)),
    ("third_foul", ("lose-speech", "short-speech", "no")),
    ("technical_fouls", (False, True)),
)


def mafiaratings_overrides(code13: str) -> dict[str, Any]:
    """The option overrides a 13-digit mafiaratings rules code stands for."""
    code = str(code13).strip()
    if len(code) != 13 or not code.isdigit():
        raise ProfileError(f"mafiaratings rules code must be 13 digits, got {code13!r}")
    out: dict[str, Any] = {}
    for pos, (digit, (option, values)) in enumerate(zip(code, MAFIARATINGS_DIGITS), start=1):
        i = int(digit)
        if i >= len(values):
            raise ProfileError(f"mafiaratings rules code {code}: digit {pos} ({option}) "
                               f"is {i}, allowed 0..{len(values) - 1}")
        out[option] = values[i]
    return out


def profile_from_mafiaratings_code(code13: str, base: str = DEFAULT_PROFILE,
                                   overrides: Mapping[str, Any] | None = None) -> Profile:
    """A profile for a mafiaratings game: base MC with the code's options applied."""
    opts = mafiaratings_overrides(code13)
    opts.update(overrides or {})
    return get_profile(base, opts)
