"""Frames and videos of a scene acted out by per-seat scripts.

`render_frame(scene, scripts, t)` -> HxWx3 uint8 RGB.  `render_video(...)`
streams frames into FFmpeg (H.264 yuv420p, faststart, optional AAC track),
rendering with worker processes that each own an EGL context.
"""
from __future__ import annotations

import functools
import multiprocessing as mp
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from sample_videos.acting.engine import pose_at
from sample_videos.acting.script import SeatScript, Scripts
from sample_videos.render import shaders
from sample_videos.render.body import BodyTruth, build_player
from sample_videos.render.meshes import VERTEX_ATTRS, VERTEX_FORMAT, MeshBuilder
from sample_videos.render.scene import Scene, ZONE_DEPTH
from vision.table_model import box_points

EGL_HELP = ("software OpenGL (EGL) is not available: install the Debian packages "
            "libegl1 libegl-mesa0 libgl1-mesa-dri (make render-deps)")


class RenderUnavailable(RuntimeError):
    """No EGL context could be created."""


def create_context():
    import moderngl
    try:
        return moderngl.create_standalone_context(backend="egl")
    except Exception as exc:  # moderngl raises plain Exceptions for missing libraries
        raise RenderUnavailable(f"{EGL_HELP} ({exc})") from exc


class GLRenderer:
    """One EGL context with the scene's static geometry uploaded."""

    def __init__(self, width: int, height: int, samples: int = 0, world: bool = False):
        import moderngl
        self.ctx = create_context()
        self.size = (width, height)
        self.world = world
        self.prog = self.ctx.program(vertex_shader=shaders.VERTEX, fragment_shader=shaders.fragment(world))
        def fbo(ms):
            return self.ctx.framebuffer(self.ctx.renderbuffer(self.size, 4, samples=ms),
                                        self.ctx.depth_renderbuffer(self.size, samples=ms))
        self.msaa = fbo(samples)
        # the static room is drawn once into `background` and blitted (colour and depth) each frame
        self.background = fbo(samples)
        self.out = self.ctx.framebuffer(self.ctx.renderbuffer(self.size, 4))
        self.ctx.enable(moderngl.DEPTH_TEST)
        self._static_key = None
        self._static_vao = None
        self._dyn = None

    def _vao(self, verts: np.ndarray, idx: np.ndarray, old=None):
        if old is not None:
            for o in old:
                o.release()
        vbo = self.ctx.buffer(verts.astype(np.float32).tobytes())
        ibo = self.ctx.buffer(idx.astype(np.int32).tobytes())
        vao = self.ctx.vertex_array(self.prog, [(vbo, VERTEX_FORMAT, *VERTEX_ATTRS)], ibo)
        return (vao, vbo, ibo)

    def draw(self, scene: Scene, dynamic: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        # Several contexts can live in one process (one per frame size): make
        # this one current, or GL calls land in whichever was created last.
        with self.ctx:
            return self._draw(scene, dynamic)

    def _draw(self, scene: Scene, dynamic: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        key = (scene.token, scene.camera, scene.lighting)
        self._uniforms(scene)
        if self._static_key != key:
            self._static_vao = self._vao(*scene.static_mesh(), old=self._static_vao)
            self._static_key = key
            self.background.use()
            self.background.clear(0.5, 0.5, 0.5, 1.0)
            self._static_vao[0].render()
        if len(dynamic[1]):
            self._dyn = self._vao(*dynamic, old=self._dyn)
        self.ctx.copy_framebuffer(self.msaa, self.background)
        self.msaa.use()
        if len(dynamic[1]):
            # player meshes are closed and wound counter-clockwise: culling
            # their back faces saves a third of the rasterisation
            import moderngl
            self.ctx.enable(moderngl.CULL_FACE)
            self._dyn[0].render()
            self.ctx.disable(moderngl.CULL_FACE)
        self.ctx.copy_framebuffer(self.out, self.msaa)
        data = self.out.read(components=3, alignment=1)
        return np.frombuffer(data, np.uint8).reshape(self.size[1], self.size[0], 3)[::-1]

    def _uniforms(self, scene: Scene) -> None:
        cam = scene.camera
        self.prog["u_vp"].write(cam.gl_view_proj().T.astype("f4").tobytes())
        self.prog["u_eye"].value = tuple(cam.position)
        k = np.asarray(scene.lighting.key_dir, float)
        self.prog["u_key"].value = tuple(k / np.linalg.norm(k))
        self.prog["u_key_col"].value = tuple(scene.lighting.key_color)
        self.prog["u_exposure"].value = scene.lighting.exposure
        if self.world:
            self._world_uniforms(scene)

    def _world_uniforms(self, scene: Scene) -> None:
        from sample_videos.render.looks import uniform_rows
        from sample_videos.render.table import TABLE_HEIGHT
        light = scene.lighting
        height = 2.0   # the spot hangs this far above the table
        self.prog["u_spot_pos"].value = (0.0, 0.0, TABLE_HEIGHT + height)
        self.prog["u_spot_col"].value = tuple(float(c) * light.spot for c in light.spot_color)
        self.prog["u_spot_cos"].value = float(height / np.hypot(height, light.spot_radius))
        m = np.asarray(light.mixed_dir, float)
        self.prog["u_mix_dir"].value = tuple(m / np.linalg.norm(m))
        self.prog["u_mix_col"].value = tuple(float(c) * light.mixed for c in light.mixed_color)
        rows = uniform_rows(scene.world.looks if scene.world is not None else {})
        self.prog["u_look"].write(np.array([r[0] for r in rows], "f4").tobytes())
        self.prog["u_mask"].write(np.array([r[1] for r in rows], "f4").tobytes())
        self.prog["u_mask2"].write(np.array([r[2] for r in rows], "f4").tobytes())


@functools.lru_cache(maxsize=4)
def _renderer(width: int, height: int, world: bool = False) -> GLRenderer:
    # one context per process, frame size and shader variant: creating one costs ~0.15 s
    return GLRenderer(width, height, world=world)


def renderer_for(scene: Scene) -> GLRenderer:
    world = scene.world is not None and scene.world.shader
    return _renderer(scene.camera.width, scene.camera.height, world)


def _empty_script(seat: int) -> SeatScript:
    return SeatScript(seat, ())


LOD_DISTANCE = 3.4  # m from the camera beyond which players get coarser meshes


def posed_players(scene: Scene, scripts: Scripts, t: float, detail: int | None = None):
    """Build every player's mesh at time t; returns (mesh, truth per seat).
    `detail` None picks per seat by distance (far players are small on screen)."""
    mb = MeshBuilder()
    truth = {}
    cam = np.asarray(scene.camera.position)
    world = scene.world
    for s, seat in scene.seats.items():
        dist = np.linalg.norm(seat.frame.origin - cam)
        if detail is not None:
            lod = detail
        elif world is None:
            lod = int(dist < LOD_DISTANCE)
        else:  # fine meshes where a player is as large on screen as the default camera's near seats
            lod = int(scene.camera.focal_px / dist > world.lod_focal)
        pose = pose_at(seat.context, scripts.get(s) or _empty_script(s), t)
        # a player who left is still posed (truth stays defined) but not drawn
        target = mb if pose.present >= 0.5 else MeshBuilder()
        truth[s] = build_player(seat.appearance, seat.frame, pose, target, lod)
    if world is not None and world.judge is not None:
        from sample_videos.render.people import build_person
        xy, facing, phase, swing = world.judge.state(t)
        build_person(world.judge.look, xy, facing, mb, phase, swing)
    return mb.build(), truth


@functools.lru_cache(maxsize=4)
def _noise_bank(h: int, w: int, sigma: float, seed: int) -> np.ndarray:
    """Four seeded half-size noise tiles (int16, grey levels) per frame size."""
    rng = np.random.default_rng((seed, h, w))
    return np.round(rng.normal(0, sigma * 255, (4, h // 2 + 1, w // 2 + 1, 3))).astype(np.int16)


def post_process(img: np.ndarray, scene: Scene, frame_index: int) -> np.ndarray:
    """Lens blur and sensor noise, seeded by the scene seed and frame index
    (the frame's time in ms); in wider worlds first the camera's exposure
    drift, lens distortion and shake (render/lens.py)."""
    out = img
    if scene.world is not None:
        out = _camera_effects(out, scene, frame_index / 1000.0)
    if scene.post.blur_sigma > 0:
        out = cv2.GaussianBlur(out, (0, 0), scene.post.blur_sigma)
    if scene.post.noise_sigma > 0:
        h, w = out.shape[:2]
        bank = _noise_bank(h, w, scene.post.noise_sigma, scene.seed)
        rng = np.random.default_rng((scene.seed, frame_index))
        # 2x2 tiles of randomly chosen, randomly shifted fields: looks i.i.d.
        # per frame at a fraction of the cost of drawing a full field
        rows = []
        for _ in range(2):
            k = rng.integers(4, size=2)
            rows.append(np.concatenate([bank[k[0]], bank[k[1]]], axis=1))
        noise = np.concatenate(rows, axis=0)
        dy, dx = rng.integers(0, noise.shape[0] - h + 1), rng.integers(0, noise.shape[1] - w + 1)
        out = np.clip(out.astype(np.int16) + noise[dy:dy + h, dx:dx + w], 0, 255).astype(np.uint8)
    return out


def _camera_effects(img: np.ndarray, scene: Scene, t: float) -> np.ndarray:
    from sample_videos.render import lens
    p = scene.post
    if p.drift > 0:
        img = lens.apply_gain(img, lens.exposure_gain(scene.seed, t, p.drift, p.drift_period))
    if scene.camera.distortion:
        img = lens.undistort_to_frame(img, scene.camera)
    if p.shake > 0:
        img = lens.shake(img, scene.seed, t, p.shake)
    return img


MOTION_BLUR_SAMPLES = 3


def moving_windows(scene: Scene, scripts: Scripts) -> list[tuple[float, float]]:
    """When anything in the scene moves more than its idle sway: every seat's
    act windows and the judge's walks."""
    windows = motion_windows(scripts)
    if scene.world is not None and scene.world.judge is not None:
        windows = sorted(windows + scene.world.judge.windows())
    return windows


def _is_moving(windows: list[tuple[float, float]], t0: float, t1: float) -> bool:
    return any(a <= t1 and b >= t0 for a, b in windows)


def _draw_frame(scene: Scene, scripts: Scripts, t: float, r: GLRenderer, windows=None) -> np.ndarray:
    """The GL image at time t; with motion blur, the mean of sub-frames over
    the open shutter whenever something moves (still frames need none)."""
    shutter = scene.post.shutter
    if scene.world is not None and shutter > 0:
        if windows is None:
            windows = moving_windows(scene, scripts)
        if _is_moving(windows, t - shutter / 2, t + shutter / 2):
            acc = None
            for k in range(MOTION_BLUR_SAMPLES):
                tk = t + shutter * (k / (MOTION_BLUR_SAMPLES - 1) - 0.5)
                img = r.draw(scene, posed_players(scene, scripts, tk)[0]).astype(np.float32)
                acc = img if acc is None else acc + img
            return np.round(acc / MOTION_BLUR_SAMPLES).astype(np.uint8)
    mesh, _ = posed_players(scene, scripts, t)
    return r.draw(scene, mesh)


def render_frame(scene: Scene, scripts: Scripts, t: float, renderer: GLRenderer | None = None,
                 post: bool = True) -> np.ndarray:
    """The frame at time t as an HxWx3 uint8 RGB array (deterministic)."""
    r = renderer or renderer_for(scene)
    img = _draw_frame(scene, scripts, t, r)
    return post_process(img, scene, int(round(t * 1000))) if post else img.copy()


# --- ground truth -----------------------------------------------------------

@dataclass(frozen=True)
class SeatTruth2D:
    right_hand: np.ndarray   # (21, 2) px, MediaPipe order
    left_hand: np.ndarray
    head_box: tuple[float, float, float, float]   # x0, y0, x1, y1 px


def _head_box(scene: Scene, b: BodyTruth) -> tuple[float, float, float, float]:
    u = np.random.default_rng(0).normal(size=(200, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    pts = b.head_center + (u * b.head_radii) @ b.head_rot.T
    px = scene.camera.project(pts)
    return (float(px[:, 0].min()), float(px[:, 1].min()), float(px[:, 0].max()), float(px[:, 1].max()))


def truth_at(scene: Scene, scripts: Scripts, t: float) -> dict[int, SeatTruth2D]:
    """Exact projected hand joints and head boxes per seat at time t."""
    _, truth = posed_players(scene, scripts, t, detail=0)
    cam = scene.camera
    return {s: SeatTruth2D(cam.project(b.right_hand), cam.project(b.left_hand), _head_box(scene, b))
            for s, b in truth.items()}


def _bbox(px: np.ndarray, scene: Scene) -> list[int]:
    w, h = scene.camera.width, scene.camera.height
    x0, y0 = np.clip(px.min(0), 0, [w - 1, h - 1])
    x1, y1 = np.clip(px.max(0), 0, [w - 1, h - 1])
    return [int(np.floor(x0)), int(np.floor(y0)), int(np.ceil(x1)), int(np.ceil(y1))]


def seat_regions(scene: Scene) -> dict[int, dict]:
    """Per seat: `body` [x0,y0,x1,y1] covering everything the player can do
    seated or standing (raised hands, votes, neighbour touches excepted), and
    `table_zone` [x0,y0,x1,y1] where the vote hand lands, plus its centre."""
    out = {}
    for s, seat in scene.seats.items():
        f = seat.frame
        xs, ys, zs = (-0.3, 0.3), (-0.5, ZONE_DEPTH + 0.06), (-0.02, _body_top(scene, seat))
        if scene.world is not None and seat.appearance.girth > 1.0:
            xs = (-0.3 * seat.appearance.girth, 0.3 * seat.appearance.girth)
        corners = _box_points(xs, ys, zs, dense=bool(scene.camera.distortion))
        body = _bbox(scene.camera.project(f.to_world(corners)), scene)
        zc = _box_points((-0.17, 0.17), (ZONE_DEPTH - 0.16, ZONE_DEPTH + 0.06), (0.0, 0.14),
                         dense=bool(scene.camera.distortion))
        zone = _bbox(scene.camera.project(f.to_world(zc)), scene)
        centre = scene.camera.project(seat.zone_world + [0, 0, 0.0])
        out[s] = {"body": body, "table_zone": zone, "zone_center": [float(centre[0]), float(centre[1])],
                  "head": _rest_head(scene, s)}
    return out


def _box_points(xs, ys, zs, dense: bool) -> np.ndarray:
    """A box's 8 corners (in the order the default calibration used), or 15 points more
    along each edge with a distorting lens (`vision.table_model.box_points`)."""
    return box_points(xs, ys, zs, dense, steps=17)


def _body_top(scene: Scene, seat) -> float:
    """Top of the body region, seat frame: 0.72 m, or in a wider world 4 cm
    over the seated player's head if that is higher (a tall build)."""
    if scene.world is None:
        return 0.72
    pose = pose_at(seat.context, _empty_script(seat.number), 0.0)
    truth = build_player(seat.appearance, seat.frame, pose, MeshBuilder(), 0)
    top = float(truth.head_center[2] - seat.frame.origin[2] + truth.head_radii[2]) + 0.04
    return max(0.72, top)


def _rest_head(scene: Scene, s: int) -> list[float]:
    """[x, y, size] (frame px) of the seat's head in the resting pose: its
    centre and its projected width."""
    seat = scene.seats[s]
    pose = pose_at(seat.context, _empty_script(s), 0.0)
    truth = build_player(seat.appearance, seat.frame, pose, MeshBuilder(), 0)
    c = np.asarray(truth.head_center, float)
    r = float(truth.head_radii[0])
    cam = np.asarray(scene.camera.position, float)
    view = c - cam
    side = np.cross(view, [0.0, 0.0, 1.0])
    side /= max(np.linalg.norm(side), 1e-9)
    a, b = scene.camera.project(c - r * side), scene.camera.project(c + r * side)
    p = scene.camera.project(c)
    return [round(float(p[0]), 1), round(float(p[1]), 1), round(float(np.linalg.norm(a - b)), 1)]


# --- video -----------------------------------------------------------------

def _render_chunk(args) -> list[bytes]:
    scene, scripts, times = args
    r = renderer_for(scene)
    windows = moving_windows(scene, scripts) if scene.world is not None and scene.post.shutter > 0 else None
    frames = []
    for i, t in times:
        # noise keyed by the time in ms, as in render_frame: a video frame is
        # exactly render_frame(scene, scripts, i / fps) before compression
        img = _draw_frame(scene, scripts, t, r, windows)
        frames.append(post_process(img, scene, int(round(t * 1000))).tobytes())
    return frames


def _ffmpeg() -> str:
    import imageio_ffmpeg
    return imageio_ffmpeg.get_ffmpeg_exe()


# --- frame reuse ---------------------------------------------------------------
#
# Over a long game with real speech lengths most of the time nothing but the
# idle sway and the speaker's nodding moves. With `hold` (seconds) the video
# shows that micro-motion in steps of `hold`: outside every move (an act's
# transition, a fist going down or up, a curl, a leave; see `motion_windows`)
# a frame repeats the frame at the last step boundary (or the first still
# frame after a move), rendered once and fed to FFmpeg again (same bytes,
# sensor noise included: x264 codes the repeats as skips). Moves themselves
# are rendered at the full frame rate, so every timed act is exact.

def event_window(e) -> tuple[float, float]:
    """[t0, t1] (s) in which one acting event changes its seat's pose (other
    than the idle sway and the speaking nod): everything `pose_at` eases or times."""
    from sample_videos.acting.engine import MASK_DELAY, MASK_HAND_LEAD
    from sample_videos.acting.script import Action, Channel
    t0, t1 = e.t, e.t + e.transition
    if e.action.channel is Channel.MASK:
        # the hand goes up to the mask before it moves and comes down after
        t0 = e.t + MASK_DELAY - MASK_HAND_LEAD - 0.35
        t1 = e.t + MASK_DELAY + e.transition + 0.4
    elif e.action is Action.VOTE:
        t1 = max(t1, e.t + 0.55)   # the descent onto the table (actions.vote_arm)
        hold = e.param("hold")
        if hold is not None:
            t1 = max(t1, e.t + float(hold) + float(e.param("lift")))
    elif e.action is Action.SHOT:
        t1 = max(t1, e.t + float(e.param("curl_at")) + float(e.param("curl_time")))
    elif e.action is Action.LEAVE:
        t1 = max(t1, e.t + float(e.param("after")))
    return t0, t1


def motion_windows(scripts: Scripts) -> list[tuple[float, float]]:
    """Every seat's `event_window`s, sorted."""
    return sorted(event_window(e) for script in scripts.values() for e in script.events)


def frame_sources(scripts: Scripts, n: int, fps: int, hold: float | None,
                  extra: list[tuple[float, float]] | tuple = ()) -> list[int]:
    """For each of `n` frames, the index of the frame it shows: itself inside
    a move (or without `hold`), else the latest frame on a `hold` step
    boundary, not before the first still frame since the last move. Frames
    between a source and its repeats differ only in micro-motion."""
    if not hold:
        return list(range(n))
    step = max(1, int(round(hold * fps)))
    moving = np.zeros(n, bool)
    for t0, t1 in list(motion_windows(scripts)) + list(extra):
        # one frame of margin on each side
        i0, i1 = max(0, int(np.floor(t0 * fps)) - 1), min(n - 1, int(np.ceil(t1 * fps)) + 1)
        if i0 <= i1:
            moving[i0:i1 + 1] = True
    src = list(range(n))
    run = None
    for i in range(n):
        if moving[i]:
            run = None
            continue
        if run is None:
            run = i
        src[i] = max(i - i % step, run)
    return src


def iter_frames(scene: Scene, scripts: Scripts, n: int, fps: int = 25, hold: float | None = None,
                workers: int = 2, chunk: int = 10):
    """Yield (index, source index, RGB bytes) for frames 0..n-1 in order.

    Only the source frames are rendered (each exactly `render_frame(scene,
    scripts, source / fps)`); a repeat yields the same bytes object again."""
    judge = scene.world.judge if scene.world is not None else None
    src = frame_sources(scripts, n, fps, hold, judge.windows() if judge is not None else ())
    unique = sorted(set(src))
    jobs = [(scene, scripts, [(i, i / fps) for i in unique[k:k + chunk]]) for k in range(0, len(unique), chunk)]
    pool = None
    if workers <= 1:
        results = map(_render_chunk, jobs)
    else:
        pool = mp.get_context("spawn").Pool(workers)
        results = pool.imap(_render_chunk, jobs)
    try:
        i = 0
        for job, frames in zip(jobs, results):
            for (u, _), fr in zip(job[2], frames):
                while i < n and src[i] == u:
                    yield i, u, fr
                    i += 1
        if pool is not None:
            pool.close()
            pool.join()
    finally:
        if pool is not None:
            pool.terminate()


def render_video(scene: Scene, scripts: Scripts, duration: float, out_path: str | Path, fps: int = 25,
                 audio: str | Path | None = None, crf: int = 23, workers: int = 2, chunk: int = 10,
                 preset: str = "veryfast", progress=None, hold: float | None = None) -> dict:
    """Render [0, duration) to an MP4; returns timing figures.

    Frames are rendered by `workers` processes (each with its own EGL context)
    in chunks of `chunk` frames and written in order.  `audio` is any file
    FFmpeg reads (a WAV); it is encoded as AAC and cut to the video's length.
    With `hold` (seconds) still stretches repeat frames (`frame_sources`):
    the figures then count the `rendered` and `reused` frames.
    """
    w, h = scene.camera.width, scene.camera.height
    n = int(round(duration * fps))
    cmd = [_ffmpeg(), "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
           "-s", f"{w}x{h}", "-r", str(fps), "-i", "-"]
    if audio is not None:
        # Pad with silence, then cut both streams at the video's length.  `-shortest`
        # is not exact: when frames arrive slowly through the pipe (a loaded CI
        # machine) FFmpeg muxes audio packets past the last frame, measured 0.35 s.
        cmd += ["-i", str(audio), "-map", "0:v", "-map", "1:a", "-af", f"apad=whole_dur={n / fps:.3f}",
                "-c:a", "aac", "-b:a", "96k", "-t", f"{n / fps:.3f}"]
    # A keyframe every second: the analysis seeks to scheduled seconds, and a long
    # GOP would make every seek decode up to 10 s of frames it then discards.
    # Written beside the target and moved into place only when every frame is in:
    # a render stopped part-way (killed, out of memory) must not leave a video.mp4
    # whose header promises the whole game (the audio is padded to it) over the
    # frames it got: a game that looks rendered and is not (session 48's seed 3813).
    out_path = Path(out_path)
    part = out_path.with_name(f".{out_path.name}.partial")
    cmd += ["-c:v", "libx264", "-preset", preset, "-crf", str(crf), "-g", str(fps), "-pix_fmt", "yuv420p",
            "-movflags", "+faststart", "-f", "mp4", str(part)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    written = rendered = 0
    complete = False
    try:
        for i, u, fr in iter_frames(scene, scripts, n, fps, hold, workers, chunk):
            proc.stdin.write(fr)
            written += 1
            rendered += i == u
            if progress and (written % chunk == 0 or written == n):
                progress(written, n)
        complete = written == n
    finally:
        if complete:
            proc.stdin.close()
            rc = proc.wait()
        else:
            proc.kill()
            proc.wait()
            try:
                proc.stdin.close()
            except OSError:     # the pipe's unflushed frames: FFmpeg is gone
                pass
            part.unlink(missing_ok=True)
    if not complete:
        raise RuntimeError(f"the renderer gave {written} of {n} frames; no video written")
    if rc != 0:
        part.unlink(missing_ok=True)
        raise RuntimeError(f"ffmpeg failed with exit code {rc}")
    os.replace(part, out_path)
    elapsed = time.perf_counter() - t0
    return {"frames": written, "rendered": rendered, "reused": written - rendered, "seconds": elapsed,
            "seconds_per_video_second": elapsed / max(duration, 1e-9)}
