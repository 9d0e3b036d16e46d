"""What a recorded animation shows, frame by frame (Qt-free): the plan behind ``fabricviz record``.

A recording is a list of :class:`Clip` — steps of an SM sweep timeline, the frames of a
traffic run, a lesson step held still with its marks — and :func:`plan` turns it into one
:class:`Shot` per video frame (which clip, which step or frame), so the length, the frame
count and what each frame shows are decided here, the same for the CLI and the GUI; the
painting and the encoding are fabricviz/ui/canvas/record.py's. :func:`check_options` is the
one check of the output name, fps, width and length (the CLI runs it before any Qt loads).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..model import Fabric, FabricError

VIDEO_FORMATS = (".mp4", ".gif")
#: A recording is at most this long unless ``duration`` asks for more (sweep, traffic).
MAX_DEFAULT_S = 20.0
#: SM events per video second at most (the Subnet Manager dock's 5×); big sweeps go faster.
SWEEP_EVENTS_PER_S = 15.0
#: The shortest clip, how long a still (a lesson step with nothing moving) is held, the
#: longest lesson step.
MIN_CLIP_S, HOLD_S, MAX_LESSON_STEP_S = 2.0, 3.0, 6.0
DEFAULT_FPS = {".mp4": 30, ".gif": 20}           # GIF frame delays are in 1/100 s: 20 fps is exact
DEFAULT_WIDTH = {".mp4": 1920, ".gif": 960}
FPS_RANGE, WIDTH_RANGE, DURATION_RANGE = (1, 120), (200, 7680), (0.1, 600.0)
#: A GIF's frames held in memory at most (bytes, one a pixel): see :func:`check_gif_memory`.
MAX_GIF_BYTES = 400 * 1024 * 1024


@dataclass(frozen=True)
class Marks:
    """A lesson step's marks (traced paths, the path before a pull, pulled/new cables, a loop)."""

    paths: tuple = ()
    old_path: Any = None
    before: Fabric | None = None
    ghosts: tuple[int, ...] = ()
    added: tuple[int, ...] = ()
    loop: tuple[int, ...] = ()


@dataclass(frozen=True)
class Clip:
    """One stretch of a recording on ``fabric``: sweep steps ``first..last`` of ``timeline``,
    the frames of ``traffic`` (a SimResult) coloured by ``metric``, or a still; ``seconds``
    overrides its natural length (lesson steps)."""

    fabric: Fabric
    title: str
    timeline: Any = None                  # SweepTimeline
    first: int = 0
    last: int = -1
    traffic: Any = None                   # SimResult
    metric: str = "utilisation"
    marks: Marks | None = None
    note: str = ""                        # the clock strip's line for a still
    seconds: float | None = None

    @property
    def steps(self) -> int:
        """How many different pictures the clip has (sweep steps, traffic frames, 1 for a still)."""
        if self.traffic is not None:
            return len(self.traffic.frames)
        if self.timeline is not None:
            return self.last - self.first + 1
        return 1

    def natural_s(self, fps: float) -> float:
        """Seconds the clip takes at its own pace: sweep steps at :data:`SWEEP_EVENTS_PER_S`,
        one video frame per traffic frame, a still :data:`HOLD_S`."""
        if self.seconds is not None:
            return self.seconds
        if self.steps <= 1:
            return HOLD_S
        if self.traffic is not None:
            return max(MIN_CLIP_S, self.steps / fps)
        return max(MIN_CLIP_S, self.steps / SWEEP_EVENTS_PER_S)


@dataclass(frozen=True)
class Shot:
    """Video frame ``frame`` of ``total``: step or traffic frame ``index`` of clip ``clip``."""

    frame: int
    total: int
    clip: int
    index: int


def plan(clips: Sequence[Clip], fps: float, duration_s: float | None = None,
         cap_s: float | None = MAX_DEFAULT_S) -> list[Shot]:
    """One shot per video frame: ``round(duration_s × fps)`` of them (default: the clips'
    natural lengths, at most ``cap_s`` in all), split over the clips by their lengths; a clip
    of n steps shown in F frames samples steps evenly from its first to its last."""
    if not clips:
        raise FabricError("nothing to record")
    natural = np.array([c.natural_s(fps) for c in clips], float)
    total_s = float(natural.sum())
    target = duration_s if duration_s else (min(total_s, cap_s) if cap_s else total_s)
    ends = np.rint(np.cumsum(natural * (target / total_s)) * fps).astype(int)
    for i in range(len(ends)):                     # every clip gets a frame at least
        ends[i] = max(ends[i], (ends[i - 1] if i else 0) + 1)
    total = int(ends[-1])
    shots, start = [], 0
    for ci, (clip, end) in enumerate(zip(clips, ends.tolist(), strict=True)):
        n, frames = clip.steps, end - start
        for j in range(frames):
            k = round(j * (n - 1) / (frames - 1)) if frames > 1 else n - 1
            base = clip.first if clip.traffic is None and clip.timeline is not None else 0
            shots.append(Shot(start + j, total, ci, base + k))
        start = end
    return shots


def sweep_clip(fabric: Fabric, engine: str = "minhop") -> Clip:
    """The heavy sweep of ``fabric`` routed by ``engine``, every step."""
    from ..ib.sweep import heavy_sweep
    from .sweep_timeline import SweepTimeline
    tl = SweepTimeline(heavy_sweep(fabric, engine), fabric)
    return Clip(fabric, f"{fabric.name} — subnet manager heavy sweep ({engine})", timeline=tl, last=len(tl) - 1)


def traffic_clip(fabric: Fabric, result: Any, spec: str, metric: str = "utilisation") -> Clip:
    """The frames of a traffic run (``run_traffic``'s result) of workload ``spec``."""
    if not getattr(result, "frames", None):
        raise FabricError("the traffic run has no frames")
    title = f"{fabric.name} — {spec}, {result.model} model, {result.routing} routing"
    return Clip(fabric, title, traffic=result, metric=metric)


def lesson_clips(lesson: Any, results: Sequence[Any]) -> list[Clip]:
    """One clip per lesson step, as the classroom canvas shows it: a sweep step plays its events,
    a simulate step its frames, any other step is held with its marks (and the last sweep of
    the same fabric at its end); each takes 2–6 s."""
    clips: list[Clip] = []
    num = f"Lesson {lesson.number}" if lesson.number is not None else "Lesson"
    for k, r in enumerate(results):
        fab = r.fabric
        change = next((results[j] for j in range(k, -1, -1)
                       if results[j].fabric is fab and results[j].change is not None), None)
        ch = change.change if change is not None else None
        marks = Marks(tuple(r.paths or (change.paths if change is not None else ())), r.old_path,
                      ch.before if ch is not None else None, tuple(ch.removed) if ch is not None else (),
                      (ch.added,) if ch is not None and ch.added is not None else (), tuple(r.loop_cables))
        title = f"{num} · step {k + 1}/{len(results)}: {r.title}"
        note = r.lines[0] if r.lines else r.title
        sweep = next((results[j].sweep for j in range(k, -1, -1)
                      if results[j].fabric is fab and results[j].sweep is not None), None)
        run = r.traffic
        if run is not None:
            clip = Clip(fab, title, traffic=run.result, marks=marks, note=note)
        elif sweep is not None and r.sweep is sweep:
            clip = Clip(fab, title, timeline=sweep.timeline, first=sweep.first, last=sweep.last, marks=marks)
        elif sweep is not None:
            clip = Clip(fab, title, timeline=sweep.timeline, first=sweep.last, last=sweep.last, marks=marks,
                        note=note)
        else:
            clip = Clip(fab, title, marks=marks, note=note)
        natural = clip.natural_s(DEFAULT_FPS[".mp4"])
        clips.append(replace(clip, seconds=min(max(natural, MIN_CLIP_S), MAX_LESSON_STEP_S)))
    return clips


def check_options(out: str | os.PathLike[str], fps: int, width: int, duration_s: float | None) -> Path:
    """The output path (its folder must exist); FabricError naming the option for a bad value."""
    p = Path(out)
    if p.suffix.lower() not in VIDEO_FORMATS:
        raise FabricError(f"-o {p}: unknown video format {p.suffix or '(none)'!r} (use .mp4 or .gif)")
    if not FPS_RANGE[0] <= fps <= FPS_RANGE[1]:
        raise FabricError(f"--fps {fps}: use {FPS_RANGE[0]} to {FPS_RANGE[1]} frames per second")
    if not WIDTH_RANGE[0] <= width <= WIDTH_RANGE[1]:
        raise FabricError(f"--width {width}: use {WIDTH_RANGE[0]} to {WIDTH_RANGE[1]} pixels")
    if p.suffix.lower() == ".mp4" and width % 2:
        raise FabricError(f"--width {width}: an MP4 (H.264, 4:2:0) needs an even number of pixels")
    if duration_s is not None and not DURATION_RANGE[0] <= duration_s <= DURATION_RANGE[1]:
        raise FabricError(f"--duration {duration_s:g}: use {DURATION_RANGE[0]:g} to {DURATION_RANGE[1]:g} seconds")
    if p.suffix.lower() == ".gif":          # the height is at most the width (frames are 16:9 to 1:1)
        check_gif_memory(round(fps * (duration_s or MAX_DEFAULT_S)), width, width, fps)
    if not p.parent.is_dir():
        raise FabricError(f"-o {p}: no folder {p.parent}")
    return p


def check_gif_memory(frames: int, width: int, height: int, fps: int) -> None:
    """Refuse a GIF whose frames would take over :data:`MAX_GIF_BYTES`.

    imageio's pillow plugin keeps every quantised frame (a byte a pixel) until the file is
    closed, because pillow writes an animated GIF in one ``save_all`` call; streaming it would
    mean writing GIF blocks by hand, so the size is capped instead (an MP4 streams through
    ffmpeg and has no such limit). :func:`check_options` checks the worst case (height =
    width, the default length when none is given), the recording the exact plan."""
    need = frames * width * height
    if need > MAX_GIF_BYTES:
        raise FabricError(f"a GIF of {frames:,} frames of {width} x {height} needs ~{need / 2**20:,.0f} MB "
                          f"held in memory (at most {MAX_GIF_BYTES / 2**20:,.0f} MB): lower --width, --fps "
                          f"or --duration, or record an .mp4")


def clip_ticks(shots: Sequence[Shot]) -> list[float]:
    """Where each clip after the first starts, as a fraction of the video (the bar's ticks)."""
    return [s.frame / s.total for a, s in zip(shots, shots[1:], strict=False) if s.clip != a.clip]


__all__ = ["Clip", "DEFAULT_FPS", "DEFAULT_WIDTH", "DURATION_RANGE", "FPS_RANGE", "MAX_DEFAULT_S", "MAX_GIF_BYTES",
           "Marks", "Shot", "VIDEO_FORMATS", "WIDTH_RANGE", "check_gif_memory", "check_options", "clip_ticks",
           "lesson_clips", "plan", "sweep_clip", "traffic_clip"]
