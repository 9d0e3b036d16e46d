"""``fabricviz record FILE (--sweep | --workload W) -o OUT.mp4|OUT.gif``: an animation as a video.

The SM's heavy sweep (``--sweep [--engine E]``), a traffic run's frames (``--workload W
[--model fluid]``) or a whole lesson (``--lesson N``, on the lesson's own fabric, no FILE)
is painted frame by frame with a title, a clock and a legend and encoded through imageio
(MP4: H.264 by the ffmpeg of the imageio-ffmpeg wheel; GIF: pillow, looping). The painting
needs Qt, which only fabricviz/ui may load: ``python -m fabricviz.ui.canvas.record`` does it
in a child process that shares this one's terminal (its ``frame 120/600`` progress line is
rewritten in place there). Every argument is checked here first; a bad one exits 2 with one
line naming the option.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from ..model import FabricError
from .painting import child_command, child_env
from .render import exit_text

SWEEP_ENGINES = ("minhop", "updn", "ftree", "dfsssp", "lash", "sssp")  # fabricviz.ib.routing.ENGINES
TRAFFIC_ENGINES = SWEEP_ENGINES + ("dmodk",)
METRICS = ("utilisation", "queue", "latency")
#: The options that describe a traffic run, by flag (not taken with --sweep or --lesson).
TRAFFIC_ONLY = {"model": "--model", "routing": "--routing", "sim_duration": "--sim-duration", "metric": "--metric",
                "seed": "--seed"}


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("record", help="write the SM sweep, a traffic run or a lesson as an MP4 or GIF video")
    p.add_argument("file", nargs="?", help="design file (not with --lesson)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--sweep", action="store_true", help="the subnet manager's heavy sweep, step by step")
    what.add_argument("--workload", help="a traffic run: ring[:SIZE], alltoall[:SIZE], permutation, shift[:K], "
                                         "incast[:N]")
    what.add_argument("--lesson", metavar="N", help="a bundled lesson (number or name) or a lesson file: "
                                                    "every step, on the lesson's own fabric")
    p.add_argument("--engine", choices=TRAFFIC_ENGINES,
                   help="routing engine of the sweep (minhop, updn, ftree; default minhop) or of a run's "
                        "InfiniBand static routes (also dmodk)")
    p.add_argument("--model", choices=("maxmin", "fluid"), help="traffic model (default fluid: frames over time)")
    p.add_argument("--routing", choices=("static", "adaptive", "ecmp", "spray"),
                   help="traffic routing (default: static on InfiniBand, ecmp on RoCE)")
    p.add_argument("--sim-duration", help="fluid run length (default 2ms)")
    p.add_argument("--seed", type=int, help="workload and ECMP hash seed (default 0)")
    p.add_argument("--metric", choices=METRICS, help="what colours the cables (default utilisation)")
    p.add_argument("-o", "--output", required=True, help="OUT.mp4 or OUT.gif")
    p.add_argument("--fps", type=int, help="frames per second (default 30; 20 for a GIF)")
    p.add_argument("--width", type=int, help="video width in pixels (default 1920; 960 for a GIF); the height "
                                             "follows the design")
    p.add_argument("--duration", type=float, metavar="S",
                   help="video length in seconds (default: the animation's own pace, at most 20 s)")
    p.set_defaults(func=run)


def child_argv(args: argparse.Namespace) -> list[str]:
    """The arguments of ``python -m fabricviz.ui.canvas.record`` for checked ``args``."""
    from ..anim.recording import DEFAULT_FPS, DEFAULT_WIDTH
    suffix = Path(args.output).suffix.lower()
    argv = [args.file] if args.file else []
    if args.lesson:
        argv += ["--lesson", args.lesson]
    elif args.sweep:
        argv += ["--sweep", "--engine", args.engine or "minhop"]
    else:
        argv += ["--workload", args.workload, "--engine", args.engine or "minhop", "--model", args.model or "fluid",
                 "--sim-duration", args.sim_duration or "2ms", "--seed", str(args.seed or 0),
                 "--metric", args.metric or "utilisation"]
        if args.routing:
            argv += ["--routing", args.routing]
    argv += ["-o", str(args.output), "--fps", str(args.fps or DEFAULT_FPS[suffix]),
             "--width", str(args.width or DEFAULT_WIDTH[suffix])]
    if args.duration is not None:
        argv += ["--duration", repr(args.duration)]
    return argv


def check(args: argparse.Namespace) -> None:
    """Every argument, before any Qt loads; FabricError names the option."""
    from ..anim.recording import DEFAULT_FPS, DEFAULT_WIDTH, check_options
    suffix = Path(args.output).suffix.lower()
    fps = args.fps if args.fps is not None else DEFAULT_FPS.get(suffix, 30)
    width = args.width if args.width is not None else DEFAULT_WIDTH.get(suffix, 1920)
    check_options(args.output, fps, width, args.duration)
    if args.lesson:
        if args.file:
            raise FabricError(f"--lesson {args.lesson}: a lesson records its own fabric; give no FILE "
                              f"({args.file})")
        given = [flag for key, flag in {**TRAFFIC_ONLY, "engine": "--engine"}.items()
                 if getattr(args, key) is not None]
        if given:
            raise FabricError(f"{given[0]}: not with --lesson (the lesson's steps choose it)")
        from ..anim.lessons import find_lesson
        try:
            find_lesson(args.lesson)
        except FabricError as e:
            raise FabricError(f"--lesson {e}") from None
        return
    if not args.file:
        raise FabricError("record: give a design FILE with --sweep or --workload W (or --lesson N)")
    if not Path(args.file).is_file():
        raise FabricError(f"{args.file}: no such file")
    if args.sweep:
        if args.engine is not None and args.engine not in SWEEP_ENGINES:
            raise FabricError(f"--engine {args.engine}: the SM sweep routes with {', '.join(SWEEP_ENGINES)}")
        given = [flag for key, flag in TRAFFIC_ONLY.items() if getattr(args, key) is not None]
        if given:
            raise FabricError(f"{given[0]}: only with --workload (a traffic run)")
        return
    from ..sim.units import ParamError, parse_duration
    try:
        parse_duration(args.sim_duration or "2ms")
    except ParamError as e:
        raise FabricError(e.with_flag("--sim-duration")) from None
    if (args.model or "fluid") == "maxmin" and args.sim_duration is not None:
        raise FabricError("--sim-duration: only with --model fluid (max-min is one steady-state frame)")


def run(args: argparse.Namespace) -> int:
    check(args)
    env = child_env()
    # the child writes to this terminal itself: its progress line, "wrote …", or its one error line
    sys.stdout.flush()
    sys.stderr.flush()
    proc = subprocess.run(child_command("fabricviz.ui.canvas.record", child_argv(args)), env=env)
    if proc.returncode in (0, 2):          # 2: the child said why in its one error line
        return proc.returncode
    raise FabricError(f"record: the painting process failed ({exit_text(proc.returncode)}); "
                      f"{Path(args.output).name} was not written")


__all__ = ["check", "child_argv", "register", "run"]
