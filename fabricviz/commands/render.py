"""``fabricviz render FILE -o OUT.png|svg|pdf [--width W] [--height H] [--dpi D] [--transparent]
[--no-legend] [--title TEXT]``: a picture of a design, headless.

Sizes are picture pixels; ``--dpi`` says how many make an inch (96: one screen pixel each, so
``--width 1050 --dpi 300`` is a 3.5 in column in a paper, drawn as the screen shows it at that
size). The drawing needs Qt, which only fabricviz/ui may load, so the picture is made by
``python -m fabricviz.ui.canvas.export`` in a child process (offscreen when there is no
display); this process stays Qt-free and checks every argument first.
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

from ..anim.picture_options import FLAGS, FORMATS, PictureOptions, check_options
from ..model import FabricError
from .painting import child_command, child_env


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("render", help="write a PNG, SVG or PDF picture of a design (no window)")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True, help="OUT.png, OUT.svg or OUT.pdf")
    p.add_argument("--width", type=int, default=1600, help="picture width in pixels (default 1600)")
    p.add_argument("--height", type=int, help="picture height in pixels (default: follows the design)")
    p.add_argument("--dpi", type=float, default=96.0,
                   help="pixels per inch (default 96, the screen's; 300 for print)")
    p.add_argument("--transparent", action="store_true", help="no background (PNG and SVG)")
    p.add_argument("--no-legend", action="store_true", help="leave the legend out")
    p.add_argument("--title", help='the title line (default: the design\'s name and counts; "" for none)')
    p.set_defaults(func=run)


def check_args(args: argparse.Namespace) -> Path:
    """The output path, once every argument is one the picture can be drawn with."""
    out = Path(args.output)
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise FabricError(f"-o {out}: unknown picture format {out.suffix or '(none)'!r} (use .png, .svg or .pdf)")
    check_options(PictureOptions(args.width, args.height, args.dpi, args.transparent), suffix, FLAGS)
    if not Path(args.file).is_file():
        raise FabricError(f"{args.file}: no such file")
    return out


def run(args: argparse.Namespace) -> int:
    out = check_args(args)
    argv = [args.file, "-o", str(out), "--width", str(args.width), "--dpi", repr(float(args.dpi))]
    if args.height is not None:
        argv += ["--height", str(args.height)]
    if args.transparent:
        argv.append("--transparent")
    if args.no_legend:
        argv.append("--no-legend")
    if args.title is not None:
        argv.append(f"--title={args.title}")
    qt_child("fabricviz.ui.canvas.export", argv, "render")
    return 0


def qt_child(module: str, argv: list[str], what: str) -> None:
    """Run ``python -m module argv`` (a Qt program; offscreen without a display) and pass its
    output on; its ``fabricviz: error:`` line becomes this process's FabricError."""
    proc = subprocess.run(child_command(module, argv), env=child_env(), capture_output=True, text=True)
    if proc.stdout:
        print(proc.stdout.strip())
    if proc.returncode:
        err = [ln for ln in proc.stderr.splitlines() if ln.startswith("fabricviz: error: ")]
        if err:
            raise FabricError(err[-1][len("fabricviz: error: "):])
        last = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        from ..formats.limits import one_line
        raise FabricError(one_line(f"{what} failed ({exit_text(proc.returncode)})"
                                   + (f": {last[-1].strip()[:300]}" if last else "")))


def exit_text(code: int) -> str:
    """How a child process ended, for an error line: "exit 1" or "killed by signal 9"."""
    return f"killed by signal {-code}" if code < 0 else f"exit {code}"
