"""Protocol-only audit: judge errors visible without video (rules-spec 5).

Step-local audits (wrong opener, a speech on three fouls, a forbidden raise, a
premature result, a list read differently from the nominations...) are raised
by the replay handlers as they happen; this module adds the checks that need a
whole vote pass, and lists every audit code with what it means.
"""
from __future__ import annotations

from itertools import groupby

from .protocol import Protocol
from .types import Issue, audit
from .voting import pass_outcome

# code -> what it means (severity `audit`); the clause each cites is the game's
# profile's (engine/profiles/*.json `clauses`)
AUDIT_CODES: dict[str, str] = {
    "vote_sum": "a pass's counts do not add up to the eligible voters",
    "announced_mismatch": "announced count differs from recorded voters + defaults",
    "outcome_differs": "the recorded voters give another outcome than the announced counts "
                        "(an elimination without a majority)",
    "raise_not_passed": "a raise recorded as passed without more than half in favour",
    "raise_outcome": "a raise recorded as failed although more than half were in favour",
    "raise_forbidden": "a raise vote the profile forbids",
    "raise_missing": "tied twice but no raise vote recorded",
    "muted_speech": "a speech granted to a player who lost it to the third foul",
    "muted_speech_long": "a player on three fouls spoke longer than the short speech",
    "wrong_opener": "the day opened with the wrong player",
    "premature_result": "a victory declared while another result was still possible",
    "result_mismatch": "the declared result differs from the derived one",
    "candidate_list": "the list read differs from the nominations",
    "vote_order": "candidates called out of nomination order",
    "check_answer_wrong": "a check answer contradicting the roles",
    "check_overtime": "a check longer than its limit",
    "farewell_not_eliminated": "a farewell for a player the votes did not eliminate",
    "last_word_after_removal": "a last word for a removed player",
    "vote_not_held": "candidates but no vote",
    "vote_despite_cancel": "a vote held although a removal cancelled it",
    "vote_after_void": "vote calls after a removal voided the vote",
    "vote_single_first_day": "a vote on a single first-day candidate",
    "double_vote": "a voter recorded twice in one pass",
    "guess_not_allowed": "a first-killed guess without the right",
    "second_nomination": "a second nomination the profile does not allow",
    "duplicate_nomination": "a candidate nominated twice",
    "self_nomination": "a self-nomination the profile does not allow",
    "nomination_out_of_turn": "a nomination outside the nominator's speech",
    "nomination_after_vote": "a nomination after voting began",
    "withdraw_not_own": "a withdrawal of someone else's nomination",
    "withdrawal_not_allowed": "a withdrawal the profile does not allow",
    "tie_speech_not_tied": "a tie speech by a player not tied",
    "second_speech": "two normal speeches in one day",
    "speech_after_vote": "a normal speech after voting began",
    "tech_foul_not_in_profile": "a technical foul in a profile without them",
    "otv_not_in_profile": "an OTV outside SM",
    "record_outcome": "an imported record's raw shots or ballots give another outcome than "
                      "the record's own deaths; the recorded outcome stands (docs/formats.md)",
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
                                    prof.clause("default_votes")))
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
                                f"but {len(last.eligible)} players vote", prof.clause("default_votes")))
        if all(c.derived is not None for c in calls) and any(c.announced is not None for c in calls):
            order = tuple(c.candidate for c in calls)
            by_count = pass_outcome({c.candidate: c.count for c in calls}, order)
            by_voters = pass_outcome({c.candidate: c.derived for c in calls}, order)
            if by_count.leaders != by_voters.leaders:
                issues.append(audit("outcome_differs", last.event,
                                    f"day {last.round}, pass {last.pass_index}: the announced counts lead to "
                                    f"{_desc(by_count)}, the recorded voters to {_desc(by_voters)}", prof.clause("judge_error")))
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
