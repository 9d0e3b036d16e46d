"""The CLI's pictures (``collective --plot``, ``whatif --plot``): line charts drawn by matplotlib's
Agg renderer into a PNG, without pyplot's global state, a window or Qt.

:func:`figure` gives an empty figure of a size in pixels; :func:`write_png` renders it and writes
the RGB picture atomically (:func:`fabricviz.model.atomic.write_atomic`)."""

from __future__ import annotations

import io

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

#: Pixels per inch of the rendered figure: sizes are given in pixels.
DPI = 100


def figure(size: tuple[int, int]) -> Figure:
    """An empty figure of ``size`` (width, height) pixels on a white background."""
    w, h = size
    fig = Figure(figsize=(w / DPI, h / DPI), dpi=DPI, facecolor="white")
    FigureCanvasAgg(fig)
    return fig


def rgb(colour: tuple[int, int, int], alpha: float | None = None) -> tuple[float, ...]:
    """An 8-bit RGB triple as matplotlib's 0–1 colour (with ``alpha`` if given)."""
    c = tuple(v / 255 for v in colour)
    return c if alpha is None else (*c, alpha)


def png_bytes(fig: Figure) -> bytes:
    """``fig`` rendered as an RGB PNG (no alpha channel: the picture is opaque)."""
    import imageio.v3 as iio
    import numpy as np
    canvas = fig.canvas
    assert isinstance(canvas, FigureCanvasAgg)
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())[..., :3]
    buf = io.BytesIO()
    iio.imwrite(buf, np.ascontiguousarray(pixels), extension=".png")
    return buf.getvalue()


def write_png(fig: Figure, path: str) -> None:
    """Render ``fig`` and replace ``path`` with the PNG atomically."""
    from ..model.atomic import write_atomic
    write_atomic(path, png_bytes(fig))


__all__ = ["DPI", "figure", "png_bytes", "rgb", "write_png"]
