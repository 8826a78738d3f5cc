"""`mafvar synth`: one synthetic game workspace from a seed (docs/synth.md).

`build_game(options)` is pure (no files): protocol, timing, cast, plan,
injections, truth, audio cues. `write_game(game, out_dir, ...)` writes the
workspace; the video is rendered only when asked, so tests stay fast.
"""
from __future__ import annotations

import json
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine.check import check_document
from engine.profiles import DEFAULT_PROFILE
from review.workspace import CALIBRATION_FILE, DEFAULT_VIDEO_FILE, PROTOCOL_FILE, TRUTH_FILE

from .audio import AudioOptions, audio_truth, cues_from_protocol, render_soundtrack, write_wav
from .conditions import LIGHTING, CameraSetup, Capture, Conditions, Light
from .director.calls import add_shooting_calls
from .director.cast import cast_players
from .director.game import full_game, sample_game
from .director.inject import InjectError, default_selection, inject, random_selection
from .director.model import Plan
from .director.plan import plan_performance
from .director.rng import stream
from .director.timing import judge_record, time_protocol
from .truth import build_truth, dumps

OUTPUT_FILES = (PROTOCOL_FILE, TRUTH_FILE, CALIBRATION_FILE, DEFAULT_VIDEO_FILE)
# With --realistic-timing the idle sway and speaking nod advance in steps of
# this many seconds, so still stretches repeat one rendered frame
# (render.renderer.frame_sources; docs/synth.md "Full-length games").
REUSE_HOLD = 1.0
MAX_TRIES = 40


class SynthError(ValueError):
    """Bad options or a game that cannot be made as asked."""


@dataclass(frozen=True)
class SynthOptions:
    seed: int
    profile: str = DEFAULT_PROFILE
    protocol: dict | None = None          # a native protocol to act instead of the sample game
    inject: tuple[str, ...] | None = None  # None = the seed's default selection
    inject_random: bool = False
    realistic_timing: bool = False
    camera_height: float = 2.9
    camera_tilt: float | None = None       # degrees below horizontal; None = the renderer's default
    fov: float = 40.0
    lighting: str = "default"
    noise: float = 0.015
    crf: int = 23
    width: int = 1280
    height: int = 720
    fps: int = 25
    # Wider worlds (docs/synth.md "Conditions"); None = the default world. The
    # fields above then mirror the conditions' camera, light and capture.
    conditions: Conditions | None = None
    # the sound track (docs/synth.md "Sound"); recorded in truth.json "audio", not "options"
    audio: AudioOptions = AudioOptions()

    def __post_init__(self):
        c = self.conditions
        if c is not None:  # the old fields mirror the conditions (describe() stays truthful)
            for name, value in (("camera_height", c.camera.height), ("camera_tilt", c.camera.tilt),
                                ("fov", c.camera.fov), ("lighting", c.light.preset), ("noise", c.capture.noise),
                                ("crf", c.capture.crf), ("width", c.capture.width), ("height", c.capture.height),
                                ("fps", c.capture.fps)):
                object.__setattr__(self, name, value)

    def describe(self) -> dict:
        d = asdict(self)
        d["protocol"] = "given" if self.protocol is not None else None
        d["inject"] = list(self.inject) if self.inject is not None else None
        del d["audio"]   # truth.json "audio" says what the sound track holds
        if self.conditions is None:
            del d["conditions"]   # a default game's truth.json stays byte for byte as before
        else:
            d["conditions"] = "given"   # the conditions themselves: truth.json "conditions"
        return d

    def effective_conditions(self) -> Conditions:
        """The conditions rendered: the given ones, or the old options' world."""
        if self.conditions is not None:
            return self.conditions
        return Conditions(light=Light(preset=self.lighting),
                          camera=CameraSetup(height=self.camera_height, tilt=self.camera_tilt, fov=self.fov,
                                             distance=2.75),
                          capture=Capture(width=self.width, height=self.height, fps=self.fps, crf=self.crf,
                                          noise=self.noise))


@dataclass
class SyntheticGame:
    options: SynthOptions
    game_seed: int            # the sub-seed the game was drawn with (tries until the properties hold)
    injections: list[str]
    timed: dict               # the timed protocol (with `duration`)
    plan: Plan
    truth: dict
    problems: list[str] = field(default_factory=list)
    scene: object = None      # the render scene, when conditions were given (built with the truth)

    @property
    def protocol(self) -> dict:
        return judge_record(self.timed)

    @property
    def duration(self) -> float:
        return self.plan.duration


def _night_outcomes(protocol: dict) -> list[tuple[str, bool]]:
    """(kill | miss, both checks held) for every shooting night."""
    black = {p["seat"] for p in protocol["seats"] if p["role"] in ("maf", "don")}
    out, cur = [], None
    for ev in protocol["events"] + [{"type": "morning"}]:
        if ev["type"] == "nightfall":
            cur = []
        elif ev["type"] == "morning" and cur is not None:
            called = {e["seat"] for e in cur if e["type"] == "shooting_call"}
            if called:
                shots = {e["by"]: e["target"] for e in cur if e["type"] == "shot"}
                kill = set(shots) == black & called and len(set(shots.values())) == 1
                checks = {e["type"] for e in cur} >= {"don_check", "sheriff_check"}
                out.append(("kill" if kill else "miss", checks))
            cur = None
        elif cur is not None:
            cur.append(ev)
    return out


def sample_properties(truth: dict, protocol: dict | None = None) -> list[str]:
    """What the default sample must show; an empty list means all hold."""
    problems = []
    if protocol is not None:
        nights = _night_outcomes(protocol)
        if {k for k, _ in nights} != {"kill", "miss"} or not all(c for _, c in nights):
            problems.append(f"nights are not a kill and a miss, each with checks: {nights}")
    dur = truth["duration"]
    if not 120 <= dur <= 240:
        problems.append(f"duration {dur:.0f} s not in 2-4 minutes")
    rounds = truth["phases"]["votes"]
    if len({r["day"] for r in rounds if r["kind"] != "raise"}) < 2:
        problems.append("fewer than two days with votes")
    if not any(r["kind"] != "raise" and len(r["judge_outcome"]) > 1 for r in rounds):
        problems.append("no tie")
    nights = [n for n in truth["phases"]["nights"] if n["index"] >= 1]
    if len(nights) < 2:
        problems.append("fewer than two shooting nights")
    kinds = {v["type"] for v in truth["violations"]}
    if len(kinds - {"miscount", "protocol_audit"}) < 3:
        problems.append("fewer than three player violations")
    mis = [v for v in truth["violations"] if v["type"] == "miscount"]
    if not mis or mis[0]["details"]["judge_outcome"] == mis[0]["details"]["true_outcome"] \
            or len(mis[0]["details"]["true_outcome"]) != 1 or len(mis[0]["details"]["judge_outcome"]) != 1:
        problems.append("no miscount changing who leaves")
    return problems


def engine_problems(protocol: dict, expected: set[str]) -> list[str]:
    """Replay with the engine: only the judge errors injected on purpose may
    show as errors or audits."""
    _, issues = check_document(json.loads(json.dumps(protocol)))
    problems = []
    found = set()
    for i in issues:
        if i.severity.value in ("error", "audit"):
            if i.code in expected:
                found.add(i.code)
            else:
                problems.append(f"engine {i.severity.value} {i.code}: {i.message}")
    problems += [f"engine did not report {c}" for c in sorted(expected - found)]
    return problems


def _selection(opts: SynthOptions) -> list[str]:
    if opts.inject is not None:
        return list(opts.inject)
    if opts.inject_random:
        return random_selection(opts.seed)
    return default_selection(opts.seed)


def _attempt(opts: SynthOptions, game_seed: int, names: list[str]) -> SyntheticGame:
    if opts.protocol is not None:
        if "protocol_audit" in names:
            raise SynthError("protocol_audit can only be injected into the generated game")
        base = add_shooting_calls(opts.protocol)
    elif opts.realistic_timing:
        base = full_game(game_seed, opts.profile, forbidden_raise="protocol_audit" in names)
    else:
        base = sample_game(game_seed, opts.profile, forbidden_raise="protocol_audit" in names)
    timed = time_protocol(base, game_seed, realistic=opts.realistic_timing)
    plan = plan_performance(timed, game_seed, cast_players(game_seed))
    inject(plan, timed, names, game_seed)
    truth = build_truth(plan, opts.seed, opts.describe())
    truth["game_seed"] = game_seed
    truth["audio_cues"] = [{"t": round(c.t, 2), "kind": c.kind} for c in cues_from_protocol(timed)]
    truth["audio"] = audio_truth(timed, opts.seed, opts.audio)
    return SyntheticGame(opts, game_seed, names, timed, plan, truth)


def build_game(opts: SynthOptions) -> SyntheticGame:
    """The seed's game: sub-seeds are tried in a fixed order until the game
    takes every injection (and, with only a seed, has the sample's properties
    and replays cleanly in the engine)."""
    from .director.inject import EXPECTED_ISSUES
    names = _selection(opts)
    seed_only = opts.protocol is None and opts.inject is None and not opts.inject_random
    expected = {EXPECTED_ISSUES[n] for n in names if n in EXPECTED_ISSUES}
    sub = stream(opts.seed, "game-seed")
    last: list[str] = []
    tries = 1 if opts.protocol is not None else MAX_TRIES
    for k in range(tries):
        game_seed = opts.seed if k == 0 else sub.randrange(1, 2**31)
        try:
            game = _attempt(opts, game_seed, names)
        except InjectError as exc:
            last = [str(exc)]
            continue
        problems = sample_properties(game.truth, game.protocol) if seed_only and not opts.realistic_timing else []
        if opts.protocol is None:
            problems += engine_problems(game.protocol, expected)
        if not problems:
            if opts.conditions is not None:
                add_world_truth(game)
            return game
        last = problems
    raise SynthError(f"no game for seed {opts.seed} after {tries} tries: {'; '.join(last)}")


# ---------------------------------------------------------------- outputs

def build_scene(opts: SynthOptions, duration: float = 200.0):
    """The render scene of these options (`duration`: the game's, for the judge's walks)."""
    from .render.world import scene_from_conditions
    if opts.lighting not in LIGHTING:
        raise SynthError(f"unknown lighting {opts.lighting!r}; choose from {', '.join(LIGHTING)}")
    return scene_from_conditions(opts.effective_conditions(), opts.seed, duration)


def add_world_truth(game: SyntheticGame) -> None:
    """truth.json's record of a wider world: the conditions and the camera
    they placed, each seat's look and view, the judge's walks and the seats
    they hide, the props."""
    from .render.looks import SlotLook, look_record
    from .render.world import camera_record, scene_from_conditions
    from .view import judge_occlusions, seat_views
    opts = game.options
    scene = scene_from_conditions(opts.conditions, opts.seed, game.duration)
    game.scene = scene
    world = scene.world
    looks = world.looks if world is not None else {}
    views, state = seat_views(scene)
    judge = world.judge if world is not None else None
    t = game.truth
    t["conditions"] = opts.conditions.to_dict()
    t["camera"] = camera_record(scene.camera)
    t["looks"] = {str(s): look_record(seat.appearance, looks.get(s, SlotLook()))
                  for s, seat in sorted(scene.seats.items())}
    t["view"] = views
    t["judge"] = {"present": judge is not None,
                  "walks": [] if judge is None else [
                      {"t0": round(a, 2), "t1": round(b, 2)} for a, b in judge.windows()]}
    t["occlusions"] = judge_occlusions(scene, state, game.duration)
    t["props"] = list(world.props_placed) if world is not None else []


def calibration(scene, opts: SynthOptions) -> dict:
    from .render.renderer import seat_regions
    regions = seat_regions(scene)
    return {
        "format": "mafvar-calibration", "version": 1,
        "cameras": {"cam1": {"width": scene.camera.width, "height": scene.camera.height, "seats": {
            str(s): {"body": list(map(int, r["body"])), "table_zone": list(map(int, r["table_zone"])),
                     "head": r["head"]}
            for s, r in sorted(regions.items())}}},
        "confirmed_by": "synth",
    }


def check_out_dir(out: Path, force: bool) -> None:
    if out.exists() and not out.is_dir():
        raise SynthError(f"{out} exists and is not a folder")
    if out.exists() and any(out.iterdir()) and not force:
        raise SynthError(f"{out} is not empty; use --force to overwrite the synth outputs there "
                         "(a review.db is never touched)")


def write_game(game: SyntheticGame, out: Path, video: bool = True, progress=None, workers: int = 2) -> dict:
    """Write the workspace files; returns figures (rendering speed).

    Synth outputs of an earlier run that this run does not write (a video
    after `--no-video`) are removed so the folder never mixes two games;
    nothing else in the folder (review.db, analysis/) is touched."""
    out.mkdir(parents=True, exist_ok=True)
    for name in OUTPUT_FILES:
        if (out / name).is_file():
            (out / name).unlink()
    opts = game.options
    (out / PROTOCOL_FILE).write_text(json.dumps(game.protocol, indent=1, ensure_ascii=False) + "\n")
    (out / TRUTH_FILE).write_text(dumps(game.truth))
    figures: dict = {"duration": game.duration}
    try:
        scene = game.scene if game.scene is not None else build_scene(opts, game.duration)
    except ImportError as exc:  # the renderer is not there: no calibration, no video
        if video:
            raise SynthError(f"the renderer is not available ({exc})") from None
        return figures
    (out / CALIBRATION_FILE).write_text(json.dumps(calibration(scene, opts), indent=1) + "\n")
    if not video:
        return figures
    from .director.script import build_scripts
    from .render.renderer import render_video
    scripts = build_scripts(game.plan)
    nights = [(n.t_nightfall, n.t_morning if n.t_morning is not None else game.duration) for n in game.plan.nights]
    samples = _soundtrack(game.timed, game.duration, nights, opts.seed, opts.audio, opts.realistic_timing)
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "audio.wav"
        write_wav(samples, wav)
        t0 = time.perf_counter()
        stats = render_video(scene, scripts, game.duration, out / DEFAULT_VIDEO_FILE, fps=opts.fps, audio=wav,
                             crf=opts.crf, workers=workers, progress=progress,
                             hold=REUSE_HOLD if opts.realistic_timing else None)
        figures["render_seconds"] = time.perf_counter() - t0
    figures.update(stats)
    return figures


def _soundtrack(timed: dict, duration: float, nights, seed: int, audio: AudioOptions, long: bool):
    from .speech import SpeechError
    try:
        return render_soundtrack(timed, duration, nights, seed, audio, noise_block=60.0 if long else None)
    except SpeechError as exc:
        raise SynthError(str(exc)) from None


def revoice(out: Path, seed: int, audio: AudioOptions = AudioOptions()) -> dict:
    """A new sound track for an already rendered game, without rendering a frame:
    the track is made from the workspace's own protocol.json (the timed record)
    and truth.json, and muxed with the video stream copied (its frames stay byte
    for byte); truth.json's "audio" is rewritten, nothing else in it."""
    import os
    import subprocess

    from .render.renderer import _ffmpeg
    video, ppath, tpath = out / DEFAULT_VIDEO_FILE, out / PROTOCOL_FILE, out / TRUTH_FILE
    for p in (video, ppath, tpath):
        if not p.is_file():
            raise SynthError(f"{out}: no {p.name}; --audio-only re-voices a rendered synthetic game")
    try:
        timed = json.loads(ppath.read_text(encoding="utf-8"))
        truth = json.loads(tpath.read_text(encoding="utf-8"))
        duration = float(truth["duration"])
    except (ValueError, KeyError) as exc:
        raise SynthError(f"{out}: protocol.json or truth.json unreadable ({exc})") from None
    if truth.get("seed") is not None and int(truth["seed"]) != seed:
        raise SynthError(f"{out}: the game was made with seed {truth['seed']}, not {seed}")
    if not any("t" in ev for ev in timed.get("events", [])):
        raise SynthError(f"{ppath}: the protocol has no times; the calls cannot be placed")
    nights = [(float(n["nightfall"]), float(n["morning"]) if n.get("morning") is not None else duration)
              for n in truth.get("phases", {}).get("nights", [])]
    samples = _soundtrack(timed, duration, nights, seed, audio, duration > 900)
    with tempfile.TemporaryDirectory(dir=out, prefix=".revoice-") as tmp:
        wav = Path(tmp) / "audio.wav"
        write_wav(samples, wav)
        muxed = Path(tmp) / DEFAULT_VIDEO_FILE
        cmd = [_ffmpeg(), "-y", "-loglevel", "error", "-i", str(video), "-i", str(wav),
               "-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "aac", "-b:a", "96k",
               "-movflags", "+faststart", str(muxed)]
        proc = subprocess.run(cmd, capture_output=True)
        if proc.returncode != 0:
            raise SynthError(f"ffmpeg could not mux the new sound track into {video}: "
                             f"{proc.stderr.decode('utf-8', 'replace').strip()[-300:]}")
        truth["audio"] = audio_truth(timed, seed, audio)
        os.replace(muxed, video)
    tpath.write_text(dumps(truth))
    return {"duration": duration, "audio": truth["audio"]}
