"""`mafvar synth`: the synthetic game generator's command line."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from engine.check import check_document
from engine.profiles import DEFAULT_PROFILE, PROFILE_NAMES
from engine.protocol import ProtocolError, parse_json, read_protocol_text
from mafvar.errors import UserError
from sample_videos.conditions import (LIGHTING, Conditions, ConditionsError, draw_conditions, load_conditions,
                                      parse_setting)
from sample_videos.director.inject import InjectError, parse_selection
from sample_videos.audio import AudioOptions
from sample_videos.speech import LANGUAGES
from sample_videos.synth import (OUTPUT_FILES, SynthError, SynthOptions, build_game, check_out_dir, revoice,
                                 write_game)

# The old options' values without --conditions (the default world).
LEGACY_DEFAULTS = {"camera_height": 2.9, "fov": 40.0, "lighting": "default", "noise": 0.015, "crf": 23,
                   "resolution": "1280x720", "fps": 25}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "synth", help="generate a synthetic game: video, protocol, calibration, ground truth",
        description="Generate a synthetic game workspace (video.mp4, protocol.json, calibration.json, "
                    "truth.json). With only a seed it makes a short game like the committed sample, "
                    "with violations and a miscount drawn from the seed. See docs/synth.md.")
    p.add_argument("--seed", type=int, required=True, help="the game's seed (same seed + options = same files)")
    p.add_argument("--out", required=True, help="output folder (must be empty unless --force)")
    p.add_argument("--protocol", help="act this native protocol instead of generating a game")
    p.add_argument("--profile", default=DEFAULT_PROFILE, choices=PROFILE_NAMES,
                   help="rule profile of a generated game")
    inj = p.add_mutually_exclusive_group()
    inj.add_argument("--inject", help="comma-separated violations to inject ('none' for none; name:N for N of "
                     "a type); default: a miscount plus five drawn from the seed")
    inj.add_argument("--inject-random", action="store_true", help="a random set of violations from the seed")
    p.add_argument("--conditions", metavar="random|FILE.json",
                   help="the venue's conditions (light, camera, capture, players, table, props, people): "
                        "'random' draws all of them from the seed, FILE.json sets them; the options below "
                        "override (docs/synth.md \"Conditions\")")
    p.add_argument("--set", action="append", default=[], metavar="GROUP.FIELD=VALUE",
                   help="set one condition, e.g. camera.azimuth=45 (repeatable; implies conditions)")
    p.add_argument("--camera-height", type=float, help="camera height in metres (2.9)")
    p.add_argument("--camera-tilt", type=float, help="camera tilt below horizontal, degrees (about 36)")
    p.add_argument("--fov", type=float, help="vertical field of view, degrees (40)")
    p.add_argument("--lighting", choices=LIGHTING, help="lighting preset (default)")
    p.add_argument("--noise", type=float, help="sensor noise sigma, fraction of full scale (0.015)")
    p.add_argument("--crf", type=int, help="H.264 quality (lower = better, bigger; 23)")
    p.add_argument("--resolution", help="WIDTHxHEIGHT (1280x720)")
    p.add_argument("--fps", type=int, choices=(25, 30, 50), help="frames per second (25)")
    p.add_argument("--realistic-timing", action="store_true",
                   help="a full-length benchmark game: six days and nights played to a result with real "
                        "speech lengths (50-60 s, tie speeches 25-30 s), about 65 minutes; still stretches "
                        "reuse rendered frames (micro-motion in 1 s steps)")
    p.add_argument("--no-video", action="store_true", help="write everything but the video (fast)")
    p.add_argument("--clip", type=float, help="render only the first SECONDS of the video (a preview)")
    p.add_argument("--workers", type=int, default=2, help="rendering processes (2)")
    p.add_argument("--force", action="store_true", help="overwrite synth outputs in a non-empty --out")
    p.add_argument("--language", choices=LANGUAGES, help="the judge's language (default: drawn from the seed)")
    p.add_argument("--tones", action="store_true", help="also the old call tones at every call (off by default)")
    p.add_argument("--night-music", choices=("on", "off"), help="music at night (default: drawn from the seed)")
    p.add_argument("--audio-only", action="store_true",
                   help="re-voice the rendered game in --out: a new sound track from the same seed, muxed "
                        "with the video stream copied (no frame is rendered or re-encoded)")
    p.set_defaults(handler=run_synth)


def _resolution(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        w = h = 0
    if not (64 <= w <= 3840 and 64 <= h <= 2160):
        raise UserError(f"--resolution {text!r}: expected WIDTHxHEIGHT, e.g. 1280x720")
    return w, h


def _protocol_errors(doc: dict) -> list[str]:
    """Errors `mafvar protocol check` would report."""
    _, issues = check_document(doc)
    return [str(i) for i in issues if i.severity.value == "error"]


def options_from_args(args) -> SynthOptions:
    protocol = None
    if args.protocol:
        try:  # size and magnitude limits before any work (mafvar.limits)
            protocol = parse_json(read_protocol_text(args.protocol))
        except ProtocolError as exc:
            raise UserError(f"--protocol {args.protocol}: cannot read a JSON protocol ({exc})") from None
        if not isinstance(protocol, dict) or protocol.get("format") != "mafvar-protocol" \
                or len(protocol.get("seats", [])) != 10:
            raise UserError(f"--protocol {args.protocol}: not a mafvar-protocol with ten seats")
        problems = _protocol_errors(protocol)
        if problems:
            raise UserError(f"--protocol {args.protocol}: invalid ({problems[0]}); "
                            "see `mafvar protocol check`")
    try:
        inject = tuple(parse_selection(args.inject)) if args.inject is not None else None
    except InjectError as exc:
        raise UserError(str(exc)) from None
    common = dict(seed=args.seed, profile=args.profile, protocol=protocol, inject=inject,
                  inject_random=args.inject_random, realistic_timing=args.realistic_timing,
                  audio=audio_options(args))
    conditions = conditions_from_args(args)
    if conditions is not None:
        return SynthOptions(**common, conditions=conditions)
    legacy: dict[str, Any] = {k: (getattr(args, k) if getattr(args, k) is not None else v)
                              for k, v in LEGACY_DEFAULTS.items()}
    if not 0 <= legacy["noise"] <= 0.2:
        raise UserError("--noise must be between 0 and 0.2")
    if not 0 <= legacy["crf"] <= 51:
        raise UserError("--crf must be between 0 and 51")
    w, h = _resolution(legacy["resolution"])
    return SynthOptions(**common, camera_height=legacy["camera_height"], camera_tilt=args.camera_tilt,
                        fov=legacy["fov"], lighting=legacy["lighting"], noise=legacy["noise"], crf=legacy["crf"],
                        width=w, height=h, fps=legacy["fps"])


def audio_options(args) -> AudioOptions:
    music = None if args.night_music is None else args.night_music == "on"
    return AudioOptions(language=args.language, tones=args.tones, music=music)


def run_revoice(args) -> int:
    out = Path(args.out)
    try:
        figures = revoice(out, args.seed, audio_options(args))
    except SynthError as exc:
        raise UserError(str(exc)) from None
    a = figures["audio"]
    v = a["voice"]
    print(f"re-voiced {out / 'video.mp4'}: {figures['duration']:.1f} s, judge in {v['language']} "
          f"({v['variant']}, {v['speed']} wpm), {len(a['calls'])} calls, night music "
          f"{'on' if a['music'] else 'off'}, tones {'on' if a['tones'] else 'off'}; video stream copied")
    return 0


def conditions_from_args(args) -> Conditions | None:
    """--conditions, then each --set, then the old options given explicitly;
    None when none of the first two is given (the default world)."""
    if args.conditions is None and not args.set:
        return None
    try:
        if args.conditions is None:
            cond = Conditions()
        elif args.conditions == "random":
            cond = draw_conditions(args.seed)
        else:
            cond = load_conditions(args.conditions)
        for text in args.set:
            key, value = parse_setting(text)
            cond = cond.with_value(key, value, f"--set {text}")
        flags = (("camera_height", "camera.height", "--camera-height"), ("camera_tilt", "camera.tilt", "--camera-tilt"),
                 ("fov", "camera.fov", "--fov"), ("lighting", "light.preset", "--lighting"),
                 ("noise", "capture.noise", "--noise"), ("crf", "capture.crf", "--crf"), ("fps", "capture.fps", "--fps"))
        for attr, key, flag in flags:
            if getattr(args, attr) is not None:
                cond = cond.with_value(key, getattr(args, attr), flag)
        if args.resolution is not None:
            w, h = _resolution(args.resolution)
            cond = cond.with_value("capture.width", w, "--resolution").with_value("capture.height", h, "--resolution")
        return cond.checked()
    except ConditionsError as exc:
        raise UserError(str(exc)) from None


def describe_conditions(cond: Conditions, camera: dict) -> str:
    """One line: what a viewer of the video would notice first."""
    c, li, cap = cond.camera, cond.light, cond.capture
    dist = f"{camera['distance']:.2f} m" + (" (framed)" if c.distance is None else "")
    return (f"conditions: camera at {c.azimuth:.0f} deg, {dist}, {c.height:.2f} m high, "
            f"{camera['tilt']:.0f} deg down, fov {c.fov:.0f}, "
            f"{cap.width}x{cap.height} {cap.fps} fps crf {cap.crf}; light {li.level:.2f}"
            f"{', spot' if li.spot else ''}{', mixed' if li.mixed else ''}; "
            f"judge {'yes' if cond.people.judge else 'no'}, {cond.people.spectators} behind")


def run_synth(args) -> int:
    if args.audio_only:
        return run_revoice(args)
    opts = options_from_args(args)
    out = Path(args.out)
    try:
        check_out_dir(out, args.force)
        game = build_game(opts)
    except (SynthError, InjectError) as exc:
        raise UserError(str(exc)) from None
    except (KeyError, TypeError, ValueError) as exc:  # a schema-valid record the director cannot act
        raise UserError(f"cannot act this protocol: {type(exc).__name__}: {exc}") from None
    kinds = ", ".join(v["type"] for v in game.truth["violations"]) or "none"
    print(f"game: seed {opts.seed} (sub-seed {game.game_seed}), {game.duration:.1f} s, injected: {kinds}")
    if opts.conditions is not None:
        print(describe_conditions(opts.conditions, game.truth["camera"]))
    if args.clip is not None:
        game.plan.duration = min(game.plan.duration, max(1.0, args.clip))

    def progress(done, total):
        if sys.stderr.isatty():
            print(f"\rrendering {done}/{total} frames", end="", file=sys.stderr, flush=True)
    try:
        figures = write_game(game, out, video=not args.no_video, progress=progress, workers=args.workers)
    except SynthError as exc:
        raise UserError(str(exc)) from None
    if sys.stderr.isatty() and not args.no_video:
        print(file=sys.stderr)
    written = [f for f in OUTPUT_FILES if (out / f).exists()]
    print(f"wrote {out}: {', '.join(written)}")
    if "seconds_per_video_second" in figures:
        print(f"rendered {game.plan.duration:.1f} s of video in {figures['seconds']:.1f} s: "
              f"{figures['seconds_per_video_second']:.2f} s per video second")
        if "rendered" in figures:
            print(f"frames: {figures['frames']} ({figures['rendered']} rendered, {figures['reused']} reused)")
    return 0
