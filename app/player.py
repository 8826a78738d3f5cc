"""An HTML5 video player with loop and slow motion, as a self-contained component.

Streamlit's own st.video has no playback-rate control, so the clip is
embedded as a data URL in a small HTML page whose buttons set
`playbackRate`. Clips are short (seconds), so the payload stays small.
"""
from __future__ import annotations

import base64
from pathlib import Path

MAX_INLINE_BYTES = 40 * 1024 * 1024
RATES = (0.1, 0.25, 0.5, 1.0)

_STYLE = """
<style>
  body { margin: 0; font-family: "Source Sans Pro", sans-serif; font-size: 14px; color: #31333f; }
  .bar { margin-top: 6px; display: flex; gap: 6px; align-items: center; }
  .bar button { border: 1px solid #d0d0d8; background: #fff; border-radius: 6px; padding: 3px 10px;
                cursor: pointer; font-size: 13px; }
  .bar button.on { background: #ff4b4b; color: #fff; border-color: #ff4b4b; }
</style>
"""

_SCRIPT = """
<script>
function setRate(r) {
  const v = document.getElementById('clip');
  v.playbackRate = r;
  document.getElementById('rate-now').textContent = 'playing at ' + r + '×';
  document.querySelectorAll('.bar button').forEach(
    b => b.classList.toggle('on', Number(b.dataset.rate) === r));
}
</script>
"""


def player_html(clip: Path, *, height: int = 360) -> str:
    data = base64.b64encode(clip.read_bytes()).decode("ascii")
    buttons = "".join(
        f'<button onclick="setRate({r})" data-rate="{r}" class="{"on" if r == 1.0 else ""}">'
        f'{r:g}×</button>' for r in RATES)
    return (
        _STYLE
        + f'<video id="clip" src="data:video/mp4;base64,{data}" controls loop muted autoplay '
          f'playsinline style="width:100%; max-height:{height}px; background:#000"></video>'
        + f'<div class="bar"><span>Speed:</span>{buttons}'
          '<label style="margin-left:12px"><input type="checkbox" checked '
          'onchange="document.getElementById(\'clip\').loop=this.checked"> loop</label>'
          '<span id="rate-now" style="margin-left:12px">playing at 1×</span></div>'
        + _SCRIPT)


def can_inline(clip: Path) -> bool:
    return clip.is_file() and clip.stat().st_size <= MAX_INLINE_BYTES
