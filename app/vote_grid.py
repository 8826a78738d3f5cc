"""The vote grid for one day: vote calls × seats, with the side judges' verifications."""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Iterable, Sequence

from review.coverage import short_why
from review.recount_file import RecountFile, VoteCall, VoterRecord

SEATS = tuple(range(1, 11))


@dataclass(frozen=True)
class CellView:
    text: str
    state: str  # counted | void | default | empty | unverified (the view could not be judged)
    verified: str | None = None  # the standing verification verdict, if any


def rounds(recount: RecountFile) -> list[int]:
    return sorted({c.round for c in recount.calls})


def day_label(round_: int) -> str:
    # mafiaratings rounds: round 0 holds the first day, round r holds day r + 1
    return f"Day {round_ + 1}"


def call_label(call: VoteCall) -> str:
    who = "all leave?" if call.candidate is None else f"against {call.candidate}"
    return f"{'revote ' if call.pass_ > 1 else ''}{who}" + (f" (pass {call.pass_})" if call.pass_ > 1 else "")


def calls_of(recount: RecountFile, round_: int) -> list[VoteCall]:
    return [c for c in recount.calls if c.round == round_]


def cell_why(why: tuple[str, ...]) -> str:
    return ", ".join(dict.fromkeys(short_why(w) for w in why)) or "not seen"


def cell(call: VoteCall, seat: int, verified: str | None = None) -> CellView:
    why = dict(call.unverified).get(seat)
    if why is not None:
        # not a guess: the analysis could not see this seat's zone here (review.view)
        return CellView("? cannot judge\n" + cell_why(why), "unverified", verified)
    rec = next((v for v in call.voters if v.seat == seat), None)
    if rec is not None:
        return CellView(_describe(call, rec), "counted" if rec.counted else "void", verified)
    if seat in call.defaults:
        return CellView("default (did not vote)", "default", verified)
    return CellView("", "empty", verified)


def _describe(call: VoteCall, rec: VoterRecord) -> str:
    """First line: counted?, time after the call, confidence; second: form and why void."""
    parts = ["✔" if rec.counted else "✖"]
    if rec.t_place is not None and call.t_call is not None:
        parts.append(f"{rec.t_place - call.t_call:+.1f} s")
    if rec.confidence is not None:
        parts.append(f"{rec.confidence:.0%}")
    second = rec.form.replace("_", " ") if rec.form and rec.form != "unknown" else ""
    if not rec.counted and rec.reason:
        second += f" ({rec.reason.replace('_', ' ')})"
    return " ".join(parts) + ("\n" + second.strip() if second.strip() else "") + _edges(call, rec)


def _edges(call: VoteCall, rec: VoterRecord) -> str:
    """Edges timed at the full frame rate, against "Thank you": what decides a
    late vote or an early lift, to the frame."""
    if call.t_thanks is None:
        return ""
    said = []
    if rec.timing == "full_rate" and rec.t_place is not None:
        said.append(f"landed {rec.t_place - call.t_thanks:+.2f} s")
    if rec.lift_timing == "full_rate" and rec.t_lift is not None:
        said.append(f"lifted {rec.t_lift - call.t_thanks:+.2f} s")
    return ("\n" + ", ".join(said) + " from “thank you” (25 fps)") if said else ""


def grid_rows(calls: Sequence[VoteCall], verifications: Iterable) -> list[dict[str, CellView]]:
    """One dict per call: seat (as str) -> CellView."""
    standing = {}
    for v in verifications:
        standing[(v.round, v.pass_, v.candidate, v.voter_seat)] = v.verdict.value
    rows = []
    for call in calls:
        rows.append({str(seat): cell(call, seat, standing.get((call.round, call.pass_, call.candidate, seat)))
                     for seat in SEATS})
    return rows


COLOURS = {"counted": "#d8f5d0", "void": "#fde2c8", "default": "#e4e4f7", "empty": "#ffffff",
           "unverified": "#e6e6e6"}


def grid_html(labels: Sequence[str], rows: Sequence[dict[str, CellView]]) -> str:
    """The grid as an HTML table: colour = counted / void / default; blue frame = verified."""
    head = "".join(f"<th>{s}</th>" for s in SEATS)
    body = []
    for label, row in zip(labels, rows):
        cells = []
        for seat in SEATS:
            c = row[str(seat)]
            lines = [html.escape(x) for x in c.text.split("\n") if x]
            inner = "<br><small>".join(lines[:1] + lines[1:2]) + ("</small>" if len(lines) > 1 else "")
            if c.verified:
                inner += f"<br><b>✓ {html.escape(c.verified.replace('_', ' '))}</b>"
            border = "3px solid #1f77b4" if c.verified else "1px solid #ddd"
            cells.append(f'<td style="background:{COLOURS[c.state]};border:{border};padding:4px;'
                         f'vertical-align:top;font-size:0.8rem">{inner}</td>')
        # the label wraps inside its fixed column: unwrapped, a revote's label ran
        # into seat 1's cell; its clock time stays on one line
        text = html.escape(label).replace(" @ ", "<br>@&nbsp;")
        body.append(f'<tr><th style="text-align:left;padding:4px;vertical-align:top">{text}</th>'
                    f'{"".join(cells)}</tr>')
    return ('<table style="border-collapse:collapse;width:100%;table-layout:fixed">'
            f'<tr><th style="width:11rem">call \\ seat</th>{head}</tr>{"".join(body)}</table>')


def totals(calls: Sequence[VoteCall]) -> list[dict]:
    out = []
    for c in calls:
        diff = None if c.announced is None or c.recount is None else c.recount - c.announced
        out.append({"vote": call_label(c), "announced": c.announced, "recount": c.recount,
                    "difference": diff, "mismatch": "⚠ yes" if c.mismatch else "",
                    "cannot judge": ", ".join(str(s) for s, _ in c.unverified)})
    return out


def _last_pass(calls: Sequence[VoteCall]) -> list[VoteCall]:
    """The candidate calls of the day's last pass: the ones that decided who left."""
    first = [c for c in calls if c.kind == "candidate" and c.candidate is not None]
    last_pass = max((c.pass_ for c in first), default=None)
    return [c for c in first if c.pass_ == last_pass]


def open_cells(calls: Sequence[VoteCall]) -> int:
    """Cells the picture could not judge in the calls `outcome` weighs: where there are any,
    the recount's totals are lower bounds, not an outcome."""
    return sum(len(c.unverified) for c in _last_pass(calls))


def outcome(calls: Sequence[VoteCall], counts: str = "announced") -> str:
    """Who leaves by the given counts (first pass of candidates only; ties listed)."""
    group = _last_pass(calls)
    if not group:
        return "—"
    values = {c.candidate: getattr(c, counts) for c in group}
    if any(v is None for v in values.values()):
        return "unknown (no count)"
    top = max(values.values())
    leaders = sorted(s for s, v in values.items() if v == top)
    scores = ":".join(str(values[c.candidate]) for c in group)
    if len(leaders) == 1:
        return f"seat {leaders[0]} leaves ({scores})"
    return f"seats {', '.join(map(str, leaders))} tie ({scores})"
