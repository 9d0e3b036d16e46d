"""``fabricviz render FILE -o OUT.png|svg|pdf [--width W]``: a picture of a design, headless.

The drawing needs Qt, which only fabricviz/ui may load, so the picture is made
by ``python -m fabricviz.ui.canvas.export`` in a child process (offscreen when there is
no display); this process stays Qt-free and checks the arguments first.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from ..model import FabricError

FORMATS = (".png", ".svg", ".pdf")


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("render", help="write a PNG, SVG or PDF picture of a design (no window)")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True, help="OUT.png, OUT.svg or OUT.pdf")
    p.add_argument("--width", type=int, default=1600, help="picture width in pixels (default 1600)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.output)
    if out.suffix.lower() not in FORMATS:
        raise FabricError(f"-o {out}: unknown picture format {out.suffix or '(none)'!r} (use .png, .svg or .pdf)")
    if not 200 <= args.width <= 20000:
        raise FabricError(f"--width {args.width}: use 200 to 20000 pixels")
    if not Path(args.file).is_file():
        raise FabricError(f"{args.file}: no such file")
    qt_child("fabricviz.ui.canvas.export", [args.file, "-o", str(out), "--width", str(args.width)], "render")
    return 0


def qt_child(module: str, argv: list[str], what: str) -> None:
    """Run ``python -m module argv`` (a Qt program; offscreen without a display) and pass its
    output on; its ``fabricviz: error:`` line becomes this process's FabricError."""
    env = dict(os.environ)
    if sys.platform.startswith("linux") and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
    proc = subprocess.run([sys.executable, "-m", module, *argv], env=env, capture_output=True, text=True)
    if proc.stdout:
        print(proc.stdout.strip())
    if proc.returncode:
        err = [ln for ln in proc.stderr.splitlines() if ln.startswith("fabricviz: error: ")]
        if err:
            raise FabricError(err[-1][len("fabricviz: error: "):])
        raise FabricError(f"{what} failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}")
