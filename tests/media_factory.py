"""Tiny generated media for tests and benchmarks: PNG/JPEG images (Pillow) and MP4 clips (PyAV)."""
from __future__ import annotations

from pathlib import Path

import av
import numpy as np
from PIL import Image


def make_image(path: Path, size=(64, 48), color=(200, 60, 20), fmt: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    image = Image.new("RGB", size, color)
    for x in range(0, size[0], 8):
        image.putpixel((x, x % size[1]), (255, 255, 255))
    image.save(path, format=fmt)
    return path


def make_video(path: Path, seconds: float = 2.0, fps: int = 10, size=(64, 48)) -> Path:
    """An H.264 MP4 whose frame i is a solid gray level that encodes i (frame i shows value 10*i mod 250)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        stream.options = {"preset": "ultrafast", "tune": "zerolatency"}
        for i in range(int(seconds * fps)):
            value = (10 * i) % 250
            array = np.full((size[1], size[0], 3), value, dtype=np.uint8)
            frame = av.VideoFrame.from_ndarray(array, format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path
