"""Regenerate docs/img/incident-view.png and docs/img/vote-grid.png.

    .venv/bin/python tests/app/make_doc_screenshots.py [GAME_DIR]

Uses the committed sample game when it is analysed, else a fresh fixture
game; works on a copy so no review.db is written into the sample.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).parent))
from app_testlib import ROOT, copy_game, fixtures  # noqa: E402
from test_app_browser import CHROMIUM, CHROMIUM_ARGS, SAMPLE, Server, free_port, wait_text  # noqa: E402

OUT = ROOT / "docs" / "img"


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright
    from review.incidents import load_incidents, sort_by_priority
    from review.store import ReviewStore

    tmp = Path(tempfile.mkdtemp(prefix="mafvar-shots-"))
    src = Path(argv[0]) if argv else SAMPLE
    if (src / "analysis" / "incidents.json").is_file():
        game = copy_game(src, tmp, src.name)
    else:
        game = fixtures.make_game(tmp, "final-table1-game3")
    top = sort_by_priority(load_incidents(game / "analysis" / "incidents.json").incidents)[0]
    with ReviewStore.open(game / "review.db") as s:  # one verified cell, to show the marking
        recount = json.loads((game / "analysis" / "recount.json").read_text())
        call = recount["calls"][0]
        if call.get("voters"):
            s.verify_vote(call["round"], call.get("pass", 1), call["candidate"],
                          call["voters"][0]["seat"], "voted", "Boris", "side_judge")
    server = Server([game], free_port(), tmp / "server.log").start()
    OUT.mkdir(parents=True, exist_ok=True)
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = b.new_page(viewport={"width": 1500, "height": 1900})
            page.set_default_timeout(60_000)
            page.goto(f"{server.url}/incident?game={quote(str(game))}&incident={top.id}"
                      "&reviewer=Anna%20Petrova&role=chief_judge")
            wait_text(page, "Frame ")
            page.get_by_test_id("stImage").first.wait_for()
            page.wait_for_timeout(2500)
            page.screenshot(path=str(OUT / "incident-view.png"))
            page.goto(f"{server.url}/votes?game={quote(str(game))}&reviewer=Boris&role=side_judge")
            wait_text(page, "Announced against recount")
            page.get_by_test_id("stImage").first.wait_for()
            page.wait_for_timeout(2500)
            page.set_viewport_size({"width": 1500, "height": 1250})
            page.screenshot(path=str(OUT / "vote-grid.png"))
            b.close()
    finally:
        server.stop()
    print(f"wrote {OUT / 'incident-view.png'} and {OUT / 'vote-grid.png'} from {game}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
