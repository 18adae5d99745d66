"""Media processing: images resized to a long side of at most 1024 px, videos cut into keyframes.

Keyframes are either the curator's chosen timestamps or sampled at 2 fps; when 2 fps gives more
than 10 frames, 10 are taken at equal intervals over the whole clip so the end is not lost.
PyAV decodes, Pillow encodes; the same input gives the same bytes. Both are imported when a
medium is processed, so a build of sources without media does not load them.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import av
    from PIL import Image

MAX_SIDE = 1024
SAMPLE_FPS = 2.0
MAX_KEYFRAMES = 10
JPEG_QUALITY = 90
#: larger images are refused before decoding (a few bytes of PNG can claim billions of pixels)
MAX_PIXELS = 40_000_000
#: video containers we decode, by file suffix, with the FFmpeg demuxer forced for each: plain
#: media files only, never playlists or other formats that make FFmpeg open further files
VIDEO_DEMUXERS = {".mp4": "mp4", ".m4v": "mp4", ".mov": "mov", ".mkv": "matroska", ".webm": "matroska",
                  ".avi": "avi"}


class MediaError(Exception):
    """A media file that cannot be used; the message says why."""


@dataclass(frozen=True)
class EncodedImage:
    bytes: bytes
    path: str

    def as_feature(self) -> dict:
        return {"bytes": self.bytes, "path": self.path}


def fit(image: Image.Image) -> Image.Image:
    """The image scaled down (never up) so its long side is at most MAX_SIDE."""
    from PIL import Image

    if max(image.size) <= MAX_SIDE:
        return image
    scale = MAX_SIDE / max(image.size)
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, Image.Resampling.LANCZOS)


def encode(image: Image.Image, fmt: str) -> bytes:
    buffer = io.BytesIO()
    if fmt == "JPEG":
        image.convert("RGB").save(buffer, format="JPEG", quality=JPEG_QUALITY, optimize=False)
    else:
        image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def process_image(path: Path, name: str) -> EncodedImage:
    """An image file ready to embed: untouched when small enough, else resized and re-encoded."""
    from PIL import Image, UnidentifiedImageError

    data = path.read_bytes()
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > MAX_PIXELS:
                raise MediaError(f"image of {image.width} x {image.height} pixels is larger than the "
                                 f"{MAX_PIXELS:,} pixels accepted")
            image.load()
            fmt = image.format
            if max(image.size) <= MAX_SIDE and fmt in ("PNG", "JPEG"):
                return EncodedImage(data, name)
            fmt = "PNG" if fmt == "PNG" else "JPEG"
            return EncodedImage(encode(fit(image), fmt), _with_suffix(name, fmt))
    except Image.DecompressionBombError as exc:
        raise MediaError(f"image refused as a decompression bomb ({exc})") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise MediaError(f"cannot decode image ({exc})") from None


def video_duration(container: av.container.InputContainer, stream) -> float:
    import av

    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / av.time_base
    return 0.0


def sample_times(duration: float) -> list[float]:
    """2 fps over the clip, thinned to at most MAX_KEYFRAMES at equal intervals."""
    count = max(1, int(duration * SAMPLE_FPS + 1e-9))
    times = [i / SAMPLE_FPS for i in range(count)]
    if len(times) > MAX_KEYFRAMES:
        step = (len(times) - 1) / (MAX_KEYFRAMES - 1)
        times = [times[round(i * step)] for i in range(MAX_KEYFRAMES)]
    return times


def extract_keyframes(path: Path, stem: str, times: list[float] | None = None) -> tuple[list[EncodedImage], str]:
    """Keyframes of a video and how they were chosen ("human" for given times, else "sampled")."""
    import av

    demuxer = VIDEO_DEMUXERS.get(path.suffix.lower())
    if demuxer is None:
        raise MediaError(f"not an accepted video container format (use one of {', '.join(sorted(VIDEO_DEMUXERS))})")
    if path.stat().st_size == 0:
        raise MediaError("the video file is empty (0 bytes)")
    try:
        with open(path, "rb") as file, av.open(file, format=demuxer) as container:
            if not container.streams.video:
                raise MediaError("no video stream")
            stream = container.streams.video[0]
            duration = video_duration(container, stream)
            source = "human" if times else "sampled"
            wanted = list(times) if times else sample_times(duration)
            late = [t for t in wanted if duration and t > duration]
            if late:
                raise MediaError(f"keyframe time {late[0]:g} s is beyond the video's duration {duration:.2f} s")
            frames = _frames_at(container, stream, wanted)
    except (av.FFmpegError, OSError) as exc:       # the demuxer's reads surface as OSError too
        raise MediaError(f"cannot decode video ({exc})") from None
    if not frames:
        raise MediaError("the video has no decodable frames")
    images = [EncodedImage(encode(fit(f), "JPEG"), f"{stem}-keyframe-{i:02d}.jpg") for i, f in enumerate(frames)]
    return images, source


def _frames_at(container, stream, times: list[float]) -> list[Image.Image]:
    """One decoding pass: for each wanted time, the first frame shown at or after it (or the last frame)."""
    pending = sorted(enumerate(times), key=lambda it: it[1])
    chosen: dict[int, Image.Image] = {}
    last = None
    for frame in container.decode(stream):
        t = frame.time if frame.time is not None else 0.0
        last = frame
        while pending and pending[0][1] <= t + 1e-6:
            chosen[pending.pop(0)[0]] = frame.to_image()
        if not pending:
            break
    if last is not None:
        for index, _ in pending:
            chosen[index] = last.to_image()
    return [chosen[i] for i in sorted(chosen)]


def _with_suffix(name: str, fmt: str) -> str:
    return str(Path(name).with_suffix(".png" if fmt == "PNG" else ".jpg"))
