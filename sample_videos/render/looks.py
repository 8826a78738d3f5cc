"""Player looks beyond the default cast: skin range, build, dark tops and
sleeves, glasses, beards, long hair or none, and masks of other colours,
patterns and materials (conditions.Players).

Looks are drawn from their own seeded stream on top of the default players'
appearances, so with the knobs at their defaults every player is exactly the
default one. What the fragment shader paints per player (glasses, beard,
hair, mask) goes through a look slot: `SlotLook` rows become uniform arrays
(`shaders.py`, WORLD variant), a head's vertex params carry the slot number.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sample_videos.render.body import Appearance

SLOTS = 16            # 0 = the default look; 1-10 the seats; 11-15 the judge and spectators
SKIN_LIGHT = np.array([0.88, 0.68, 0.57])
SKIN_DARK = np.array([0.52, 0.36, 0.26])
DEFAULT_MASK = (0.035, 0.035, 0.045)   # the band colour the default shader paints
DEFAULT_MASK_ON_TABLE = (0.05, 0.05, 0.06)
DARK_TOPS = ((0.03, 0.03, 0.035), (0.06, 0.06, 0.07), (0.04, 0.045, 0.09), (0.09, 0.08, 0.08))
DARK_SLEEVES = ((0.03, 0.03, 0.035), (0.05, 0.05, 0.08), (0.08, 0.06, 0.05))
MASK_COLOURS = {"black": ((0.03, 0.03, 0.035),), "dark_blue": ((0.04, 0.06, 0.2), (0.03, 0.05, 0.14)),
                "mixed": ((0.03, 0.03, 0.035), (0.04, 0.06, 0.2), (0.12, 0.12, 0.13), (0.2, 0.03, 0.05),
                          (0.12, 0.04, 0.16))}
PATTERN_COLOURS = ((0.72, 0.56, 0.2), (0.7, 0.7, 0.72), (0.6, 0.08, 0.08), (0.85, 0.85, 0.85))
PATTERNS = ("plain", "stripes", "dots", "lace")
MATERIALS = ("default", "cloth", "hard")
HAIR_STYLES = ("short", "long", "bald")
GLASSES = ("none", "thin", "thick")
BEARDS = ("none", "stubble", "full")


@dataclass(frozen=True)
class SlotLook:
    """What the shader paints on one head (and what truth.json records)."""
    glasses: str = "none"
    beard: str = "none"
    hair_style: str = "short"
    mask_colour: tuple[float, float, float] = DEFAULT_MASK
    mask_pattern: str = "plain"
    pattern_colour: tuple[float, float, float] = (0.0, 0.0, 0.0)
    mask_material: str = "default"

    @property
    def is_default(self) -> bool:
        return self == SlotLook()

    def uniforms(self) -> tuple[tuple, tuple, tuple]:
        """(look vec4, mask vec4, pattern colour vec3) for the shader."""
        look = (float(GLASSES.index(self.glasses)), float(BEARDS.index(self.beard)),
                float(HAIR_STYLES.index(self.hair_style)), float(MATERIALS.index(self.mask_material)))
        return look, (*self.mask_colour, float(PATTERNS.index(self.mask_pattern))), tuple(self.pattern_colour)


def _rgb(c) -> tuple[float, float, float]:
    red, green, blue = (round(float(x), 3) for x in c)
    return red, green, blue


def vary_players(seed: int, players, base: dict[int, Appearance]) -> tuple[dict[int, Appearance], dict[int, SlotLook]]:
    """Each seat's appearance and painted look under the `players` knobs."""
    from sample_videos.conditions import Players
    if players == Players():
        return dict(base), {s: SlotLook() for s in base}
    rng = np.random.default_rng((seed, 16001))
    apps, looks = {}, {}
    for s in sorted(base):
        app = base[s]
        u = rng.uniform(0, 1, 16)     # one fixed block per seat: knobs never shift other draws
        tone = players.skin_min + (players.skin_max - players.skin_min) * u[0]
        skin = _rgb(np.clip(SKIN_LIGHT + (SKIN_DARK - SKIN_LIGHT) * tone, 0.02, 1.0))
        b = players.build
        scale = 1.0 + (app.dims.scale - 1.0) * (1 + 2 * b)
        girth = 1.0 + b * (u[1] * 0.4 - 0.1)
        dims = replace(app.dims, scale=float(scale))
        shirt, sleeves, short = app.shirt, None, app.short_sleeves
        if u[2] < players.dark_tops:
            shirt = DARK_TOPS[int(u[3] * len(DARK_TOPS)) % len(DARK_TOPS)]
        if u[4] < players.dark_sleeves:
            sleeves = DARK_SLEEVES[int(u[5] * len(DARK_SLEEVES)) % len(DARK_SLEEVES)]
            short = False
        hair_style = "bald" if u[6] < players.bald else "long" if u[6] > 1 - players.long_hair else "short"
        glasses = "none" if u[7] >= players.glasses else ("thin" if u[8] < 0.5 else "thick")
        beard = "none" if u[9] >= players.beards else ("stubble" if u[10] < 0.5 else "full")
        if players.mask_colour == "default":
            mask = DEFAULT_MASK
        else:
            options = MASK_COLOURS[players.mask_colour]
            mask = options[int(u[11] * len(options)) % len(options)]
        pattern = "plain" if u[12] >= players.mask_pattern else PATTERNS[1 + int(u[13] * 3) % 3]
        material = players.mask_material
        if material == "mixed":
            material = "cloth" if u[14] < 0.5 else "hard"
        look = SlotLook(glasses, beard, hair_style, _rgb(mask), pattern,
                        PATTERN_COLOURS[int(u[15] * len(PATTERN_COLOURS)) % len(PATTERN_COLOURS)]
                        if pattern != "plain" else (0.0, 0.0, 0.0), material)
        on_table = DEFAULT_MASK_ON_TABLE if look.mask_colour == DEFAULT_MASK else _rgb(np.array(mask) * 1.3)
        apps[s] = replace(app, skin=skin, shirt=shirt, sleeves=sleeves, short_sleeves=short, dims=dims,
                          girth=float(girth), slot=s if not look.is_default else 0,
                          long_hair=hair_style == "long", mask_colour=on_table)
        looks[s] = look
    return apps, looks


def look_record(app: Appearance, look: SlotLook) -> dict:
    """One seat's look for truth.json."""
    return {"skin": list(_rgb(app.skin)), "hair": list(_rgb(app.hair)), "top": list(_rgb(app.shirt)),
            "sleeves": list(_rgb(app.sleeves or app.shirt)), "short_sleeves": bool(app.short_sleeves),
            "scale": round(float(app.dims.scale), 3), "girth": round(float(app.girth), 3),
            "hair_style": look.hair_style, "glasses": look.glasses, "beard": look.beard,
            "mask_colour": list(look.mask_colour), "mask_pattern": look.mask_pattern,
            "mask_material": look.mask_material}


def uniform_rows(looks: dict[int, SlotLook]) -> list[tuple[tuple, tuple, tuple]]:
    rows = [SlotLook().uniforms() for _ in range(SLOTS)]
    for slot, look in looks.items():
        rows[slot] = look.uniforms()
    return rows
