"""Creating a game workspace from an uploaded video and protocol.

Everything is checked in a staging folder first; the workspace folder is
created only when the video is a real video within the size limit and the
protocol passes the engine's validation. An existing folder is never
written to: a name that is taken is refused.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import imageio_ffmpeg

from engine.importers import import_file
from engine.protocol import Protocol, ProtocolError, parse_protocol
from engine.replay import replay
from engine.types import Severity
from review.workspace import PROTOCOL_FILE

DEFAULT_SIZE_LIMIT = 4 * 1024 ** 3  # 4 GB
SIZE_LIMIT_ENV = "MAFVAR_UPLOAD_LIMIT"  # bytes
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


class UploadRefused(Exception):
    """An upload that cannot become a workspace; the message is for the user."""


class ProtocolKind(str, Enum):
    NATIVE = "native"
    MAFIARATINGS = "mafiaratings"
    POLEMICA = "polemica"


@dataclass(frozen=True)
class Upload:
    name: str  # the file name the user gave
    data: bytes


def size_limit(environ: dict[str, str] | None = None) -> int:
    value = (environ if environ is not None else os.environ).get(SIZE_LIMIT_ENV, "")
    try:
        return int(value) if value else DEFAULT_SIZE_LIMIT
    except ValueError:
        return DEFAULT_SIZE_LIMIT


def _human(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"


def sniff_container(head: bytes) -> str | None:
    """The container named by the file's first bytes, or None if it is not a video."""
    if len(head) >= 12 and head[4:8] == b"ftyp":
        return "mp4"
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return "matroska"
    if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
        return "avi"
    return None


def check_video(path: Path, limit: int) -> str:
    """Refuse anything but a decodable video within the limit; returns the container."""
    size = path.stat().st_size
    if size > limit:
        raise UploadRefused(f"video is too large: {_human(size)} (the limit is {_human(limit)})")
    with path.open("rb") as fh:
        head = fh.read(16)
    container = sniff_container(head)
    if container is None:
        raise UploadRefused("not a video file: its first bytes are not an MP4/MOV, "
                            "Matroska/WebM or AVI header")
    # The header can lie; make FFmpeg open it and find a video stream.
    proc = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-nostdin", "-i", str(path)],
                          capture_output=True, text=True, errors="replace")
    if "Input #0" not in proc.stderr or "Video:" not in proc.stderr:
        raise UploadRefused("not a readable video: FFmpeg finds no video stream in it")
    return container


def native_protocol(kind: ProtocolKind, path: Path) -> dict[str, Any]:
    """The upload as a validated native protocol document (the engine's message on failure)."""
    if kind is ProtocolKind.NATIVE:
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            proto = parse_protocol(text)
        except ProtocolError as exc:
            raise UploadRefused(_engine_message(exc)) from None
        doc = proto.to_dict()
        doc.update({k: v for k, v in json.loads(text).items() if k not in doc})
    else:
        try:
            imported = import_file(kind.value, path)
        except ProtocolError as exc:
            raise UploadRefused(_engine_message(exc)) from None
        except (ValueError, KeyError, TypeError) as exc:
            raise UploadRefused(f"not a {kind.value} game record: {exc}") from None
        doc = dict(imported)
        try:
            proto = parse_protocol(json.dumps(doc))
        except ProtocolError as exc:
            raise UploadRefused(_engine_message(exc)) from None
    errors = _replay_errors(proto)
    if errors:
        raise UploadRefused("the protocol fails the engine's validation: " + "; ".join(errors[:3]))
    return doc


def _engine_message(exc: Exception) -> str:
    issues = getattr(exc, "issues", None) or []
    details = "; ".join(str(getattr(i, "message", i)) for i in issues[:3])
    return f"the protocol fails the engine's validation: {details or exc}"


def _replay_errors(proto: Protocol) -> list[str]:
    try:
        result = replay(proto)
    except Exception as exc:  # the engine promises issues, not exceptions; be safe anyway
        return [f"replay failed: {exc}"]
    return [str(issue) for issue in result.issues if issue.severity is Severity.ERROR]


def create_workspace(root: Path, name: str, video: Upload, protocol: Upload,
                     kind: ProtocolKind, limit: int | None = None) -> Path:
    """Validate both uploads and create root/name; nothing is written if anything fails."""
    limit = size_limit() if limit is None else limit
    if not NAME_RE.match(name or ""):
        raise UploadRefused("game name: use letters, digits, '.', '_' or '-' (up to 80)")
    root = Path(root).expanduser()
    target = root / name
    if target.exists():
        raise UploadRefused(f"{target} already exists; choose another name (nothing was changed)")
    if len(video.data) > limit:
        raise UploadRefused(f"video is too large: {_human(len(video.data))} (the limit is {_human(limit)})")
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.upload-", dir=root))
    try:
        suffix = Path(video.name).suffix.lower() or ".mp4"
        staged_video = staging / ("upload" + suffix)
        staged_video.write_bytes(video.data)
        check_video(staged_video, limit)
        staged_proto = staging / ("upload-protocol" + (Path(protocol.name).suffix or ".json"))
        staged_proto.write_bytes(protocol.data)
        doc = native_protocol(kind, staged_proto)
        video_name = _camera_file(doc, suffix)
        try:
            target.mkdir()  # exclusive: if someone created it meanwhile, refuse
        except FileExistsError:
            raise UploadRefused(f"{target} already exists; choose another name") from None
        os.replace(staged_video, target / video_name)
        (target / PROTOCOL_FILE).write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n",
                                              encoding="utf-8")
        return target
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _camera_file(doc: dict[str, Any], suffix: str) -> str:
    """The name the video is stored under: what the protocol's first camera says, if safe."""
    cams = doc.get("cameras")
    if isinstance(cams, list) and cams and isinstance(cams[0], dict):
        name = str(cams[0].get("file", ""))
        if name and "/" not in name and "\\" not in name and not name.startswith("."):
            return name
        cams[0]["file"] = "video" + suffix
        return cams[0]["file"]
    doc["cameras"] = [{"id": "cam1", "file": "video" + suffix, "offset": 0.0}]
    return "video" + suffix
