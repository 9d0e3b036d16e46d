"""What a picture of a design may be asked for (Qt-free): formats, sizes, DPI and their one check.

``fabricviz render`` checks its arguments here before its Qt child starts, the child and the
Export Image dialog check the same :class:`PictureOptions` again (fabricviz/ui/canvas/export.py
draws them), so the limits and the wording live once. Sizes are picture pixels; the picture
is laid out in screen pixels (1/96 in), ``dpi / 96`` picture pixels each, and needs at least
:data:`MIN_LAYOUT` of them for a title, a design and a margin.
:func:`offscreen_env` is the one set-up of a headless Qt child (render, record, lesson shots).
"""

from __future__ import annotations

import math
import sys
from collections.abc import MutableMapping
from dataclasses import dataclass

from ..model import FabricError

FORMATS = (".png", ".svg", ".pdf")
#: One screen pixel is 1/96 in: the unit pictures are laid out in.
SCREEN_DPI = 96.0
#: Picture sides in pixels, dots per inch, and pixels of a PNG at most (1 GiB of ARGB).
SIDE_RANGE = (200, 20000)
DPI_RANGE = (50.0, 1200.0)
MAX_PIXELS = 1 << 28
#: The smallest layout (width, height) in screen pixels: below it the title, the margins and
#: the design leave no room to draw the design in.
MIN_LAYOUT = (120, 80)
#: How :func:`check_options` names each option: the CLI's flags, or the dialog's fields.
FLAGS = {"width": "--width", "height": "--height", "dpi": "--dpi", "transparent": "--transparent"}
FIELDS = {"width": "picture width", "height": "picture height", "dpi": "resolution",
          "transparent": "a transparent background"}


@dataclass(frozen=True)
class PictureOptions:
    """What the user chose: picture pixels, DPI (96: one pixel per screen pixel), background,
    legend, and the title (None: the design's name and counts; "": none)."""

    width: int = 1600
    height: int | None = None
    dpi: float = SCREEN_DPI
    transparent: bool = False
    legend: bool = True
    title: str | None = None

    @property
    def ratio(self) -> float:
        """Picture pixels per screen pixel."""
        return self.dpi / SCREEN_DPI


#: the defaults (frozen, so one instance serves every ``options`` default)
DEFAULT_OPTIONS = PictureOptions()


def check_options(opts: PictureOptions, suffix: str, names: dict[str, str] = FIELDS) -> None:
    """Refuse what cannot be drawn, in one line naming the option by ``names`` (:data:`FLAGS`
    for the CLI)."""
    lo, hi = SIDE_RANGE
    n = names
    for key, value in (("width", opts.width), ("height", opts.height)):
        if value is not None and not lo <= value <= hi:
            raise FabricError(f"{n[key]} {value}: use {lo} to {hi} pixels")
    if not (math.isfinite(opts.dpi) and DPI_RANGE[0] <= opts.dpi <= DPI_RANGE[1]):
        raise FabricError(f"{n['dpi']} {opts.dpi:g}: use {DPI_RANGE[0]:g} to {DPI_RANGE[1]:g} dots per inch")
    if opts.height is not None and opts.width * opts.height > MAX_PIXELS:
        raise FabricError(f"{n['width']} {opts.width} {n['height']} {opts.height}: at most {MAX_PIXELS:,} pixels")
    for key, side, least in (("width", opts.width, MIN_LAYOUT[0]), ("height", opts.height, MIN_LAYOUT[1])):
        if side is not None and side / opts.ratio < least:
            raise FabricError(f"{n[key]} {side} at {n['dpi']} {opts.dpi:g}: {side / opts.ratio:.0f} screen pixels "
                              f"(1/96 in), at least {least} (raise {n[key]} or lower {n['dpi']})")
    if opts.transparent and suffix == ".pdf":
        raise FabricError(f"{n['transparent']}: use a .png or .svg picture (PDF pages are opaque)")


def offscreen_env(env: MutableMapping[str, str]) -> MutableMapping[str, str]:
    """``env`` (os.environ or a child's copy) with Qt's offscreen platform on Linux without a
    display, so headless pictures and videos draw; returns ``env``."""
    if sys.platform.startswith("linux") and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return env


__all__ = ["DEFAULT_OPTIONS", "DPI_RANGE", "FIELDS", "FLAGS", "FORMATS", "MAX_PIXELS", "MIN_LAYOUT", "PictureOptions",
           "SCREEN_DPI", "SIDE_RANGE", "check_options", "offscreen_env"]
