"""`mafvar report`: a self-contained HTML report of a game's review, and its JSON twin.

The report reads whatever exists (protocol, incidents, recount, review.db)
and says plainly what is missing; it never creates review.db or changes any
input. The HTML needs no other file: CSS is inline and thumbnails of the
evidence frames are embedded as JPEG data URIs.
"""
from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping

from review.atomic_write import write_json_atomic, write_text_atomic
from review.coverage import coverage, coverage_text, timeline_intervals
from review.incidents import EvidenceKind, IncidentFormatError, load_incidents, sort_by_priority
from review.recount_file import RecountFormatError, load_recount
from review.stakes import load_stakes
from review.store import ReviewStore, ReviewStoreError
from review.workspace import GameWorkspace, WorkspaceError

REPORT_FORMAT = "mafvar-report"
REPORT_VERSION = 1
THUMB_SIZE = (320, 200)
THUMBS_PER_INCIDENT = 3


@dataclass(frozen=True)
class ReportPaths:
    html: Path
    json: Path
    problems: tuple[str, ...] = ()  # inputs that exist but could not be read


def write_report(game_dir: str | Path) -> ReportPaths:
    """Write analysis/report.html and analysis/report.json; returns their paths."""
    ws = GameWorkspace(game_dir)
    report = build_report(ws)
    ws.analysis_dir.mkdir(parents=True, exist_ok=True)
    json_path = write_json_atomic(ws.report_json_path, report)
    html_path = write_text_atomic(ws.report_html_path, render_html(report, _thumbnailer(ws)))
    return ReportPaths(html=html_path, json=json_path, problems=tuple(report["problems"]))


# -- gathering ---------------------------------------------------------------------------

def build_report(ws: GameWorkspace) -> dict[str, Any]:
    """The report's content as JSON-ready data (the twin of the HTML)."""
    problems: list[str] = []
    inputs: dict[str, str] = {}

    game, inputs["protocol"] = _game_meta(ws, problems)

    incidents = None
    abstained: list[dict[str, Any]] | None = None
    if ws.incidents_path.is_file():
        try:
            inc_file = load_incidents(ws.incidents_path)
            incidents = sort_by_priority(inc_file.incidents)
            abstained = [dict(a) for a in inc_file.abstentions]
            inputs["incidents"] = "ok"
        except (IncidentFormatError, OSError) as exc:
            problems.append(str(exc))
            inputs["incidents"] = "unreadable"
    else:
        inputs["incidents"] = "missing"

    recount = None
    if ws.recount_path.is_file():
        try:
            recount = load_recount(ws.recount_path)
            inputs["recount"] = "ok"
        except (RecountFormatError, OSError) as exc:
            problems.append(str(exc))
            inputs["recount"] = "unreadable"
    else:
        inputs["recount"] = "missing"

    decisions = verifications = appeals = None
    history: dict[str, list[dict[str, Any]]] = {}
    audit_entries = None
    if ws.review_db_path.is_file():
        try:
            with ReviewStore.open(ws.review_db_path) as store:
                all_decisions = store.all_decisions()
                verifications = [v.to_json() for v in store.current_verifications()]
                appeals = [a.to_json() for a in store.appeals()]
                audit_entries = len(store.audit_log())
            for d in all_decisions:
                history.setdefault(d.incident_id, []).append(d.to_json())
            decisions = {"current": {i: h[-1] for i, h in history.items()}, "history": history}
            inputs["review_db"] = "ok"
        except ReviewStoreError as exc:
            problems.append(str(exc))
            inputs["review_db"] = "unreadable"
    else:
        inputs["review_db"] = "missing"

    incident_rows = None
    if incidents is not None:
        incident_rows = []
        for inc in incidents:
            row = inc.to_json()
            chain = history.get(inc.id, [])
            row["decision"] = chain[-1] if chain else None
            row["decision_history"] = chain
            incident_rows.append(row)

    stakes = load_stakes(ws.analysis_dir)
    summary = _summary(incident_rows, recount, decisions, appeals, abstained)
    if recount is not None:
        summary["counts_at_stake"] = sum(1 for p in stakes if p.get("decides"))
        # additive (session 48): how much the picture judged, as the terminal and the app say it
        cov = coverage(recount.calls, timeline_intervals(ws.timeline_path), abstained or [])
        if cov.cells:
            summary["vote_cells"], summary["vote_cells_judged"] = cov.cells, cov.cells_judged
            summary["coverage_text"] = coverage_text(cov, markdown=False)
            summary["coverage_thin"] = cov.thin
    return {
        "format": REPORT_FORMAT,
        "version": REPORT_VERSION,
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "game_dir": str(ws.root),
        "game": game,
        "inputs": inputs,
        "problems": problems,
        "summary": summary,
        "incidents": incident_rows,
        # where a seat could not be judged (review.view); additive
        "abstentions": abstained,
        "recount": {"calls": [c.to_json() for c in recount.calls]} if recount else None,
        # additive (session 44): votes with cells the picture could not judge, weighed (review.stakes)
        "stakes": stakes,
        "decisions": decisions,
        "verifications": verifications,
        "appeals": appeals,
        "audit_entries": audit_entries,
    }


def _game_meta(ws: GameWorkspace, problems: list[str]) -> tuple[dict[str, Any] | None, str]:
    if not ws.protocol_path.is_file():
        return None, "missing"
    try:
        doc = ws.read_protocol()
    except WorkspaceError as exc:
        problems.append(str(exc))
        return None, "unreadable"
    game = doc.get("game") if isinstance(doc.get("game"), dict) else {}
    keys = ("tournament", "table", "number", "date", "judge", "side_judges", "profile")
    meta: dict[str, Any] = {k: game[k] for k in keys if k in game}
    seats = doc.get("seats") if isinstance(doc.get("seats"), list) else []
    meta["seats"] = [{k: s.get(k) for k in ("seat", "name", "role") if k in s}
                     for s in seats if isinstance(s, dict)]
    events = doc.get("events") if isinstance(doc.get("events"), list) else []
    results = [e for e in events if isinstance(e, dict) and e.get("type") == "result"]
    meta["result"] = results[-1].get("winner") if results else None
    return meta, "ok"


def _summary(incidents: list[dict] | None, recount: Any, decisions: dict | None,
             appeals: list[dict] | None, abstained: list[dict] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if abstained is not None:
        out["not_judged"] = len({(a.get("seat"), a.get("key")) for a in abstained})
    if incidents is not None:
        by_type: dict[str, int] = {}
        for inc in incidents:
            by_type[inc["type"]] = by_type.get(inc["type"], 0) + 1
        out["incidents"] = len(incidents)
        out["by_type"] = dict(sorted(by_type.items()))
        out["changes_result"] = sum(1 for i in incidents if i["impact"]["changes_result"])
        out["changes_exit"] = sum(1 for i in incidents if i["impact"]["changes_exit"])
        out["decided"] = sum(1 for i in incidents if i["decision"])
    if recount is not None:
        out["vote_calls"] = len(recount.calls)
        out["miscounts"] = sum(1 for c in recount.calls if c.mismatch)
        out["unverified_cells"] = sum(len(c.unverified) for c in recount.calls)
    if decisions is not None:
        out["decisions"] = sum(len(h) for h in decisions["history"].values())
    if appeals is not None:
        out["appeals"] = len(appeals)
        out["open_appeals"] = sum(1 for a in appeals if a["status"] == "open")
    return out


# -- thumbnails --------------------------------------------------------------------------

def _thumbnailer(ws: GameWorkspace) -> Callable[[str], str | None]:
    def thumb(relative: str) -> str | None:
        path = ws.resolve(relative)
        if path is None or not path.is_file():
            return None
        try:
            from PIL import Image

            with Image.open(path) as img:
                img = img.convert("RGB")
                img.thumbnail(THUMB_SIZE)
                buf = io.BytesIO()
                img.save(buf, format="JPEG", quality=75)
        except Exception:  # an unreadable image must not stop the report
            return None
        return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    return thumb


# -- rendering ---------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em;color:#1d1d1f;max-width:1200px}
h1{margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;width:100%;margin:.5em 0 1em}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top;font-size:.92em}
th{background:#f4f4f6}.meta td:first-child{font-weight:600;width:12em}
.empty{padding:1em;background:#fff8e1;border-left:4px solid #f2b600}
.problem{padding:.5em 1em;background:#fdecea;border-left:4px solid #d93025}
.result{background:#fdecea}.exit{background:#fff4e5}
.tag{display:inline-block;padding:0 6px;border-radius:8px;font-size:.85em;background:#eee}
.confirmed{background:#d7f5dd}.rejected{background:#f2f2f2;color:#777}.unsure{background:#fff2c2}
.open{background:#fff2c2}.late{color:#d93025;font-weight:600}
.mismatch{background:#fdecea;font-weight:600}.void{color:#999;text-decoration:line-through}
img.thumb{max-width:160px;border:1px solid #ccc;margin:2px}
details{margin-top:4px}small{color:#666}
"""


def render_html(report: Mapping[str, Any], thumbnail: Callable[[str], str | None]) -> str:
    game = report.get("game")
    title = "Review report"
    if game:
        bits = [str(game[k]) for k in ("tournament", "date") if game.get(k)]
        if game.get("table") is not None:
            bits.append(f"table {game['table']}")
        if game.get("number") is not None:
            bits.append(f"game {game['number']}")
        if bits:
            title += ": " + ", ".join(bits)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p><small>Generated {_e(report.get('generated_at'))} from {_e(report.get('game_dir'))}"
        "</small></p>",
    ]
    for problem in report.get("problems") or []:
        parts.append(f'<p class="problem">{_e(problem)}</p>')
    parts += _game_section(report)
    parts += _summary_section(report)
    parts += _incidents_section(report, thumbnail)
    parts += _not_judged_section(report)
    parts += _recount_section(report)
    parts += _decisions_section(report)
    parts += _appeals_section(report)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _game_section(report: Mapping[str, Any]) -> list[str]:
    out = ["<h2>Game</h2>"]
    game = report.get("game")
    if not game:
        state = report["inputs"].get("protocol")
        out.append(_empty("No protocol: protocol.json is " + str(state) + "."))
        return out
    rows = [(k.replace("_", " ").capitalize(), game.get(k))
            for k in ("tournament", "date", "table", "number", "judge", "side_judges",
                      "profile", "result") if game.get(k) not in (None, "", [])]
    out.append('<table class="meta">' + "".join(
        f"<tr><td>{_e(k)}</td><td>{_e(_join(v))}</td></tr>" for k, v in rows) + "</table>")
    if game.get("seats"):
        out.append("<table><tr><th>Seat</th><th>Name</th><th>Role</th></tr>" + "".join(
            f"<tr><td>{_e(s.get('seat'))}</td><td>{_e(s.get('name', ''))}</td>"
            f"<td>{_e(s.get('role', ''))}</td></tr>" for s in game["seats"]) + "</table>")
    return out


def _summary_section(report: Mapping[str, Any]) -> list[str]:
    s = report.get("summary") or {}
    if not s:
        return []
    labels = [("incidents", "Incidents"), ("changes_result", "Change the result"),
              ("changes_exit", "Change an exit"), ("decided", "Decided"),
              ("vote_calls", "Vote calls recounted"), ("miscounts", "Miscounts"),
              ("decisions", "Decisions recorded"), ("appeals", "Appeals"),
              ("open_appeals", "Open appeals")]
    rows = "".join(f"<tr><td>{_e(label)}</td><td>{_e(s[key])}</td></tr>"
                   for key, label in labels if key in s)
    out = ["<h2>Summary</h2>", f'<table class="meta">{rows}</table>']
    if s.get("coverage_text"):
        # before the incidents: "no incident" where little was judged is not a clean game
        out.append(f'<p class="problem">{_e(s["coverage_text"])}</p>' if s.get("coverage_thin") else
                   f"<p>{_e(s['coverage_text'])}</p>")
    return out


def _incidents_section(report: Mapping[str, Any], thumbnail: Callable[[str], str | None]
                       ) -> list[str]:
    out = ["<h2>Incidents</h2>"]
    incidents = report.get("incidents")
    if incidents is None:
        state = report["inputs"].get("incidents")
        out.append(_empty(f"No analysis yet: analysis/incidents.json is {state}. "
                          "Run <code>mafvar analyze GAME_DIR</code>.", raw=True))
        return out
    if not incidents:
        out.append(_empty("The analysis found no incidents."))
        return out
    out.append("<table><tr><th>#</th><th>What</th><th>Seats</th><th>When</th><th>Phase</th>"
               "<th>Conf.</th><th>Rule</th><th>Impact</th><th>Evidence</th><th>Decision</th></tr>")
    for n, inc in enumerate(incidents, 1):
        impact = inc["impact"]
        cls = "result" if impact["changes_result"] else "exit" if impact["changes_exit"] else ""
        what = f"{inc['type']}" + (f" ({inc['violation']})" if inc.get("violation") else "")
        rule = "<br>".join(_e(x) for x in (inc.get("clause"), inc.get("sanction")) if x)
        effect = []
        if impact["changes_result"]:
            effect.append("changes the result")
        elif impact["changes_exit"]:
            effect.append("changes who leaves")
        if impact.get("summary"):
            effect.append(impact["summary"])
        out.append(
            f'<tr class="{cls}" id="{_e(inc["id"])}"><td>{n}</td>'
            f"<td>{_e(what)}<br><small>{_e(inc['id'])} · {_e(inc['source'])}</small></td>"
            f"<td>{_e(', '.join(str(s) for s in inc['seats']))}</td>"
            f"<td>{_e(_span(inc.get('t0'), inc.get('t1')))}</td>"
            f"<td>{_e(inc['phase'].get('label') or inc['phase'].get('key'))}</td>"
            f"<td>{inc['confidence']:.2f}</td><td>{rule}</td>"
            f"<td>{_e('; '.join(effect)) or '—'}</td>"
            f"<td>{_evidence_cell(inc, thumbnail)}</td>"
            f"<td>{_decision_cell(inc)}</td></tr>")
    out.append("</table>")
    return out


def _evidence_cell(inc: Mapping[str, Any], thumbnail: Callable[[str], str | None]) -> str:
    cells, shown = [], 0
    for ev in inc.get("evidence", []):
        label = f"{ev['kind']} {_clock(ev.get('t'))}".strip()
        if ev["kind"] in (EvidenceKind.FRAME.value, EvidenceKind.CROP.value) \
                and shown < THUMBS_PER_INCIDENT:
            uri = thumbnail(ev["path"])
            if uri:
                shown += 1
                cells.append(f'<img class="thumb" alt="{_e(label)}" title="{_e(ev["path"])}" '
                             f'src="{uri}">')
                continue
        # The report sits in analysis/, evidence paths are relative to the game folder.
        cells.append(f'<a href="../{_e(ev["path"])}">{_e(label)}</a>')
    return "<br>".join(cells) or "—"


def _decision_cell(inc: Mapping[str, Any]) -> str:
    current = inc.get("decision")
    if not current:
        return '<span class="tag open">not reviewed</span>'
    out = [_decision_line(current)]
    earlier = inc.get("decision_history", [])[:-1]
    if earlier:
        out.append(f"<details><summary>{len(earlier)} earlier</summary>" + "<br>".join(
            _decision_line(d) for d in reversed(earlier)) + "</details>")
    return "".join(out)


def _decision_line(d: Mapping[str, Any]) -> str:
    note = f"<br><small>{_e(d['note'])}</small>" if d.get("note") else ""
    return (f'<span class="tag {_e(d["verdict"])}">{_e(d["verdict"])}</span> '
            f"{_e(d['reviewer'])} <small>({_e(d['role'])}, {_e(_stamp(d['created_at']))})</small>"
            f"{note}")


def _recount_section(report: Mapping[str, Any]) -> list[str]:
    out = ["<h2>Vote recount</h2>"]
    recount = report.get("recount")
    verified = {(v["round"], v["pass"], v["candidate"], v["voter_seat"]): v
                for v in report.get("verifications") or []}
    if recount is None:
        state = report["inputs"].get("recount")
        out.append(_empty(f"No recount yet: analysis/recount.json is {state}."))
    elif not recount["calls"]:
        out.append(_empty("The recount holds no vote calls."))
    else:
        out.append("<table><tr><th>Round</th><th>Pass</th><th>Candidate</th><th>Call</th>"
                   "<th>Announced</th><th>Recount</th><th>Voters (seat: placed–lifted, form)</th>"
                   "<th>Defaults</th><th>Unverified (could not be judged)</th></tr>")
        for call in recount["calls"]:
            unverified = call.get("unverified") or []
            mismatch = (call.get("announced") is not None and call.get("recount") is not None
                        and not call["recount"] <= call["announced"] <= call["recount"] + len(unverified))
            flag = ' class="mismatch"' if mismatch else ""
            candidate = "all leave?" if call.get("candidate") is None else call["candidate"]
            voters = []
            for v in call.get("voters", []):
                key = (call["round"], call["pass"], call.get("candidate"), v["seat"])
                text = (f"{v['seat']}: {_clock(v.get('t_place'))}–{_clock(v.get('t_lift'))}, "
                        f"{v.get('form', '')}")
                if v.get("reason"):
                    text += f" ({v['reason']})"
                cls = "" if v.get("counted") else ' class="void"'
                line = f"<span{cls}>{_e(text)}</span>"
                if key in verified:
                    ver = verified[key]
                    line += (f' <span class="tag">verified {_e(ver["verdict"])} by '
                             f'{_e(ver["reviewer"])}</span>')
                voters.append(line)
            out.append(
                f"<tr><td>{_e(call['round'])}</td><td>{_e(call['pass'])}</td>"
                f"<td>{_e(candidate)}</td><td>{_e(_clock(call.get('t_call')))}</td>"
                f"<td{flag}>{_e(_dash(call.get('announced')))}</td>"
                f"<td{flag}>{_e(_dash(call.get('recount')))}</td>"
                f"<td>{'<br>'.join(voters) or '—'}</td>"
                f"<td>{_e(', '.join(str(s) for s in call.get('defaults', [])) or '—')}</td>"
                f"<td>{_e(_unverified_text(unverified)) or '—'}</td></tr>")
        out.append("</table>")
    at_stake = [p for p in report.get("stakes") or [] if p.get("decides")]
    if at_stake:
        # the open cells that could have changed who left: where a judge looks by hand
        out.append("<h3>Votes the picture could not settle</h3><ul>")
        out.extend(f"<li>{_e(p.get('text', ''))}</li>" for p in at_stake)
        out.append("</ul>")
    if report.get("verifications"):
        out.append("<h3>Side-judge verifications</h3><table><tr><th>Round</th><th>Pass</th>"
                   "<th>Candidate</th><th>Voter</th><th>Verdict</th><th>By</th><th>Note</th></tr>")
        for v in report["verifications"]:
            out.append(f"<tr><td>{_e(v['round'])}</td><td>{_e(v['pass'])}</td>"
                       f"<td>{_e(_dash(v['candidate'], 'all leave?'))}</td>"
                       f"<td>{_e(v['voter_seat'])}</td><td>{_e(v['verdict'])}</td>"
                       f"<td>{_e(v['reviewer'])} <small>({_e(v['role'])})</small></td>"
                       f"<td>{_e(v['note'])}</td></tr>")
        out.append("</table>")
    return out


def _unverified_text(cells: list[dict]) -> str:
    """'4 (dark), 7 (unread)': the seats whose cell could not be judged, and why."""
    return ", ".join(f"{c['seat']} ({', '.join(c.get('why') or ['not seen'])})" for c in cells)


def _not_judged_section(report: Mapping[str, Any]) -> list[str]:
    """Which seats and intervals the analysis could not judge, and why (review.view)."""
    from review.view import Abstention, aspect
    abstained = report.get("abstentions")
    if abstained is None:
        return []
    out = ["<h2>Could not be judged</h2>"]
    if not abstained:
        out.append(_empty("Every seat could be judged in every checked interval."))
        return out
    out.append("<p>No foul is raised and no vote cell is decided where the picture cannot show it; "
               "a judge looks there instead.</p><table><tr><th>Seat</th><th>What</th><th>When</th>"
               "<th>Why</th><th>Not raised</th></tr>")
    for d in abstained:
        a = Abstention.from_json(d)
        out.append(f"<tr><td>{a.seat}</td><td>{_e(aspect(a))}</td><td>{_e(_span(a.t0, a.t1))}</td>"
                   f"<td>{_e(a.reason)}</td><td>{_e(', '.join(a.withheld)) or '—'}</td></tr>")
    out.append("</table>")
    return out


def _decisions_section(report: Mapping[str, Any]) -> list[str]:
    out = ["<h2>Decisions</h2>"]
    decisions = report.get("decisions")
    if decisions is None:
        out.append(_empty(f"No decisions yet: review.db is {report['inputs'].get('review_db')}."))
        return out
    if not decisions["history"]:
        out.append(_empty("No decisions recorded yet."))
        return out
    out.append("<table><tr><th>Incident</th><th>Current</th><th>History (newest first)</th></tr>")
    for incident_id, chain in decisions["history"].items():
        out.append(f'<tr><td><a href="#{_e(incident_id)}">{_e(incident_id)}</a></td>'
                   f"<td>{_decision_line(chain[-1])}</td>"
                   f"<td>{'<br>'.join(_decision_line(d) for d in reversed(chain[:-1])) or '—'}"
                   "</td></tr>")
    out.append("</table>")
    if report.get("audit_entries") is not None:
        out.append(f"<p><small>Audit log: {_e(report['audit_entries'])} entries in review.db."
                   "</small></p>")
    return out


def _appeals_section(report: Mapping[str, Any]) -> list[str]:
    out = ["<h2>Appeals</h2>"]
    appeals = report.get("appeals")
    if appeals is None:
        out.append(_empty(f"No appeals: review.db is {report['inputs'].get('review_db')}."))
        return out
    if not appeals:
        out.append(_empty("No appeals filed."))
        return out
    out.append("<table><tr><th>#</th><th>Seat</th><th>Grounds</th><th>Filed</th>"
               "<th>Incidents</th><th>Status</th><th>Ruling</th></tr>")
    for a in appeals:
        after = a.get("minutes_after_end")
        filed = _stamp(a["filed_at"])
        if after is not None:
            filed += f" ({after:.1f} min after the end)"
        late = ' <span class="late">LATE</span>' if a.get("late") else ""
        ruling = a.get("ruling")
        ruling_text = (f"{_e(ruling['ruling'])} by {_e(ruling['reviewer'])}"
                       f"<br><small>{_e(ruling['reasons'])}</small>") if ruling else "—"
        links = ", ".join(f'<a href="#{_e(i)}">{_e(i)}</a>' for i in a["incident_ids"]) or "—"
        out.append(f"<tr><td>{_e(a['id'])}</td><td>{_e(a['filed_by_seat'])}</td>"
                   f"<td>{_e(a['grounds'])}</td><td>{_e(filed)}{late}</td><td>{links}</td>"
                   f'<td><span class="tag {_e(a["status"])}">{_e(a["status"])}</span></td>'
                   f"<td>{ruling_text}</td></tr>")
    out.append("</table>")
    return out


# -- small helpers -----------------------------------------------------------------------

def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _empty(message: str, raw: bool = False) -> str:
    return f'<p class="empty">{message if raw else _e(message)}</p>'


def _stamp(iso: str) -> str:
    """An ISO timestamp from review.db (UTC) as "2026-11-01 20:15:03 UTC"."""
    return iso[:19].replace("T", " ") + " UTC"


def _join(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def _dash(value: Any, none: str = "—") -> Any:
    return none if value is None else value


def _clock(t: Any) -> str:
    """Video seconds as h:mm:ss.s (or m:ss.s)."""
    if t is None:
        return ""
    t = float(t)
    sign = "-" if t < 0 else ""
    t = abs(t)
    hours, rest = divmod(t, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{sign}{int(hours)}:{int(minutes):02d}:{seconds:04.1f}"
    return f"{sign}{int(minutes)}:{seconds:04.1f}"


def _span(t0: Any, t1: Any) -> str:
    if t0 is None:
        return "—"
    return _clock(t0) if t1 is None or t1 == t0 else f"{_clock(t0)}–{_clock(t1)}"
