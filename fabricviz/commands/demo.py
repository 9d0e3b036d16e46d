"""``fabricviz demo LESSON [--until STEP|end] [--screenshot OUT.png] [--list]``: run a lesson headless.

Prints each step's explanation and the engines' numbers, as the classroom
narration panel would; ``--screenshot`` saves what the classroom canvas shows at
that step (the fabric as the lesson left it, the sweep's discovery and port
states, traced paths, pulled cables, credit loops, the traffic heatmap, with a
legend), drawn by a main window in a child process so this one stays Qt-free.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..model import FabricError


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("demo", help="run a classroom lesson headless and print its narration")
    p.add_argument("lesson", nargs="?", help="lesson number or name (e.g. 1, sm-bringup) or a lesson file")
    p.add_argument("--until", help="stop after this step: its number, the start of its title, or end")
    p.add_argument("--screenshot", help="save a picture of the fabric at that step (OUT.png, .svg or .pdf)")
    p.add_argument("--width", type=int, default=1600, help="picture width in pixels (default 1600)")
    p.add_argument("--list", action="store_true", help="list the bundled lessons")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..anim.lessons import bundled, find_lesson, load_lesson, resolve_until, run_lesson
    if args.list:
        for num, name, path in bundled():
            les = load_lesson(path, num)
            print(f"{num}  {name:<22} {les.title} ({len(les.steps)} steps)")
        return 0
    if not args.lesson:
        raise FabricError("demo: give a LESSON (number, name or file) or --list")
    if args.screenshot:
        from .render import FORMATS
        if Path(args.screenshot).suffix.lower() not in FORMATS:
            raise FabricError(f"--screenshot {args.screenshot}: use a .png, .svg or .pdf name")
    lesson = find_lesson(args.lesson)
    until = resolve_until(lesson, args.until)
    results = run_lesson(lesson, until)
    head = f"Lesson {lesson.number}: " if lesson.number is not None else "Lesson: "
    print(head + lesson.title)
    if lesson.summary:
        print(lesson.summary)
    for r in results:
        print()
        print("\n".join(r.narration()))
    if args.screenshot:
        _screenshot(args.lesson, len(results), args.screenshot, args.width)
    return 0


def _screenshot(ref: str, step: int, out: str, width: int) -> None:
    """Save what the canvas shows at ``step``: a child process opens the lesson in a main
    window (offscreen without a display), steps to it and draws the canvas with its overlays."""
    if not 200 <= width <= 20000:
        raise FabricError(f"--width {width}: use 200 to 20000 pixels")
    from .render import qt_child
    qt_child("fabricviz.ui.shot", [ref, "--step", str(step), "-o", str(out), "--width", str(width)],
             "screenshot")
