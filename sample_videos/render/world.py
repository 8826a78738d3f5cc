"""Conditions -> a scene (docs/synth.md "Conditions").

`scene_from_conditions(conditions, seed, duration)` builds the table scene a
`conditions.Conditions` describes (a pure function of its arguments).
`Conditions()` gives exactly the default scene (the same camera, lights,
players and room, the default shader), so default renders keep their pixels.
"""
from __future__ import annotations

import math

import numpy as np

from sample_videos.conditions import Conditions
from sample_videos.render.camera import Camera, judge_camera
from sample_videos.render.looks import SlotLook, vary_players
from sample_videos.render.meshes import MeshBuilder
from sample_videos.render.people import JudgePath, PersonLook, Walk
from sample_videos.render.scene import LIGHTING_PRESETS, Lighting, PostFx, Scene, World, build_scene
from sample_videos.render.table import TableSpec, head_gap, head_point, perimeter

LOD_FOCAL = (720 / 2 / math.tan(math.radians(20))) / 3.4   # the default camera's LOD threshold, px per metre
FRAME_MARGIN = 0.02
# A framed camera stands at least this far beyond the table's edge: behind the
# chairs and the judge's walking line (table.JUDGE_SIDE_CLEARANCE), so the
# judge passes in front of it, not through it.
FRAMED_MIN_CLEARANCE = 1.6
RECTANGLE_EXPONENT = 5.0
JUDGE_SLOT, SPECTATOR_SLOTS = 11, (12, 13, 14, 15)


def kelvin_rgb(kelvin: float) -> tuple[float, float, float]:
    """An incandescent-to-daylight colour (Planckian locus fit), brightest channel 1."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.12 if t <= 66 else 288.12 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.52 * math.log(t - 10) - 305.04)
    rgb = np.clip([r, g, b], 0, 255) / 255.0
    rgb = rgb / rgb.max()
    return float(rgb[0]), float(rgb[1]), float(rgb[2])


def _toward(azimuth_deg: float, elevation_deg: float) -> tuple[float, float, float]:
    """Unit vector toward a light at this azimuth (camera.azimuth's angles) and elevation."""
    a, e = math.radians(azimuth_deg), math.radians(elevation_deg)
    return (-math.cos(a) * math.cos(e), math.sin(a) * math.cos(e), math.sin(e))


def lighting(cond: Conditions) -> Lighting:
    li = cond.light
    base = LIGHTING_PRESETS[li.preset]
    kw: dict = {}
    # the camera's auto-exposure takes back part of what a spot or a second source add
    compensation = 1.0 + 0.35 * li.spot + 0.5 * li.mixed
    if li.level != 1.0 or compensation != 1.0:
        kw["exposure"] = base.exposure * li.level / compensation
    if li.temperature is not None:
        kw["key_color"] = kelvin_rgb(li.temperature)
    if li.key_azimuth is not None:
        kw["key_dir"] = _toward(li.key_azimuth, li.key_elevation)
    if li.spot > 0:
        kw.update(spot=li.spot, spot_radius=li.spot_radius, spot_color=kelvin_rgb(li.spot_temperature))
    if li.mixed > 0:
        kw.update(mixed=li.mixed, mixed_color=kelvin_rgb(li.mixed_temperature),
                  mixed_dir=_toward(li.mixed_azimuth, 25.0))
    return Lighting(**{**base.__dict__, **kw}) if kw else base


def table_spec(cond: Conditions) -> TableSpec:
    t = cond.table
    return TableSpec(a=t.length / 2, b=t.width / 2, exponent=2.0 if t.shape == "oval" else RECTANGLE_EXPONENT,
                     colour=t.colour, surface=t.surface)


def _camera_at(cam_cond, distance: float, width: int, height: int, aim=None) -> Camera:
    """The camera at `distance`; `aim` (a world point) for a framed camera
    without a tilt, else it looks 0.45 m past the table centre like the default one."""
    c = cam_cond
    if aim is None and c.azimuth == 0 and c.roll == 0 and c.distortion == 0:
        kwargs = {}
        if c.tilt is not None:
            # as the default camera: it looks at a point 0.45 m past the table centre; tilt sets its height
            kwargs["tilt_target_z"] = c.height - (distance + 0.45) * math.tan(math.radians(c.tilt))
        return judge_camera(c.height, distance, fov_y_deg=c.fov, width=width, height_px=height, **kwargs)
    a = math.radians(c.azimuth)
    pos = (-distance * math.cos(a), distance * math.sin(a), c.height)
    look = (math.cos(a), -math.sin(a))
    tz = 0.45 if c.tilt is None else c.height - (distance + 0.45) * math.tan(math.radians(c.tilt))
    target = (0.45 * look[0], 0.45 * look[1], tz)
    if aim is not None and c.tilt is None:
        target = (float(aim[0]), float(aim[1]), float(aim[2]))
    return Camera(position=pos, target=target, fov_y_deg=c.fov, width=width, height=height,
                  roll_deg=c.roll, distortion=c.distortion)


def _key_points(scene: Scene) -> np.ndarray:
    """What a framed camera must show: every seat's body region and the table."""
    pts = []
    for seat in scene.seats.values():
        for x in (-0.3, 0.3):
            for y in (-0.45, 0.4):
                for z in (-0.02, 0.75):
                    pts.append(seat.frame.to_world([x, y, z]))
    return np.array(pts)


def _fits(camera: Camera, pts: np.ndarray) -> bool:
    if np.any(camera.depth(pts) < 0.3):
        return False
    px = camera.project(pts)
    m = FRAME_MARGIN
    return bool(np.all((px[:, 0] >= m * camera.width) & (px[:, 0] <= (1 - m) * camera.width)
                       & (px[:, 1] >= m * camera.height) & (px[:, 1] <= (1 - m) * camera.height)))


def aimed_camera(cam_cond, distance: float, width: int, height: int, pts: np.ndarray) -> Camera:
    """A framed camera at `distance` aimed so the seats' regions are centred
    in the frame (an operator points the camera at the players)."""
    aim = pts.mean(0)
    cam = _camera_at(cam_cond, distance, width, height, aim)
    if cam_cond.tilt is not None:
        return cam
    for _ in range(4):
        if np.any(cam.depth(pts) < 0.3):
            break
        px = cam.project(pts)
        off = (px.min(0) + px.max(0)) / 2 - [width / 2, height / 2]
        view = cam.view_matrix()
        right, up = view[0, :3], view[1, :3]
        depth = float(cam.depth(aim))
        aim = aim + (off[0] * right - off[1] * up) * depth / cam.focal_px
        cam = _camera_at(cam_cond, distance, width, height, aim)
    return cam


def framed_distance(cam_cond, width: int, height: int, scene: Scene, table: TableSpec) -> float:
    """The nearest distance (m from the table centre) at which every seat is in frame."""
    pts = _key_points(scene)
    a = math.radians(cam_cond.azimuth)
    direction = np.array([-math.cos(a), math.sin(a)])
    # the table's edge along that direction, plus the seated players and their chairs
    r_edge = (abs(direction[0] / table.a) ** table.exponent + abs(direction[1] / table.b) ** table.exponent) \
        ** (-1 / table.exponent)
    lo, hi = r_edge + FRAMED_MIN_CLEARANCE, 12.0
    if _fits(aimed_camera(cam_cond, lo, width, height, pts), pts):
        return lo
    if not _fits(aimed_camera(cam_cond, hi, width, height, pts), pts):
        return hi
    for _ in range(20):
        mid = (lo + hi) / 2
        if _fits(aimed_camera(cam_cond, mid, width, height, pts), pts):
            hi = mid
        else:
            lo = mid
    return hi


def _person_look(rng: np.random.Generator, slot: int, judge: bool) -> PersonLook:
    from sample_videos.render.looks import SKIN_DARK, SKIN_LIGHT
    tone = rng.uniform(-0.3, 1.5)
    sk = np.clip(SKIN_LIGHT + (SKIN_DARK - SKIN_LIGHT) * tone, 0.02, 1)
    skin = (float(sk[0]), float(sk[1]), float(sk[2]))
    hair = [(0.06, 0.05, 0.04), (0.18, 0.11, 0.07), (0.33, 0.21, 0.12), (0.45, 0.43, 0.40)][int(rng.integers(4))]
    if judge:  # judges dress dark
        top = [(0.04, 0.04, 0.045), (0.08, 0.08, 0.1), (0.12, 0.12, 0.14), (0.85, 0.85, 0.82)][int(rng.integers(4))]
    else:
        u = rng.uniform(0.05, 0.8, 3)
        top = (float(u[0]), float(u[1]), float(u[2]))
    return PersonLook(skin, hair, top, (0.1, 0.1, 0.12), float(rng.uniform(0.95, 1.08)), slot)


def _slot_look(rng: np.random.Generator) -> SlotLook:
    return SlotLook(glasses=["none", "none", "thin", "thick"][int(rng.integers(4))],
                    beard=["none", "none", "stubble", "full"][int(rng.integers(4))],
                    hair_style=["short", "short", "bald", "long"][int(rng.integers(4))])


def judge_path(cond: Conditions, table: TableSpec, seed: int, duration: float) -> JudgePath | None:
    if not cond.people.judge:
        return None
    rng = np.random.default_rng((seed, 16002))
    look = _person_look(rng, JUDGE_SLOT, judge=True)
    half_gap = head_gap(table) / 2
    around = perimeter(table) / 2
    home_max = max(0.3, min(0.8, half_gap - 0.25))

    def home() -> float:
        return float(rng.choice([-1, 1]) * rng.uniform(0.25, home_max))

    start = home()
    walks, t, here = [], float(rng.uniform(3, 15)), start
    count = int(cond.people.judge_walks * duration / 60 + rng.uniform())
    for _ in range(count):
        dest = float(rng.choice([-1, 1]) * rng.uniform(min(half_gap + 0.3, around - 0.2), around - 0.2))
        back = home()
        w = Walk(t, here, dest, float(rng.uniform(2, 8)), back)
        if w.t1 > duration - 1:
            break
        walks.append(w)
        here = back
        t = w.t1 + float(rng.uniform(5, max(6.0, 2 * duration / max(count, 1) - 10)))
    return JudgePath(table, start, tuple(walks), look, seed)


def _spectators(cond: Conditions, table: TableSpec, camera: Camera, seed: int, room) -> tuple:
    rng = np.random.default_rng((seed, 16003))
    cam_angle = math.atan2(camera.position[1], camera.position[0])
    out = []
    for k in range(cond.people.spectators):
        alpha = cam_angle + math.pi + rng.uniform(-1.1, 1.1)
        d = np.array([math.cos(alpha), math.sin(alpha)])
        r_edge = (abs(d[0] / table.a) ** table.exponent + abs(d[1] / table.b) ** table.exponent) ** (-1 / table.exponent)
        xy = d * (r_edge + rng.uniform(1.8, 2.4))
        xy = np.clip(xy, [-room[0] + 0.4, -room[1] + 0.4], [room[0] - 0.4, room[1] - 0.4])
        facing = math.atan2(-xy[1], -xy[0]) + rng.uniform(-0.3, 0.3)
        look = _person_look(rng, SPECTATOR_SLOTS[k % len(SPECTATOR_SLOTS)], judge=False)
        out.append((look, (float(xy[0]), float(xy[1])), float(facing), "crossed" if rng.uniform() < 0.5 else "down"))
    return tuple(out)


def scene_from_conditions(cond: Conditions, seed: int, duration: float = 200.0) -> Scene:
    """The scene of these conditions; `duration` (s) spreads the judge's walks."""
    cap, cam_cond = cond.capture, cond.camera
    light = lighting(cond)
    post = PostFx(blur_sigma=cap.blur, noise_sigma=cap.noise)
    if cond.is_default_world():
        # the default scene, built exactly as it always was
        assert cam_cond.distance is not None
        cam = _camera_at(cam_cond, cam_cond.distance, cap.width, cap.height)
        return build_scene(seed=seed, camera=cam, width=cap.width, height=cap.height, lighting=light,
                           post=post)
    table = table_spec(cond)
    looks: dict = {}

    def vary(apps):
        new, seat_looks = vary_players(seed, cond.players, apps)
        looks.update({s: lk for s, lk in seat_looks.items() if not lk.is_default})
        return new

    judge_xy = head_point(table)
    if cam_cond.distance is None:
        # framed: seats placed first (they do not depend on the camera), then the camera
        probe = build_scene(seed=seed, camera=_camera_at(cam_cond, 5.0, cap.width, cap.height),
                            width=cap.width, height=cap.height, table=table, judge_point=judge_xy)
        distance = round(framed_distance(cam_cond, cap.width, cap.height, probe, table) * cam_cond.framing, 3)
        cam = aimed_camera(cam_cond, distance, cap.width, cap.height, _key_points(probe))
    else:
        cam = _camera_at(cam_cond, cam_cond.distance, cap.width, cap.height)
    room = (max(4.5, abs(cam.position[0]) + 0.8, table.a + 3.0), max(4.2, abs(cam.position[1]) + 0.8, table.b + 3.0),
            max(3.2, cam.position[2] + 0.6))
    post = PostFx(blur_sigma=cap.blur, noise_sigma=cap.noise, shutter=cap.motion_blur / cap.fps,
                  drift=cond.light.drift, drift_period=cond.light.drift_period, shake=cam_cond.shake)
    judge = judge_path(cond, table, seed, duration)
    spectators = _spectators(cond, table, cam, seed, room)
    world = World(table=table, judge=judge, spectators=spectators, props=cond.props, room=room,
                  lod_focal=LOD_FOCAL)
    scene = build_scene(seed=seed, camera=cam, width=cap.width, height=cap.height, lighting=light, post=post,
                        table=table, looks=vary, judge_point=judge_xy, world=world)
    rng = np.random.default_rng((seed, 16004))
    from sample_videos.render.props import place_props
    world.props_placed = place_props(MeshBuilder(), cond.props, scene.seats, table, rng)
    if judge is not None:
        looks[JUDGE_SLOT] = _slot_look(np.random.default_rng((seed, 16005)))
    for look, _, _, _ in spectators:
        looks[look.slot] = _slot_look(np.random.default_rng((seed, 16006, look.slot)))
    world.looks = looks
    has_props = bool(cond.props.name_plates or cond.props.bottles or cond.props.phones)
    world.shader = bool(light.extended or looks or has_props or table.surface == "plastic")
    return scene


def camera_record(camera: Camera) -> dict:
    """The camera a world was rendered with, for truth.json."""
    pos, tgt = np.asarray(camera.position, float), np.asarray(camera.target, float)
    d = tgt - pos
    return {"position": [round(float(x), 4) for x in pos], "target": [round(float(x), 4) for x in tgt],
            "distance": round(float(np.hypot(pos[0], pos[1])), 3),
            "azimuth": round(math.degrees(math.atan2(pos[1], -pos[0])) % 360, 2),
            "tilt": round(math.degrees(math.atan2(-d[2], np.hypot(d[0], d[1]))), 2),
            "fov": camera.fov_y_deg, "roll": camera.roll_deg, "distortion": camera.distortion,
            "focal_px": round(camera.focal_px, 3), "width": camera.width, "height": camera.height}
