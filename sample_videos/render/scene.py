"""The table scene: room, oval table, ten seats with their players, camera, lights.

Seats 1..10 run clockwise seen from above, starting at the judge's left: the
judge (and the camera behind them) sit at the table's -x end, seats 1-5 go
away from the camera along the +y side (left of the image), 6-10 come back
along the -y side.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from sample_videos.acting.actions import SeatContext
from sample_videos.acting.pose import BodyDims
from sample_videos.render.body import Appearance, SeatFrame
from sample_videos.render.camera import Camera, judge_camera
from sample_videos.render.meshes import Material, MeshBuilder, box, capsule_batch, grid_quad, oval_prism
from sample_videos.render.people import build_person
from sample_videos.render.props import place_props
from sample_videos.render.table import TableSpec, table_mesh

TABLE_HEIGHT = 0.75
TABLE_A = 1.55   # semi-axis along x (toward / away from the camera)
TABLE_B = 0.9   # semi-axis along y
ZONE_DEPTH = 0.34  # how far into the table a seat's vote zone is (a forearm from the edge)

SKIN_LIGHT = np.array([0.88, 0.68, 0.57])
SKIN_DARK = np.array([0.52, 0.36, 0.26])
HAIR = [(0.06, 0.05, 0.04), (0.18, 0.11, 0.07), (0.33, 0.21, 0.12), (0.62, 0.48, 0.30),
        (0.45, 0.43, 0.40), (0.10, 0.07, 0.05)]
SHIRTS = [(0.12, 0.15, 0.35), (0.55, 0.12, 0.12), (0.85, 0.85, 0.82), (0.15, 0.35, 0.20),
          (0.35, 0.35, 0.38), (0.60, 0.45, 0.25), (0.20, 0.20, 0.22), (0.42, 0.22, 0.45),
          (0.70, 0.62, 0.45), (0.15, 0.40, 0.55)]


@dataclass(frozen=True)
class Lighting:
    key_dir: tuple[float, float, float] = (-0.45, 0.25, 1.0)   # toward the key light
    key_color: tuple[float, float, float] = (1.0, 0.97, 0.92)
    exposure: float = 1.0
    # wider worlds (WORLD shader variant): a hard spot over the table and a
    # second directional source of another colour; 0 = off
    spot: float = 0.0
    spot_radius: float = 1.2                                  # m, its pool on the table
    spot_color: tuple[float, float, float] = (1.0, 0.85, 0.7)
    mixed: float = 0.0
    mixed_color: tuple[float, float, float] = (0.8, 0.9, 1.0)
    mixed_dir: tuple[float, float, float] = (0.0, 1.0, 0.6)   # toward the second source

    @property
    def extended(self) -> bool:
        return self.spot > 0 or self.mixed > 0


LIGHTING_PRESETS = {
    "default": Lighting(),
    "warm": Lighting(key_color=(1.0, 0.9, 0.75)),
    "cool": Lighting(key_color=(0.88, 0.94, 1.0)),
    "dim": Lighting(exposure=0.7),
    "bright": Lighting(exposure=1.25),
}


@dataclass(frozen=True)
class PostFx:
    blur_sigma: float = 0.6     # px
    noise_sigma: float = 0.015  # of full scale
    # wider worlds (render/lens.py); 0 = off
    shutter: float = 0.0        # s the shutter is open for motion blur (0 = a sharp instant)
    drift: float = 0.0          # auto-exposure drift amplitude (fraction of the gain)
    drift_period: float = 20.0  # s
    shake: float = 0.0          # px


@dataclass
class World:
    """What a scene has beyond the default room (render/world.py builds it)."""
    table: Any                                   # table.TableSpec
    looks: dict = field(default_factory=dict)    # slot -> looks.SlotLook
    judge: Any = None                            # people.JudgePath
    spectators: tuple = ()                       # (PersonLook, (x, y), facing, arms)
    props: Any = None                            # conditions.Props
    props_placed: list = field(default_factory=list)
    room: tuple[float, float, float] = (4.5, 4.2, 3.2)   # half length, half width, wall height (m)
    shader: bool = False                         # needs the WORLD shader variant
    lod_focal: float = 0.0                       # px per metre below which players get coarse meshes


@dataclass(frozen=True)
class Seat:
    number: int
    frame: SeatFrame
    appearance: Appearance
    context: SeatContext

    @property
    def zone_world(self) -> np.ndarray:
        return self.frame.to_world(self.context.zone)


@dataclass
class Scene:
    camera: Camera
    seats: dict[int, Seat]
    lighting: Lighting = Lighting()
    post: PostFx = PostFx()
    seed: int = 0
    world: World | None = None
    _static: tuple | None = field(default=None, repr=False, compare=False)
    # identifies the static geometry across pickled copies (renderer cache)
    token: str = field(default_factory=lambda: uuid.uuid4().hex, compare=False)

    def static_mesh(self) -> tuple[np.ndarray, np.ndarray]:
        """Room, table and chairs: built once, drawn every frame."""
        if self._static is None:
            self._static = build_static(self)
        return self._static


def _ellipse_point(t: float) -> np.ndarray:
    return np.array([TABLE_A * np.cos(t), TABLE_B * np.sin(t)])


def seat_angles(gap: float = 2.1) -> list[float]:
    """Ellipse parameters of seats 1..10: equal arc spacing, a `gap` (m) of arc
    left free at the judge's end (t = pi)."""
    ts = np.linspace(0, 2 * np.pi, 4001)
    pts = np.stack([TABLE_A * np.cos(ts), TABLE_B * np.sin(ts)], -1)
    arc = np.r_[0, np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))]
    total = arc[-1]
    s_judge = np.interp(np.pi, ts, arc)
    spacing = (total - gap) / 10
    out = []
    for k in range(10):
        # clockwise from the judge: decreasing t
        s = (s_judge - gap / 2 - spacing * (k + 0.5)) % total
        out.append(float(np.interp(s, arc, ts)))
    return out


def _seat_frame(t: float) -> SeatFrame:
    p = _ellipse_point(t)
    n = -np.array([p[0] / TABLE_A ** 2, p[1] / TABLE_B ** 2])
    n /= np.linalg.norm(n)
    fwd = np.array([n[0], n[1], 0.0])
    up = np.array([0, 0, 1.0])
    right = np.cross(fwd, up)
    return SeatFrame(np.array([p[0], p[1], TABLE_HEIGHT]), np.stack([right, fwd, up], axis=1))


def _appearance(rng: np.random.Generator, k: int) -> Appearance:
    tone = rng.uniform(0, 1)
    skin = tuple(SKIN_LIGHT + (SKIN_DARK - SKIN_LIGHT) * tone)
    hair = HAIR[int(rng.integers(len(HAIR)))]
    shirts = list(SHIRTS)
    shirt = shirts[(k * 3 + int(rng.integers(3))) % len(shirts)]
    trousers = (0.12, 0.12, 0.14) if rng.uniform() < 0.6 else (0.18, 0.22, 0.35)
    scale = float(rng.uniform(0.95, 1.05))
    head = tuple(np.array([0.078, 0.098, 0.115]) * rng.uniform(0.96, 1.04, 3))
    dims = BodyDims(head_radii=head, scale=scale, shoulder_half=0.19 * float(rng.uniform(0.93, 1.07)))
    return Appearance(skin, hair, shirt, trousers, bool(rng.uniform() < 0.35),
                      float(rng.uniform(0.97, 1.07)), dims)


def build_scene(seed: int = 0, camera: Camera | None = None, width: int = 1280, height: int = 720,
                lighting: Lighting = Lighting(), post: PostFx = PostFx(),
                camera_height: float = 2.9, camera_distance: float = 2.75, fov_y_deg: float = 40.0,
                table=None, looks: Callable | None = None, judge_point=None,
                world: World | None = None) -> Scene:
    """Ten seated players with appearances drawn from `seed`.

    Wider worlds (render/world.py) pass a `table` (table.TableSpec), `looks`
    (appearances -> appearances), the point the players look at (the judge's
    end; default: the camera) and the `world` extras."""
    rng = np.random.default_rng(seed)
    cam = camera or judge_camera(camera_height, camera_distance, fov_y_deg=fov_y_deg,
                                 width=width, height_px=height)
    if table is None or table.is_default_shape:
        frames = {k + 1: _seat_frame(t) for k, t in enumerate(seat_angles())}
    else:
        from sample_videos.render.table import seat_frame_at, seat_params
        frames = {k + 1: SeatFrame(*seat_frame_at(table, t)) for k, t in enumerate(seat_params(table))}
    zones = {s: f.to_world([0, ZONE_DEPTH, 0]) for s, f in frames.items()}
    apps = {s: _appearance(rng, s) for s in frames}
    if looks is not None:
        apps = looks(apps)
    look_at = np.asarray(cam.position, float) if judge_point is None else \
        np.array([judge_point[0], judge_point[1], cam.position[2]], float)
    seats = {}
    for s, f in frames.items():
        app = apps[s]
        to_seat = lambda w: (np.asarray(w) - f.origin) @ f.rot  # noqa: E731
        cam_dir = to_seat(look_at)
        j = np.array([cam_dir[0], cam_dir[1], 0.0])
        j /= np.linalg.norm(j)
        # neighbour on the player's right is the previous seat when going clockwise
        right_n, left_n = (s - 2) % 10 + 1, s % 10 + 1
        ctx = SeatContext(judge_dir=tuple(j), zone=(0.0, ZONE_DEPTH, 0.0),
                          left_zone=tuple(to_seat(zones[left_n])), right_zone=tuple(to_seat(zones[right_n])),
                          dims=app.dims, hand_scale=app.hand_scale, seed=seed * 100 + s)
        seats[s] = Seat(s, f, app, ctx)
    return Scene(cam, seats, lighting, post, seed, world)


def build_static(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    if scene.world is not None:
        return build_world_static(scene)
    mb = MeshBuilder()
    # floor and walls
    p, n, i = grid_quad([-5, -5, 0], [10, 0, 0], [0, 10, 0], 20, 20, [0, 0, 1])
    mb.add(p, n, i, (0.55, 0.38, 0.24), Material.FLOOR)
    wall = (0.78, 0.74, 0.66)
    for origin, u, v, nn in (([4.5, -5, 0], [0, 10, 0], [0, 0, 3.2], [-1, 0, 0]),
                             ([-5, 4.2, 0], [10, 0, 0], [0, 0, 3.2], [0, -1, 0]),
                             ([-5, -4.2, 0], [10, 0, 0], [0, 0, 3.2], [0, 1, 0]),
                             ([-4.5, -5, 0], [0, 10, 0], [0, 0, 3.2], [1, 0, 0])):
        p, n, i = grid_quad(origin, u, v, 10, 4, nn)
        mb.add(p, n, i, wall, Material.WALL)
    # table: cloth top on a wooden rim, pedestal legs
    p, n, i = oval_prism(TABLE_A, TABLE_B, TABLE_HEIGHT - 0.05, TABLE_HEIGHT, 120, 0.015)
    top = n[:, 2] > 0.99
    col = np.where(top[:, None], [0.16, 0.30, 0.22], [0.30, 0.18, 0.10])
    mat = Material.CLOTH
    mb.add(p, n, i, col, mat)
    for x in (-0.85, 0.85):
        p, n, i = capsule_batch(np.array([[x, 0, 0.0]]), np.array([[x, 0, TABLE_HEIGHT - 0.2]]), 0.09, 0.07)
        mb.add(p, n, i, (0.25, 0.15, 0.08), Material.WOOD)
    add_chairs(mb, scene)
    return mb.build()


def add_chairs(mb: MeshBuilder, scene: Scene) -> None:
    for seat in scene.seats.values():
        f = seat.frame
        for center, half in (([0, -0.38, -0.30], [0.22, 0.21, 0.025]),
                             ([0, -0.62, -0.02], [0.21, 0.025, 0.26])):
            p, n, i = box(f.to_world(center), np.array(half), f.rot)
            mb.add(p, n, i, (0.22, 0.13, 0.07), Material.WOOD)
        for sx in (-0.19, 0.19):
            for sy in (-0.2, -0.58):
                a = f.to_world([sx, sy, -0.32])
                b = f.to_world([sx, sy, -TABLE_HEIGHT])
                p, n, i = capsule_batch(a, b, 0.018, 0.018, 8, 2)
                mb.add(p, n, i, (0.2, 0.12, 0.06), Material.WOOD)


def build_world_static(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """Room, table, chairs, spectators and props of a wider world."""
    world = scene.world
    assert world is not None
    table: TableSpec = world.table
    hx, hy, hz = world.room
    mb = MeshBuilder()
    p, n, i = grid_quad([-hx - 0.5, -hy - 0.5, 0], [2 * hx + 1, 0, 0], [0, 2 * hy + 1, 0],
                        int(2 * hx * 2), int(2 * hy * 2), [0, 0, 1])
    mb.add(p, n, i, (0.55, 0.38, 0.24), Material.FLOOR)
    wall = (0.78, 0.74, 0.66)
    for origin, u, v, nn in (([hx, -hy - 0.5, 0], [0, 2 * hy + 1, 0], [0, 0, hz], [-1, 0, 0]),
                             ([-hx - 0.5, hy, 0], [2 * hx + 1, 0, 0], [0, 0, hz], [0, -1, 0]),
                             ([-hx - 0.5, -hy, 0], [2 * hx + 1, 0, 0], [0, 0, hz], [0, 1, 0]),
                             ([-hx, -hy - 0.5, 0], [0, 2 * hy + 1, 0], [0, 0, hz], [1, 0, 0])):
        p, n, i = grid_quad(origin, u, v, int(2 * max(hx, hy)), 4, nn)
        mb.add(p, n, i, wall, Material.WALL)
    if table.is_default_shape:
        p, n, i = oval_prism(TABLE_A, TABLE_B, TABLE_HEIGHT - 0.05, TABLE_HEIGHT, 120, 0.015)
    else:
        p, n, i = table_mesh(table, TABLE_HEIGHT - 0.05, TABLE_HEIGHT)
    top = n[:, 2] > 0.99
    col = np.where(top[:, None], table.colour, [0.30, 0.18, 0.10])
    mat = {"cloth": Material.CLOTH, "wood": Material.WOOD, "plastic": Material.PLASTIC}[table.surface]
    mb.add(p, n, i, col, mat)
    for x in (-(table.a - 0.7), table.a - 0.7):
        p, n, i = capsule_batch(np.array([[x, 0, 0.0]]), np.array([[x, 0, TABLE_HEIGHT - 0.2]]), 0.09, 0.07)
        mb.add(p, n, i, (0.25, 0.15, 0.08), Material.WOOD)
    add_chairs(mb, scene)
    for look, xy, facing, arms in world.spectators:
        build_person(look, xy, facing, mb, arms=arms, detail=0)
    if world.props is not None:
        place_props(mb, world.props, scene.seats, table, np.random.default_rng((scene.seed, 16004)))
    return mb.build()
