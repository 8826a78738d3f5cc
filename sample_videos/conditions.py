"""The conditions of a synthetic venue: light, camera, capture, players,
table, props and people around the table (docs/synth.md "Conditions").

`Conditions()` is the default world, exactly what `mafvar synth` renders
without `--conditions`. Every field has a documented allowed range (checked
when a file or `--set` gives it) and a random range (what `draw_conditions`
draws from a seed, always inside the allowed one). A conditions document is
JSON: `{"format": "mafvar-conditions", "version": 1, "camera": {...}, ...}`;
groups and fields left out keep their defaults.

Pure: no numpy, no renderer. `render/world.py` turns conditions into a scene.
"""
from __future__ import annotations

import json
import math
import random
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable

from .director.rng import stream

FORMAT = "mafvar-conditions"
VERSION = 1

LIGHTING = ("default", "warm", "cool", "dim", "bright")
FPS = (25, 30, 50)
# Frame sizes a random draw picks from (480p to 1080p, 16:9 and 4:3).
RANDOM_SIZES = ((854, 480), (640, 480), (1024, 576), (1280, 720), (1600, 900), (1440, 1080), (1920, 1080))
# Where a random camera stands (azimuth, degrees) and how often: behind the
# judge, the corners, the sides, the far end.
PLACEMENTS = ((0, 3), (45, 2), (315, 2), (135, 1), (225, 1), (90, 1), (270, 1), (180, 1))
TABLE_COLOURS = ((0.16, 0.30, 0.22), (0.08, 0.20, 0.12), (0.10, 0.16, 0.35), (0.35, 0.08, 0.10),
                 (0.30, 0.30, 0.30), (0.06, 0.06, 0.07), (0.62, 0.55, 0.42), (0.80, 0.80, 0.76),
                 (0.40, 0.24, 0.12))

Rng = random.Random


class ConditionsError(ValueError):
    """A conditions document or setting outside what the renderer accepts."""


# --- field specs --------------------------------------------------------------
#
# Each field carries in its metadata: kind, the allowed range (lo/hi or
# options), whether None is allowed, a unit, one line of doc and the random
# draw (a function of an rng).

def _fmt(x) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _span(lo, hi) -> str:
    return f"{_fmt(lo)}-{_fmt(hi)}" if lo >= 0 else f"{_fmt(lo)} to {_fmt(hi)}"


def _num(default, lo, hi, doc, draw=None, unit="", optional=False, integer=False, rnd=None):
    kind = "int" if integer else "num"
    if draw is None:
        draw = (lambda r: r.randint(lo, hi)) if integer else (lambda r: r.uniform(lo, hi))
        rnd = rnd or "the whole range"
    return field(default=default, metadata=dict(kind=kind, lo=lo, hi=hi, doc=doc, unit=unit, optional=optional,
                                                draw=draw, rnd=rnd))


def _choice(default, options, doc, draw=None, rnd=None):
    return field(default=default, metadata=dict(kind="choice", options=tuple(options), doc=doc, unit="",
                                                optional=False, draw=draw or (lambda r: r.choice(options)),
                                                rnd=rnd or "any, evenly"))


def _flag(default, doc, p=0.5):
    return field(default=default, metadata=dict(kind="bool", doc=doc, unit="", optional=False,
                                                draw=lambda r: r.random() < p, rnd=f"true {p:.0%} of draws"))


def _colour(default, doc, draw, rnd="one of nine cloth and wood colours, each channel x0.85-1.15"):
    return field(default=default, metadata=dict(kind="colour", doc=doc, unit="RGB 0-1", optional=False, draw=draw,
                                                rnd=rnd))


def _between(lo: float, hi: float) -> tuple[Callable[[Rng], Any], str]:
    return (lambda r: r.uniform(lo, hi)), _span(lo, hi)


def _sometimes(p: float, off, lo: float, hi: float) -> tuple[Callable[[Rng], Any], str]:
    """With probability p a uniform draw in [lo, hi], else `off`."""
    return (lambda r: r.uniform(lo, hi) if r.random() < p else off), f"{_fmt(off)} in {1 - p:.0%} of draws, else {_span(lo, hi)}"


@dataclass(frozen=True)
class Light:
    preset: str = _choice("default", LIGHTING, "base look (the old --lighting presets)", draw=lambda r: "default",
                          rnd="default (level and temperature vary instead)")
    level: float = _num(1.0, 0.4, 1.5, "overall exposure (1 = the default room; 0.4 dark, 1.5 washed out)",
                        draw=_between(0.45, 1.4)[0], rnd=_between(0.45, 1.4)[1])
    temperature: float | None = _num(None, 2700, 6500, "colour temperature of the main light (null = the "
                                     "preset's colour, about 5200 K)", unit="K", optional=True)
    key_azimuth: float | None = _num(None, 0, 360, "where the main light comes from, around the table (same "
                                     "angles as camera.azimuth; null = the default, from the judge's left)",
                                     unit="deg", optional=True)
    key_elevation: float = _num(62.8, 30, 85, "height of the main light above the horizon", unit="deg",
                                draw=_between(35, 85)[0], rnd=_between(35, 85)[1])
    spot: float = _num(0.0, 0.0, 1.5, "strength of a hard spot light over the table (0 = none)",
                       draw=_sometimes(0.5, 0.0, 0.4, 1.5)[0], rnd=_sometimes(0.5, 0.0, 0.4, 1.5)[1])
    spot_radius: float = _num(1.2, 0.5, 2.0, "radius of the spot's pool of light on the table", unit="m",
                              draw=_between(0.6, 1.8)[0], rnd=_between(0.6, 1.8)[1])
    spot_temperature: float = _num(3200, 2700, 6500, "the spot's colour temperature", unit="K")
    mixed: float = _num(0.0, 0.0, 0.8, "strength of a second source of another colour (a window, a lamp; "
                        "0 = none)", draw=_sometimes(0.5, 0.0, 0.2, 0.8)[0], rnd=_sometimes(0.5, 0.0, 0.2, 0.8)[1])
    mixed_temperature: float = _num(6500, 2700, 7500, "the second source's colour temperature", unit="K")
    mixed_azimuth: float = _num(90, 0, 360, "where the second source is, around the table", unit="deg")
    drift: float = _num(0.0, 0.0, 0.3, "auto-exposure drift: how far the camera's gain wanders (fraction)",
                        draw=_sometimes(0.5, 0.0, 0.05, 0.3)[0], rnd=_sometimes(0.5, 0.0, 0.05, 0.3)[1])
    drift_period: float = _num(20.0, 6.0, 60.0, "how slowly it wanders", unit="s")


def _placement(r: Rng) -> float:
    az = r.choices([p for p, _ in PLACEMENTS], [w for _, w in PLACEMENTS])[0]
    return round((az + r.uniform(-12, 12)) % 360, 1)


@dataclass(frozen=True)
class CameraSetup:
    azimuth: float = _num(0.0, 0, 360, "where the camera stands around the table: 0 behind the judge (the "
                          "head), 90 the side of seats 1-5, 180 the far end, 270 the side of seats 6-10; "
                          "corners at 45, 135, 225, 315", unit="deg", draw=_placement,
                          rnd="a side or corner +-12 deg: head 3/12, head corners 2/12 each, far corners, sides, "
                              "foot 1/12 each")
    height: float = _num(2.9, 1.6, 3.5, "camera height above the floor", unit="m")
    distance: float | None = _num(2.75, 1.5, 9.0, "horizontal distance from the table centre (null = "
                                  "framed: as close as shows every seat)", unit="m", optional=True,
                                  draw=lambda r: None, rnd="null (framed)")
    framing: float = _num(1.0, 0.85, 1.25, "with distance null: the framed distance times this (below 1 "
                           "crops the nearest seats)", draw=_between(0.95, 1.15)[0], rnd=_between(0.95, 1.15)[1])
    tilt: float | None = _num(None, 5, 75, "degrees below horizontal (null = aimed at the table)", unit="deg",
                              optional=True, draw=lambda r: None, rnd="null (aimed)")
    fov: float = _num(40.0, 30, 75, "vertical field of view at the frame's centre", unit="deg")
    roll: float = _num(0.0, -5, 5, "rotation about the viewing axis (a camera not level)", unit="deg",
                       draw=_between(-3, 3)[0], rnd=_between(-3, 3)[1])
    distortion: float = _num(0.0, -0.15, 0.05, "radial lens distortion at the frame's corner (-0.1: corners "
                             "pulled 10 % in, a wide lens's barrel)", draw=_sometimes(0.5, 0.0, -0.15, 0.02)[0], rnd=_sometimes(0.5, 0.0, -0.15, 0.02)[1])
    shake: float = _num(0.0, 0.0, 4.0, "camera shake amplitude (the image moves by at most this; "
                        "calibration is for the camera at rest)", unit="px", draw=_sometimes(0.5, 0.0, 0.3, 2.5)[0], rnd=_sometimes(0.5, 0.0, 0.3, 2.5)[1])


@dataclass(frozen=True)
class Capture:
    width: int = _num(1280, 160, 3840, "frame width", unit="px", integer=True, draw=lambda r: None,
                      rnd="with height: one of 854x480, 640x480, 1024x576, 1280x720, 1600x900, 1440x1080, 1920x1080")
    height: int = _num(720, 90, 2160, "frame height (random draws: 480p to 1080p)", unit="px", integer=True,
                       draw=lambda r: None, rnd="see width")
    fps: int = _choice(25, FPS, "frames per second", draw=lambda r: r.choices(FPS, (2, 2, 1))[0],
                       rnd="25 or 30 in 2/5 of draws each, 50 in 1/5")
    crf: int = _num(23, 15, 40, "H.264 quality (lower = better and bigger)", integer=True,
                    draw=lambda r: r.randint(18, 34), rnd="18-34")
    noise: float = _num(0.015, 0.0, 0.08, "sensor noise sigma (fraction of full scale)",
                        draw=_between(0.005, 0.06)[0], rnd=_between(0.005, 0.06)[1])
    blur: float = _num(0.6, 0.0, 2.0, "lens softness: Gaussian sigma", unit="px", draw=_between(0.3, 1.2)[0], rnd=_between(0.3, 1.2)[1])
    motion_blur: float = _num(0.0, 0.0, 0.9, "shutter open for this fraction of a frame: moving hands smear "
                              "(0 = off)", draw=_sometimes(0.5, 0.0, 0.2, 0.8)[0], rnd=_sometimes(0.5, 0.0, 0.2, 0.8)[1])


@dataclass(frozen=True)
class Players:
    """Looks are drawn per seat from the seed as by default, then changed by
    these knobs (at their defaults nothing changes)."""
    skin_min: float = _num(0.0, -0.4, 1.6, "lightest skin tone (0 and 1 bound the default players' tones; "
                           "-0.4 very light, 1.6 very dark)", draw=_between(-0.4, 0.5)[0], rnd=_between(-0.4, 0.5)[1])
    skin_max: float = _num(1.0, -0.4, 1.6, "darkest skin tone", draw=_between(0.6, 1.6)[0], rnd=_between(0.6, 1.6)[1])
    glasses: float = _num(0.0, 0.0, 1.0, "share of players with glasses", draw=_between(0, 0.5)[0], rnd=_between(0, 0.5)[1])
    beards: float = _num(0.0, 0.0, 1.0, "share with a beard or stubble", draw=_between(0, 0.5)[0], rnd=_between(0, 0.5)[1])
    dark_tops: float = _num(0.0, 0.0, 1.0, "share in black or near-black tops", draw=_between(0, 0.7)[0], rnd=_between(0, 0.7)[1])
    dark_sleeves: float = _num(0.0, 0.0, 1.0, "share with dark long sleeves over another top",
                               draw=_between(0, 0.6)[0], rnd=_between(0, 0.6)[1])
    long_hair: float = _num(0.0, 0.0, 1.0, "share with long hair", draw=_between(0, 0.4)[0], rnd=_between(0, 0.4)[1])
    bald: float = _num(0.0, 0.0, 1.0, "share who are bald", draw=_between(0, 0.3)[0], rnd=_between(0, 0.3)[1])
    build: float = _num(0.0, 0.0, 1.0, "spread of body size and girth (0 = the default players' +-5 %)",
                        draw=_between(0.3, 1.0)[0], rnd=_between(0.3, 1.0)[1])
    mask_colour: str = _choice("default", ("default", "black", "dark_blue", "mixed"),
                               "the masks' colour (mixed: each player's own)",
                               draw=lambda r: r.choice(("black", "dark_blue", "mixed")),
                               rnd="black, dark_blue or mixed")
    mask_pattern: float = _num(0.0, 0.0, 1.0, "share of patterned masks (stripes, dots, lace)",
                               draw=_between(0, 0.6)[0], rnd=_between(0, 0.6)[1])
    mask_material: str = _choice("default", ("default", "cloth", "hard", "mixed"),
                                 "cloth (matte, woven) or hard (glossy shell) masks",
                                 draw=lambda r: r.choice(("cloth", "hard", "mixed")),
                                 rnd="cloth, hard or mixed")


def _table_colour(r: Rng) -> tuple[float, float, float]:
    c = r.choice(TABLE_COLOURS)
    red, green, blue = (round(min(1.0, max(0.0, x * r.uniform(0.85, 1.15))), 3) for x in c)
    return red, green, blue


@dataclass(frozen=True)
class Table:
    shape: str = _choice("oval", ("oval", "rectangle"), "table shape (rectangle: rounded corners)")
    length: float = _num(3.1, 2.4, 3.8, "table length (head to foot)", unit="m",
                         draw=_between(2.6, 3.6)[0], rnd=_between(2.6, 3.6)[1])
    width: float = _num(1.8, 1.4, 2.4, "table width", unit="m", draw=_between(1.5, 2.2)[0], rnd=_between(1.5, 2.2)[1])
    colour: tuple[float, float, float] = _colour((0.16, 0.30, 0.22), "the top's colour", _table_colour)
    surface: str = _choice("cloth", ("cloth", "wood", "plastic"), "cloth, bare wood or a smooth plastic top")


@dataclass(frozen=True)
class Props:
    name_plates: bool = _flag(False, "a numbered name plate in front of every seat")
    bottles: int = _num(0, 0, 8, "bottles on the table", integer=True, draw=lambda r: r.randint(0, 5), rnd="0-5")
    phones: int = _num(0, 0, 6, "phones on the table", integer=True, draw=lambda r: r.randint(0, 4), rnd="0-4")
    papers: int = _num(0, 0, 8, "sheets of paper on the table", integer=True, draw=lambda r: r.randint(0, 5), rnd="0-5")


@dataclass(frozen=True)
class People:
    judge: bool = _flag(False, "the judge stands at the head of the table and walks round it now and then",
                        p=0.8)
    judge_walks: float = _num(0.5, 0.0, 2.0, "the judge's walks per minute (each out to a spot by the table, "
                              "a pause, and back)", unit="/min", draw=_between(0.3, 1.5)[0], rnd=_between(0.3, 1.5)[1])
    spectators: int = _num(0, 0, 4, "people standing behind the players (as seen from the camera)",
                           integer=True)


GROUPS = {"light": Light, "camera": CameraSetup, "capture": Capture, "players": Players, "table": Table,
          "props": Props, "people": People}


@dataclass(frozen=True)
class Conditions:
    light: Light = Light()
    camera: CameraSetup = CameraSetup()
    capture: Capture = Capture()
    players: Players = Players()
    table: Table = Table()
    props: Props = Props()
    people: People = People()

    def to_dict(self) -> dict:
        d = {"format": FORMAT, "version": VERSION}
        for name in GROUPS:
            g = asdict(getattr(self, name))
            d[name] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in g.items()}
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1) + "\n"

    def is_default(self) -> bool:
        return self == Conditions()

    def checked(self, where: str = "conditions") -> "Conditions":
        """Itself, or a ConditionsError if fields contradict each other."""
        return _check_consistent(self, where)

    def is_default_world(self) -> bool:
        """Only what the default scene builder already varied (the old
        options: camera height, tilt, distance and field of view behind the
        judge, light, noise, blur, quality, size, rate) differs from the
        default: the scene is built exactly as without conditions."""
        c, li = self.camera, self.light
        return (self.players == Players() and self.table == Table() and self.props == Props()
                and self.people == People() and c.azimuth == 0 and c.roll == 0 and c.distortion == 0
                and c.shake == 0 and c.distance is not None and li.spot == 0 and li.mixed == 0
                and li.drift == 0 and self.capture.motion_blur == 0)

    def with_value(self, path: str, value: Any, where: str = "--set") -> "Conditions":
        """A copy with one field (`group.field`) set, checked against its range."""
        group, _, name = path.partition(".")
        if group not in GROUPS:
            raise ConditionsError(f"{where}: unknown group {group!r} in {path!r}; groups: {', '.join(GROUPS)}")
        cls = GROUPS[group]
        specs = {f.name: f for f in fields(cls)}
        if name not in specs:
            raise ConditionsError(f"{where}: unknown field {path!r}; fields of {group}: {', '.join(specs)}")
        checked = check_value(f"{group}.{name}", specs[name], value, where)
        return replace(self, **{group: replace(getattr(self, group), **{name: checked})})


def _range_text(f) -> str:
    m = f.metadata
    if m["kind"] in ("num", "int"):
        text = _span(m["lo"], m["hi"]) + (f" {m['unit']}" if m["unit"] else "")
        return text + (" or null" if m["optional"] else "")
    if m["kind"] == "choice":
        return "one of " + ", ".join(map(str, m["options"]))
    if m["kind"] == "bool":
        return "true or false"
    return "[r, g, b], each 0-1"


def check_value(path: str, f, value: Any, where: str) -> Any:
    """`value` for field `f`, or a one-line ConditionsError naming the field and its range."""
    m = f.metadata
    bad = ConditionsError(f"{where}: {path} = {json.dumps(value)}: allowed {_range_text(f)}")
    if value is None:
        if m["optional"]:
            return None
        raise bad
    kind = m["kind"]
    if kind in ("num", "int"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise bad
        if kind == "int" and float(value) != int(value):
            raise bad
        if not m["lo"] <= value <= m["hi"]:
            raise bad
        return int(value) if kind == "int" else float(value)
    if kind == "choice":
        if value not in m["options"] or isinstance(value, bool):
            raise bad
        return m["options"][m["options"].index(value)]   # 25.0 from a file is the option 25
    if kind == "bool":
        if not isinstance(value, bool):
            raise bad
        return value
    if (not isinstance(value, (list, tuple)) or len(value) != 3
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x <= 1 for x in value)):
        raise bad
    return tuple(float(x) for x in value)


def conditions_from_dict(doc: Any, where: str = "conditions") -> Conditions:
    if not isinstance(doc, dict):
        raise ConditionsError(f"{where}: expected a JSON object with groups {', '.join(GROUPS)}")
    if "format" in doc and doc["format"] != FORMAT:
        raise ConditionsError(f"{where}: format {doc['format']!r} is not {FORMAT!r}")
    if "version" in doc and doc["version"] != VERSION:
        raise ConditionsError(f"{where}: version {doc['version']!r} is not {VERSION}")
    cond = Conditions()
    for group, body in doc.items():
        if group in ("format", "version"):
            continue
        if group not in GROUPS:
            raise ConditionsError(f"{where}: unknown group {group!r}; groups: {', '.join(GROUPS)}")
        if not isinstance(body, dict):
            raise ConditionsError(f"{where}: {group} must be an object of fields")
        for name, value in body.items():
            cond = cond.with_value(f"{group}.{name}", value, where)
    return _check_consistent(cond, where)


def _check_consistent(cond: Conditions, where: str) -> Conditions:
    p = cond.players
    if p.skin_min > p.skin_max:
        raise ConditionsError(f"{where}: players.skin_min {p.skin_min} is above players.skin_max {p.skin_max}")
    return cond


def load_conditions(path: str | Path) -> Conditions:
    where = str(path)
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConditionsError(f"{where}: cannot read a JSON conditions file ({exc})") from None
    return conditions_from_dict(doc, where)


def parse_setting(text: str) -> tuple[str, Any]:
    """`group.field=VALUE` (VALUE as JSON when it parses, else a string)."""
    key, sep, raw = text.partition("=")
    if not sep or "." not in key:
        raise ConditionsError(f"--set {text!r}: expected GROUP.FIELD=VALUE, e.g. camera.azimuth=45")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


def draw_conditions(seed: int) -> Conditions:
    """Every condition drawn from the seed within its random range."""
    groups = {}
    for name, cls in GROUPS.items():
        r = stream(seed, f"conditions:{name}")
        groups[name] = cls(**{f.name: _round(f.metadata["draw"](r)) for f in fields(cls)})
    w, h = stream(seed, "conditions:size").choice(RANDOM_SIZES)
    groups["capture"] = replace(groups["capture"], width=w, height=h)
    return Conditions(**groups)


def _round(v):
    return round(v, 3) if isinstance(v, float) else v


def field_docs() -> list[tuple[str, str, str, str, str]]:
    """(field, default, allowed range, random draws, doc) for docs/synth.md."""
    rows = []
    for group, cls in GROUPS.items():
        for f in fields(cls):
            default = f.default if f.default is not MISSING else None
            rows.append((f"{group}.{f.name}", json.dumps(list(default) if isinstance(default, tuple) else default),
                         _range_text(f), f.metadata["rnd"], f.metadata["doc"]))
    return rows
