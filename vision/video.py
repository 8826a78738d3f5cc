"""Video access: metadata and frames at requested times, through FFmpeg.

Only the frames a caller asks for are decoded: each time range is read by its
own FFmpeg process that seeks to the range (`-ss` before `-i`: keyframe seek,
then accurate decode up to the start) and samples it with the `fps` filter.
FFmpeg applies the rotation metadata itself (autorotate), so frames come out
upright and `VideoInfo.width/height` are the displayed size.

OpenCV's VideoCapture was measured as an alternative for isolated frames: about
twice as fast per seek on a 720p H.264 file, but it returns the nearest frame
rather than the one on screen (off by one for 9 of 22 test times) and cannot
say how many frames it decoded, so FFmpeg is used throughout.

Sparse sampling over long stretches uses `iter_keyframes`: one FFmpeg process
that decodes key frames only (non-key packets are dropped before the decoder)
and thins them to a minimum gap, so a 90-minute game costs about one decoded
frame per GOP instead of one seek (and up to a GOP of decoding) per sample.

A file that ends early or is damaged raises `VideoError` naming the file and
the last time that could be read; frames read before the error are kept on
the exception (`partial`) or have already been yielded by the iterators.
"""
from __future__ import annotations

import math
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import imageio_ffmpeg
import numpy as np


class VideoError(Exception):
    """A video that cannot be opened or read completely."""

    def __init__(self, path: str | Path, problem: str, last_time: float | None = None,
                 partial: list["Frame"] | None = None):
        self.path = str(path)
        self.problem = problem
        self.last_time = last_time
        self.partial: list[Frame] = partial or []
        where = ("nothing could be read" if last_time is None
                 else f"last readable time {last_time:.3f} s")
        super().__init__(f"{self.path}: {problem} ({where})")


@dataclass(frozen=True)
class VideoInfo:
    path: str
    duration: float          # seconds
    fps: float               # nominal (average) frame rate
    frame_count: int         # estimate: duration x fps (exact: count_frames())
    width: int               # displayed size, after rotation
    height: int
    rotation: int            # degrees, as stored in the file (0, 90, 180, 270)
    codec: str
    has_audio: bool
    start_time: float = 0.0
    audio_codec: str | None = None
    audio_rate: int | None = None
    container: str = ""      # FFmpeg's demuxer names, e.g. "mov,mp4,m4a,3gp,3g2,mj2"
    pixel_format: str = ""   # as FFmpeg names it, with its colour notes: "yuv420p(tv, bt709, progressive)"

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)


@dataclass(frozen=True)
class Frame:
    t: float                 # seconds on the video clock
    image: np.ndarray        # H x W x 3, uint8, RGB

    @property
    def size(self) -> tuple[int, int]:
        return (self.image.shape[1], self.image.shape[0])


@dataclass(frozen=True)
class TimeRange:
    """Half-open [t0, t1) sampled at `fps` frames per second from t0."""
    t0: float
    t1: float
    fps: float

    def times(self) -> np.ndarray:
        # edges are stored to the microsecond: a slot within 1/10000 of a
        # frame of t1 is t1's own, which the next range reads
        n = max(0, math.ceil((self.t1 - self.t0) * self.fps - 1e-4))
        return self.t0 + np.arange(n) / self.fps


@dataclass
class DecodeStats:
    """What reading cost; `frames_decoded` counts every frame FFmpeg decoded,
    including those between a keyframe and the seek target."""
    processes: int = 0
    frames_decoded: int = 0
    frames_returned: int = 0
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    def add(self, other: "DecodeStats") -> None:
        self.processes += other.processes
        self.frames_decoded += other.frames_decoded
        self.frames_returned += other.frames_returned
        self.seconds += other.seconds
        self.warnings.extend(other.warnings)


def ffmpeg_exe() -> str:
    return imageio_ffmpeg.get_ffmpeg_exe()


# --- metadata -------------------------------------------------------------

_DURATION = re.compile(r"Duration:\s*(N/A|(\d+):(\d+):(\d+(?:\.\d+)?))(?:,\s*start:\s*(-?[\d.]+))?")
_STREAM = re.compile(r"^\s*Stream #\d+:\d+.*?: (Video|Audio|Subtitle|Data|Attachment): (.*)$")
_SIZE = re.compile(r"(?:^|[ ,])(\d{2,5})x(\d{2,5})(?:[ ,\[]|$)")
# the pixel format (and its colour notes) just before the frame size
_PIX_FMT = re.compile(r",\s*([a-z0-9_]+(?:\([^)]*\))?),\s*\d{2,5}x\d{2,5}")
_FPS = re.compile(r"([\d.]+)(k?) fps")
_TBR = re.compile(r"([\d.]+)(k?) tbr")
_ROT_MATRIX = re.compile(r"rotation of (-?[\d.]+) degrees")
_ROT_TAG = re.compile(r"^\s*rotate\s*:\s*(-?\d+)")
_HZ = re.compile(r"(\d+) Hz")


def _num(value: str, kilo: str) -> float:
    return float(value) * (1000.0 if kilo else 1.0)


def parse_probe(path: str, text: str) -> VideoInfo:
    """Parses `ffmpeg -i` stderr (the only probe imageio-ffmpeg ships)."""
    lines = text.splitlines()
    duration, start = None, 0.0
    m = _DURATION.search(text)
    if m and m.group(1) != "N/A":
        duration = int(m.group(2)) * 3600 + int(m.group(3)) * 60 + float(m.group(4))
    if m and m.group(5):
        start = float(m.group(5))
    video_line, video_block, audio = None, [], None
    in_video = False
    for line in lines:
        sm = _STREAM.match(line)
        if sm:
            in_video = False
            kind, desc = sm.group(1), sm.group(2)
            if kind == "Video" and video_line is None and "attached pic" not in desc:
                video_line, in_video = desc, True
            elif kind == "Audio" and audio is None:
                audio = desc
            continue
        if in_video:
            if re.match(r"^\s*(Input|Output|Stream) #", line):
                in_video = False
            else:
                video_block.append(line)
    if video_line is None:
        raise VideoError(path, "no video stream")
    codec = video_line.split(",")[0].split()[0]
    sz = _SIZE.search(video_line)
    if not sz:
        raise VideoError(path, "video stream has no frame size")
    w, h = int(sz.group(1)), int(sz.group(2))
    fm = _FPS.search(video_line) or _TBR.search(video_line)
    fps = _num(fm.group(1), fm.group(2)) if fm else 0.0
    rotation = 0
    for line in video_block:
        rm = _ROT_MATRIX.search(line) or _ROT_TAG.match(line)
        if rm:
            rotation = int(round(float(rm.group(1)))) % 360
            break
    if rotation in (90, 270):
        w, h = h, w
    audio_rate = None
    if audio:
        hz = _HZ.search(audio)
        audio_rate = int(hz.group(1)) if hz else None
    if duration is None:
        duration = 0.0
    cm = re.search(r"Input #0, (.+?), from ", text)
    pm = _PIX_FMT.search(video_line)
    return VideoInfo(
        path=path, duration=duration, fps=fps,
        frame_count=int(round(duration * fps)) if fps else 0,
        width=w, height=h, rotation=rotation, codec=codec,
        has_audio=audio is not None, start_time=start,
        audio_codec=audio.split(",")[0].split()[0] if audio else None,
        audio_rate=audio_rate, container=cm.group(1) if cm else "",
        pixel_format=pm.group(1) if pm else "",
    )


def probe(path: str | Path) -> VideoInfo:
    path = str(path)
    if not Path(path).is_file():
        raise VideoError(path, "file not found")
    proc = subprocess.run([ffmpeg_exe(), "-hide_banner", "-nostdin", "-i", path],
                          capture_output=True, text=True, errors="replace")
    text = proc.stderr
    if "Input #0" not in text:
        last = [l.strip() for l in text.splitlines() if l.strip()]
        reason = last[-1] if last else "FFmpeg could not open it"
        reason = reason.split(": ", 1)[-1] if reason.startswith(path) else reason
        raise VideoError(path, f"not a readable video ({reason})")
    info = parse_probe(path, text)
    if info.duration <= 0:
        # No duration in the header (live-recorded mkv/webm): ask the demuxer,
        # which reads packets without decoding them.
        try:
            n, secs = imageio_ffmpeg.count_frames_and_secs(path)
        except Exception as exc:  # imageio raises RuntimeError on bad files
            raise VideoError(path, f"cannot determine the duration ({exc})") from None
        info = VideoInfo(**{**info.__dict__, "duration": float(secs),
                            "frame_count": int(n),
                            "fps": info.fps or (n / secs if secs else 0.0)})
    return info


# A file shorter than this holds no phase of a game: a still image, or a clip
# of a frame or two (a camera stopped at once, a thumbnail exported by mistake).
MIN_RECORDING_S = 1.0
# One decoding thread per FFmpeg process: the analysis already runs one worker
# (and its one decoder) per core, so FFmpeg's default of a frame thread per core
# only adds frame buffers and competes with the models (measured on the
# full-length game's video, 20 s at 5 fps in a scratch run: 94 -> 81 MB per
# decoder, the same CPU or less).
DECODE_THREADS = ("-threads", "1", "-filter_threads", "1")


def not_a_recording(info: VideoInfo) -> str | None:
    """Why a probed file cannot be the recording of a game, or None. FFmpeg
    opens a PNG or JPEG as a one-frame video, so probing alone accepts one."""
    if info.container.endswith("_pipe") or info.container.startswith("image2"):
        return f"a still image ({info.codec}), not a video recording"
    if info.duration < MIN_RECORDING_S:
        frames = max(info.frame_count, 1)
        return (f"{info.duration:.2f} s long ({frames} frame{'' if frames == 1 else 's'}): "
                f"too short to be the recording of a game")
    return None


# --- frames ---------------------------------------------------------------

def output_size(src: tuple[int, int], max_side: int | None) -> tuple[int, int]:
    """Frame size after an optional downscale so the long side <= max_side."""
    w, h = src
    if not max_side or max(w, h) <= max_side:
        return w, h
    s = max_side / max(w, h)
    return max(2, int(round(w * s / 2)) * 2), max(2, int(round(h * s / 2)) * 2)


def raw_format(info: VideoInfo, size: tuple[int, int]) -> str:
    """The pixel format FFmpeg pipes frames in: "yuv420p" (converted to RGB by
    OpenCV, `to_rgb`) where that conversion is FFmpeg's own up to rounding,
    "rgb24" otherwise. FFmpeg's bundled yuv-to-RGB conversion and the pipe
    took about 18 ms of a 720p key frame's 40 ms (60 key frames: 0.95 s of
    CPU decoded to nothing, 1.35 s piped as yuv420p, 2.44 s as rgb24; the
    reading cost per sampling rate: scripts/bench_decode.py); OpenCV's
    0.5 ms conversion differs from FFmpeg's by at most 3 levels (mean 1.1). OpenCV converts BT.601 limited range only: a stream marked
    full range (pc, yuvj) or with another matrix (bt709, bt2020) keeps FFmpeg's
    own conversion, and so does an odd frame size (4:2:0 needs even sides)."""
    fmt = info.pixel_format
    name, _, notes = fmt.partition("(")
    marks = {n.strip() for n in notes.rstrip(")").split(",")}
    odd = size[0] % 2 or size[1] % 2
    if name != "yuv420p" or odd or marks & {"pc", "bt709", "bt2020nc", "bt2020c", "smpte240m", "fcc"}:
        return "rgb24"
    return "yuv420p"


def frame_bytes(fmt: str, size: tuple[int, int]) -> int:
    w, h = size
    return w * h * 3 // 2 if fmt == "yuv420p" else w * h * 3


def to_rgb(buf: bytearray, fmt: str, size: tuple[int, int]) -> np.ndarray:
    """One piped frame as H x W x 3 RGB."""
    import cv2

    w, h = size
    raw = np.frombuffer(buf, np.uint8)
    if fmt == "yuv420p":
        return cv2.cvtColor(raw.reshape(h * 3 // 2, w), cv2.COLOR_YUV2RGB_I420)
    return raw.reshape(h, w, 3)


# How far before t0 to seek: a few source frames, so the frame on screen at t0
# is decoded; more would cross an extra keyframe on short-GOP files and double
# the cost of sparse seeks. A VFR frame held longer than this is replaced by
# the next one (still within one frame).
def seek_lead(nominal_fps: float, container: str = "") -> float:
    if "mpegts" in container or container.startswith("mpeg"):
        # MPEG-TS/PS seek by byte position and may land past the target.
        return 3.0
    return min(1.0, max(0.1, 3.0 / nominal_fps)) if nominal_fps > 0 else 1.0


_DECODED = re.compile(r"Input stream #\d+:\d+ \(video\):.*?(\d+) frames decoded")
_ERROR_HINT = re.compile(r"(error|invalid|corrupt|partial file|prematurely|truncat|missing|"
                         r"not found|non-existing|concealing)", re.I)
_NOT_ERROR = re.compile(r"(frames decoded|decode errors|return code 0|^\s*(Input|Output|Stream) #)")


def _error_lines(lines: list[str], path: str) -> list[str]:
    """FFmpeg's complaints, without the file name (it may contain any word)."""
    out = []
    for line in lines:
        text = line.replace(path, "<file>").strip()
        if _ERROR_HINT.search(text) and not _NOT_ERROR.search(text):
            out.append(re.sub(r"^\[[^\]]*@ 0x[0-9a-f]+\]\s*", "", text))
    return out


class VideoSource:
    """An opened video: metadata plus frame reading at chosen times."""

    def __init__(self, info: VideoInfo, fast_rgb: bool = True):
        self.info = info
        self.path = info.path
        # False: always FFmpeg's own yuv-to-RGB conversion (raw_format)
        self.fast_rgb = fast_rgb
        self.stats = DecodeStats()
        self._kf_interval: dict[float, float | None] = {}

    def _pipe_format(self, size: tuple[int, int]) -> str:
        return raw_format(self.info, size) if self.fast_rgb else "rgb24"

    def __repr__(self) -> str:
        i = self.info
        return (f"VideoSource({i.path!r}, {i.width}x{i.height}, {i.fps:.3f} fps, "
                f"{i.duration:.2f} s, {i.codec})")

    def count_frames(self) -> int:
        """Exact number of video frames (reads packets, decodes nothing)."""
        try:
            return int(imageio_ffmpeg.count_frames_and_secs(self.path)[0])
        except Exception as exc:
            raise VideoError(self.path, f"cannot count frames ({exc})") from None

    def iter_range(self, t0: float, t1: float, fps: float,
                   max_side: int | None = None) -> Iterator[Frame]:
        """Frames at t0, t0 + 1/fps, ... < t1 (clipped to the video).

        Each frame is the one on screen at its time (the latest source frame
        whose timestamp is <= t), also for variable frame rate files.
        Raises VideoError after yielding whatever could be read when the
        file ends before the range does.
        """
        if fps <= 0:
            raise ValueError("fps must be positive")
        t0 = max(0.0, t0)
        end = min(t1, self.info.duration) if self.info.duration else t1
        wanted = TimeRange(t0, end, fps).times()
        if len(wanted) == 0:
            return
        w, h = output_size(self.info.size, max_side)
        fmt = self._pipe_format((w, h))
        # Seek a little early so the frame on screen at t0 (which started
        # before t0) survives FFmpeg's accurate-seek trim. Timestamps are kept
        # as in the file (-copyts: the seek offset would otherwise be rounded
        # to the stream's time base, a whole frame in AVI), moved to a fine
        # time base, shifted so t0 is 0; then fps picks for each slot the
        # latest frame with pts <= slot time (round=up): the frame displayed
        # at each requested time.
        lead = min(seek_lead(self.info.fps, self.info.container), t0)
        origin = self.info.start_time + t0
        vf = (f"settb=AVTB,setpts=PTS-{origin!r}/TB,"
              f"fps=fps={fps!r}:start_time=0:round=up")
        if (w, h) != self.info.size:
            vf += f",scale={w}:{h}:flags=area"
        cmd = [ffmpeg_exe(), "-hide_banner", "-nostdin", "-v", "verbose", "-copyts", *DECODE_THREADS,
               "-ss", f"{t0 - lead:.6f}", "-i", self.path,
               "-map", "0:v:0", "-an", "-sn", "-dn",
               "-vf", vf, "-frames:v", str(len(wanted)),
               "-f", "rawvideo", "-pix_fmt", fmt, "pipe:1"]
        stats = DecodeStats(processes=1)
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                bufsize=0)
        _widen_pipe(proc.stdout)
        err_lines: list[str] = []
        drain = threading.Thread(target=_drain, args=(proc.stderr, err_lines), daemon=True)
        drain.start()
        nbytes = frame_bytes(fmt, (w, h))
        got = 0
        try:
            while got < len(wanted):
                buf = _read_exact(proc.stdout, nbytes)
                if buf is None:
                    break
                img = to_rgb(buf, fmt, (w, h))
                stats.frames_returned += 1
                got += 1
                yield Frame(float(wanted[got - 1]), img)
        finally:
            if proc.poll() is None and got < len(wanted):
                proc.kill()
            proc.stdout.close()
            rc = proc.wait()
            drain.join(timeout=5)
            stats.seconds = time.perf_counter() - started
            text = "".join(err_lines)
            dm = _DECODED.search(text)
            stats.frames_decoded = int(dm.group(1)) if dm else got
            complaints = _error_lines(err_lines, self.path)
            stats.warnings.extend(list(dict.fromkeys(complaints))[:5])
            self.stats.add(stats)
        # Allow one missing frame at the very end: the last sample may fall
        # after the last frame's display interval in short files.
        at_end = self.info.duration and (wanted[-1] >= self.info.duration - 1.5 / max(self.info.fps, 1))
        if got < len(wanted) and not (at_end and got >= len(wanted) - 1):
            last = float(wanted[got - 1]) if got else None
            why = (complaints[0] if complaints else None) or ("FFmpeg exited with code %d" % rc if rc else
                                               "the file ends early")
            raise VideoError(self.path, f"stopped reading at {wanted[got] if got < len(wanted) else end:.3f} s "
                             f"of [{t0:.3f}, {end:.3f}): {why}", last)

    def read_range(self, t0: float, t1: float, fps: float,
                   max_side: int | None = None) -> list[Frame]:
        return _collect(self.iter_range(t0, t1, fps, max_side))

    def iter_ranges(self, ranges: Iterable[TimeRange],
                    max_side: int | None = None) -> Iterator[Frame]:
        for r in ranges:
            yield from self.iter_range(r.t0, r.t1, r.fps, max_side)

    def read_ranges(self, ranges: Iterable[TimeRange],
                    max_side: int | None = None) -> list[Frame]:
        frames: list[Frame] = []
        try:
            for f in self.iter_ranges(ranges, max_side):
                frames.append(f)
        except VideoError as exc:
            exc.partial = frames
            raise
        return frames

    def read_at(self, times: Sequence[float], max_side: int | None = None) -> list[Frame]:
        """Single frames at isolated times: one seek each."""
        fps = max(self.info.fps, 1.0)
        frames: list[Frame] = []
        try:
            for t in times:
                frames.extend(self.iter_range(t, t + 0.5 / fps, fps, max_side))
        except VideoError as exc:
            exc.partial = frames
            raise
        return frames

    # --- key frames only -------------------------------------------------

    def iter_keyframes(self, t0: float, t1: float, min_gap: float = 0.0,
                       max_side: int | None = None) -> Iterator[Frame]:
        """The key frames with t0 <= t < t1, each at its own presentation time.

        One FFmpeg process decodes only key frames (`-skip_frame nokey`, and
        non-key packets are dropped before the decoder for decoders that
        ignore skip_frame, e.g. VP9); a key frame is kept only when it is at
        least `min_gap` seconds after the last one kept (0: keep all). Times
        are on the same clock as `iter_range` (seconds from the file's start),
        read per frame from FFmpeg's `showinfo`, so they are exact (1 us).
        Frames are upright and downscaled like `iter_range`'s, and equal to
        what `iter_range` returns at the same times.

        Raises VideoError after yielding whatever could be read when the file
        ends (or breaks) clearly before the range does; `read_keyframes`
        keeps those frames on the exception.
        """
        if min_gap < 0:
            raise ValueError("min_gap must be >= 0")
        t0 = max(0.0, t0)
        end = min(t1, self.info.duration) if self.info.duration else t1
        if end <= t0:
            return
        w, h = output_size(self.info.size, max_side)
        fmt = self._pipe_format((w, h))
        lead = min(seek_lead(self.info.fps, self.info.container), t0)
        origin = self.info.start_time
        # Timestamps as in the file (-copyts), moved to a 1 us time base and
        # shifted so the file's start is 0. "all" logs every decoded key frame
        # (to tell a file that ends early from a range that ends); trim stops
        # the graph (and so the decoding) at the first key frame >= end.
        keep = f"gte(t,{t0!r})"
        if min_gap > 0:
            # 0.1 ms of slack for time-base rounding (1/12800 s, 1001/30000 s).
            keep += f"*(isnan(prev_selected_t)+gte(t-prev_selected_t,{min_gap - 1e-4!r}))"
        vf = (f"settb=AVTB,setpts=PTS-{origin!r}/TB,showinfo@all=checksum=0,"
              f"trim=end={end!r},select='{keep}'")
        if (w, h) != self.info.size:
            vf += f",scale={w}:{h}:flags=area"
        vf += ",showinfo@out=checksum=0"
        cmd = [ffmpeg_exe(), "-hide_banner", "-nostdin", "-nostats", "-v", "verbose",
               "-copyts", "-noaccurate_seek", "-skip_frame", "nokey", *DECODE_THREADS,
               "-bsf:v", "noise=drop=not(key)",
               "-ss", f"{t0 - lead:.6f}", "-i", self.path,
               "-map", "0:v:0", "-an", "-sn", "-dn", "-vf", vf,
               "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", fmt, "pipe:1"]
        stats = DecodeStats(processes=1)
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                bufsize=0)
        _widen_pipe(proc.stdout)
        log = _ShowinfoLog()
        drain = threading.Thread(target=log.drain, args=(proc.stderr,), daemon=True)
        drain.start()
        nbytes = frame_bytes(fmt, (w, h))
        got, finished, last_t = 0, False, None
        missing_pts = False
        try:
            while True:
                buf = _read_exact(proc.stdout, nbytes)
                if buf is None:
                    finished = True
                    break
                # The frame's showinfo line is logged before the frame is
                # written, but arrives on another pipe: wait for it.
                pts = log.wait_out(got)
                if pts is None:
                    missing_pts = True
                    break
                img = to_rgb(buf, fmt, (w, h))
                got += 1
                stats.frames_returned += 1
                last_t = pts / 1e6
                yield Frame(last_t, img)
        finally:
            if not finished and proc.poll() is None:
                proc.kill()
            proc.stdout.close()
            rc = proc.wait()
            drain.join(timeout=5)
            stats.seconds = time.perf_counter() - started
            text = "".join(log.lines)
            dm = _DECODED.search(text)
            stats.frames_decoded = int(dm.group(1)) if dm else len(log.pts["all"])
            complaints = _error_lines(log.lines, self.path)
            stats.warnings.extend(list(dict.fromkeys(complaints))[:5])
            self.stats.add(stats)
        keys = sorted(log.pts["all"])
        last_key = keys[-1] / 1e6 if keys else None
        why = None
        if missing_pts:
            why = "FFmpeg gave no timestamp for a frame"
        elif rc:
            why = (complaints[0] if complaints else None) or f"FFmpeg exited with code {rc}"
        elif last_key is None or last_key < end - self._end_slack(keys, bool(complaints)):
            # The last key frame is normally within one GOP of the range end
            # (or past it, when trim stopped the reading).
            why = (complaints[0] if complaints else None) or "the file ends early"
        if why:
            reached = "nothing decoded" if last_key is None else f"last key frame at {last_key:.3f} s"
            raise VideoError(self.path, f"stopped reading key frames of [{t0:.3f}, {end:.3f}) "
                             f"({reached}): {why}", last_t)

    @staticmethod
    def _end_slack(keys: list[int], complained: bool) -> float:
        """How far before the range end the last key frame may be in a whole file."""
        gaps = np.diff(keys) / 1e6 if len(keys) >= 2 else np.array([])
        if len(gaps):
            return max(1.0, 1.5 * float(gaps.max()) + 0.1)
        # One key frame seen: the GOP is unknown (x264's default is 250
        # frames, 10 s at 25 fps); be strict only when FFmpeg complained.
        return 1.0 if complained else 10.5

    def read_keyframes(self, t0: float, t1: float, min_gap: float = 0.0,
                       max_side: int | None = None) -> list[Frame]:
        return _collect(self.iter_keyframes(t0, t1, min_gap, max_side))

    def keyframe_interval(self, sample_seconds: float = 20.0) -> float | None:
        """Median gap between key frames in the first `sample_seconds`, or None.

        Measured once per instance by decoding key frames only (at most 64);
        an intra-only codec (MJPEG) gives 1/fps. None when fewer than two key
        frames are found. The cost is added to `stats`.
        """
        key = float(sample_seconds)
        if key in self._kf_interval:
            return self._kf_interval[key]
        cmd = [ffmpeg_exe(), "-hide_banner", "-nostdin", "-nostats", "-v", "verbose",
               "-copyts", "-skip_frame", "nokey", "-bsf:v", "noise=drop=not(key)",
               "-t", f"{sample_seconds:.6f}", "-i", self.path,
               "-map", "0:v:0", "-an", "-sn", "-dn",
               "-vf", "settb=AVTB,showinfo@all=checksum=0", "-frames:v", "64",
               "-fps_mode", "passthrough", "-f", "null", "-"]
        started = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True)
        log = _ShowinfoLog()
        for raw in proc.stderr.splitlines(keepends=True):
            log.feed(raw)
        text = "".join(log.lines)
        dm = _DECODED.search(text)
        keys = sorted(set(log.pts["all"]))
        self.stats.add(DecodeStats(processes=1,
                                   frames_decoded=int(dm.group(1)) if dm else len(keys),
                                   seconds=time.perf_counter() - started))
        value = float(np.median(np.diff(keys))) / 1e6 if len(keys) >= 2 else None
        self._kf_interval[key] = value
        return value


def _collect(frames: Iterator[Frame]) -> list[Frame]:
    """A frame iterator as a list; on a VideoError the frames read so far
    ride on it as `partial`."""
    out: list[Frame] = []
    try:
        for f in frames:
            out.append(f)
    except VideoError as exc:
        exc.partial = out
        raise
    return out


def open_video(path: str | Path, fast_rgb: bool = True) -> VideoSource:
    """Opens a video FFmpeg can read; raises VideoError with a clear message.
    `fast_rgb=False`: frames converted to RGB by FFmpeg itself (raw_format)."""
    return VideoSource(probe(path), fast_rgb)


def _read_exact(stream, n: int) -> bytearray | None:
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        r = stream.readinto(view[got:])
        if not r:
            return None
        got += r
    return buf


def _widen_pipe(stream) -> None:
    """A 1 MiB pipe instead of 64 KiB: halves the context switches per frame."""
    try:
        import fcntl
        fcntl.fcntl(stream.fileno(), 1031, 1 << 20)  # F_SETPIPE_SZ (Linux)
    except (ImportError, OSError):
        pass


def _drain(stream, sink: list[str]) -> None:
    for raw in iter(stream.readline, b""):
        sink.append(raw.decode("utf-8", "replace"))
    stream.close()



_SHOWINFO = re.compile(r"\[showinfo@(all|out) @ 0x[0-9a-f]+\] n:\s*\d+ pts:\s*(-?\d+|NOPTS)")


class _ShowinfoLog:
    """FFmpeg's stderr, with the pts of each frame seen by `showinfo@all`
    and `showinfo@out` (1 us units), read by a thread."""

    def __init__(self):
        self.lines: list[str] = []
        self.pts: dict[str, list[int]] = {"all": [], "out": []}
        self.done = False
        self._cond = threading.Condition()

    def feed(self, raw: bytes) -> None:
        line = raw.decode("utf-8", "replace")
        self.lines.append(line)
        m = _SHOWINFO.search(line)
        if m and m.group(2) != "NOPTS":
            with self._cond:
                self.pts[m.group(1)].append(int(m.group(2)))
                self._cond.notify_all()

    def drain(self, stream) -> None:
        try:
            for raw in iter(stream.readline, b""):
                self.feed(raw)
        finally:
            stream.close()
            with self._cond:
                self.done = True
                self._cond.notify_all()

    def wait_out(self, k: int) -> int | None:
        """The pts of output frame k, once its line has arrived (None if never)."""
        with self._cond:
            while len(self.pts["out"]) <= k and not self.done:
                self._cond.wait(1.0)
            return self.pts["out"][k] if len(self.pts["out"]) > k else None
