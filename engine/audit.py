"""Protocol-only audit: judge errors visible without video (rules-spec 5, MC 4.20).

Step-local audits (wrong opener, a speech on three fouls, a forbidden raise, a
premature result, a list read differently from the nominations...) are raised
by the replay handlers as they happen; this module adds the checks that need a
whole vote pass, and lists every audit code with its clause.
"""
from __future__ import annotations

from itertools import groupby

from .protocol import Protocol
from .types import Issue, audit
from .voting import pass_outcome

# code -> (what it means, default clause); severity `audit` unless noted
AUDIT_CODES: dict[str, tuple[str, str]] = {
    "vote_sum": ("a pass's counts do not add up to the eligible voters", "MC 2.4.14"),
    "announced_mismatch": ("announced count differs from recorded voters + defaults", "MC 2.4.14"),
    "outcome_differs": ("the recorded voters give another outcome than the announced counts "
                        "(an elimination without a majority)", "MC 4.20"),
    "raise_not_passed": ("a raise recorded as passed without more than half in favour", "MC 001 2.4.15"),
    "raise_outcome": ("a raise recorded as failed although more than half were in favour", "MC 001 2.4.15"),
    "raise_forbidden": ("a raise vote the profile forbids", "SM 7 / mafiaratings killAll, splitOnFour, splitOnNine"),
    "raise_missing": ("tied twice but no raise vote recorded", "MC 2.4.15"),
    "muted_speech": ("a speech granted to a player who lost it to the third foul", "MC 4.4"),
    "muted_speech_long": ("a player on three fouls spoke longer than the short speech", "MC 4.4.1"),
    "wrong_opener": ("the day opened with the wrong player", "MC 2.5.8"),
    "premature_result": ("a victory declared while another result was still possible", "MC 4.20"),
    "result_mismatch": ("the declared result differs from the derived one", "MC 2.7.3"),
    "candidate_list": ("the list read differs from the nominations", "MC 2.4.5"),
    "vote_order": ("candidates called out of nomination order", "MC 2.4.5"),
    "check_answer_wrong": ("a check answer contradicting the roles", "MC 4.20"),
    "check_overtime": ("a check longer than its limit", "MC 2.5.3-2.5.4"),
    "farewell_not_eliminated": ("a farewell for a player the votes did not eliminate", "MC 4.20"),
    "last_word_after_removal": ("a last word for a removed player", "MC 4.5"),
    "vote_not_held": ("candidates but no vote", "MC 2.4.4"),
    "vote_despite_cancel": ("a vote held although a removal cancelled it", "MC 4.11"),
    "vote_after_void": ("vote calls after a removal voided the vote", "MC 4.12"),
    "vote_single_first_day": ("a vote on a single first-day candidate", "MC 2.4.4"),
    "double_vote": ("a voter recorded twice in one pass", "MC 2.4.13"),
    "guess_not_allowed": ("a first-killed guess without the right", "MC 2.6.1"),
    "second_nomination": ("a second nomination the profile does not allow", "MC 2.3.12"),
    "duplicate_nomination": ("a candidate nominated twice", "rules-spec 2.3.3"),
    "self_nomination": ("a self-nomination the profile does not allow", "SM 5.1"),
    "nomination_out_of_turn": ("a nomination outside the nominator's speech", "MC 2.3.12"),
    "nomination_after_vote": ("a nomination after voting began", "MC 2.4.5"),
    "withdraw_not_own": ("a withdrawal of someone else's nomination", "MC 2.3.9"),
    "withdrawal_not_allowed": ("a withdrawal the profile does not allow", "SM —"),
    "tie_speech_not_tied": ("a tie speech by a player not tied", "MC 2.4.15"),
    "second_speech": ("two normal speeches in one day", "MC 2.3.2"),
    "speech_after_vote": ("a normal speech after voting began", "rules-spec 2.2"),
    "tech_foul_not_in_profile": ("a technical foul in a profile without them", "MC 5.7"),
    "otv_not_in_profile": ("an OTV outside SM", "SM 15"),
}


def _passes(calls):
    key = lambda c: (c.round, c.pass_index, c.eligible)
    # consecutive calls of one pass share round, pass index and the eligible set
    return [list(g) for _, g in groupby(calls, key=key)]


def audit_vote_passes(rep) -> list[Issue]:
    issues: list[Issue] = []
    prof = rep.profile
    for calls in _passes(rep.vote_calls):
        last = calls[-1]
        for c in calls:
            if c.announced is not None and c.derived is not None and c.announced != c.derived:
                issues.append(audit("announced_mismatch", c.event,
                                    f"vote on {c.candidate}: announced {c.announced}, but "
                                    f"{len(c.voters or ())} recorded voter(s)"
                                    + (f" + {c.default_count} default(s)" if c.default_count else ""),
                                    prof.clause("default_votes") or "MC 2.4.14"))
        complete = [c for c in calls if c.count is not None]
        # only a finished pass (the last candidate called) can be summed
        if len(complete) != len(calls) or prof.default_votes != "last_candidate":
            continue
        if _pass_size(rep, calls) != len(calls):
            continue
        total = sum(c.count for c in calls)
        if total != len(last.eligible):
            issues.append(audit("vote_sum", last.event,
                                f"day {last.round}, pass {last.pass_index}: counts add up to {total}, "
                                f"but {len(last.eligible)} players vote", prof.clause("default_votes") or "MC 2.4.14"))
        if all(c.derived is not None for c in calls) and any(c.announced is not None for c in calls):
            order = tuple(c.candidate for c in calls)
            by_count = pass_outcome({c.candidate: c.count for c in calls}, order)
            by_voters = pass_outcome({c.candidate: c.derived for c in calls}, order)
            if by_count.leaders != by_voters.leaders:
                issues.append(audit("outcome_differs", last.event,
                                    f"day {last.round}, pass {last.pass_index}: the announced counts lead to "
                                    f"{_desc(by_count)}, the recorded voters to {_desc(by_voters)}", "MC 4.20"))
    return issues


def _pass_size(rep, calls) -> int:
    idx = calls[-1].event
    if idx is None:
        return len(calls)
    st = rep.states[idx]
    if st.vote is None:
        return len(calls)
    if st.vote.round == calls[-1].round and st.vote.pass_index == calls[-1].pass_index:
        return len(st.vote.candidates)
    # the pass was resolved: it ended with this call
    return len(calls)


def _desc(out) -> str:
    if out.kind == "unique":
        return f"seat {out.leaders[0]} leaving"
    return "a tie of seats " + ", ".join(map(str, out.leaders))


def audit_replay(protocol: Protocol, rep) -> list[Issue]:
    """Whole-protocol audits run after the replay."""
    return audit_vote_passes(rep)
