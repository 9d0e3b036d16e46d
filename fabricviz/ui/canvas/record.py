"""Recorded animations: the SM sweep, a traffic run or a lesson painted and encoded as MP4 or GIF.

What each video frame shows is planned Qt-free (:mod:`fabricviz.anim.recording`: clips and
one shot per frame). :class:`FramePainter` draws a shot into an RGB array on a standalone
scene (the window's own canvas is never touched): the design with the sweep overlay, the
traffic heatmap or a lesson's marks, the title and legend of :func:`export.paint_picture`, and
a clock strip (step or time, narration, a bar of how far the video got).
:class:`VideoWriter` hands the arrays to imageio: H.264 in MP4 through the ffmpeg that the
imageio-ffmpeg wheel bundles, or a looping GIF through pillow; it writes the temp file of an
atomic save (:class:`fabricviz.model.atomic.Replacement`) next to the output and renames it at
the end, so a cancelled or failed recording leaves none.

``python -m fabricviz.ui.canvas.record`` is what ``fabricviz record`` runs in a child process
(so the CLI itself never loads Qt); File ▸ Record Animation… paints one shot per timer tick
and encodes in a job (fabricviz/ui/dialogs/record.py).
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui

from fabricviz.anim.recording import (
    DEFAULT_FPS,
    DEFAULT_WIDTH,
    MAX_DEFAULT_S,
    VIDEO_FORMATS,
    Clip,
    Marks,
    Shot,
    check_gif_memory,
    check_options,
    clip_ticks,
    lesson_clips,
    plan,
    sweep_clip,
    traffic_clip,
)
from fabricviz.model import FabricError
from fabricviz.model.atomic import Replacement

#: Pictures are laid out between these widths in screen pixels, then scaled to the video's.
LOGICAL_WIDTH = (800, 1280)
BAR_COLOR = "#1c7ed6"


def logical_width(width: int) -> float:
    """The width (screen pixels) the picture is laid out at before it is scaled to ``width``
    pixels: a small video keeps the proportions of an 800-pixel one, a big one of a 1280-pixel
    one (text scales with the frame, as on a slide)."""
    return float(min(max(width, LOGICAL_WIDTH[0]), LOGICAL_WIDTH[1]))


class FramePainter:
    """Draws shots of ``clips`` on its own scene (light theme, nothing selected) ``width`` pixels
    wide; ``size`` is the video's (width, height), fixed for the whole recording."""

    _layout: Any = None     # the clip's picture layout, set by _enter (not in __init__: mypy would see None)

    def __init__(self, clips: Sequence[Clip], width: int) -> None:
        from fabricviz.ui.canvas import theme as th
        from fabricviz.ui.canvas.export import legend_font_px
        from fabricviz.ui.canvas.scene import FabricScene
        self.clips = list(clips)
        self.scene = FabricScene()
        self.scene.apply_theme(th.Theme(dark=False))
        self._clip: int | None = None
        self._sweep: Any = None
        self._heat: Any = None
        self._marks: Any = None
        self._scale: Any = None
        self._rows: list = []
        self.ratio = width / logical_width(width)             # video pixels per layout pixel
        lw = width / self.ratio
        self.font_px = legend_font_px(lw)
        self.strip_h = self.font_px * 4.6                      # two lines and the bar (layout pixels)
        self.size = (width, 2)
        self._enter(0)                                        # the height follows the first clip's design
        natural = self._layout.height + self.strip_h
        lh = min(max(natural, lw * 9 / 16), lw * 1.0)              # between 16:9 and 1:1
        self.size = (width, max(2, int(round(lh * self.ratio / 2)) * 2))   # even for H.264's 4:2:0
        self._plan(self.clips[0])                             # again, at that height

    @property
    def picture_h(self) -> float:
        """Layout pixels above the clock strip."""
        return self.size[1] / self.ratio - self.strip_h

    def close(self) -> None:
        """Take the overlays and the fabric off the scene."""
        if self._sweep is not None:
            self._sweep.remove()
        if self._marks is not None:
            self._marks.clear()
        if self._heat is not None:
            self._heat.forget()
        self.scene.set_fabric(None)

    # ------------------------------------------------------------------ a clip on the scene
    def _enter(self, ci: int) -> None:
        """Put clip ``ci``'s fabric and overlays on the scene and lay its picture out once (at
        its last step, where every label it will draw is there): the design stays put."""
        clip = self.clips[ci]
        prev = self.clips[self._clip] if self._clip is not None else None
        if prev is None or prev.fabric is not clip.fabric:
            self.scene.set_fabric(clip.fabric, subscribe=False)
            if self._heat is not None:
                self._heat.forget()
            if self._sweep is not None:
                self._sweep.remove()
        if clip.timeline is not None:
            from fabricviz.ui.canvas.overlays.sweep import SweepOverlay
            if self._sweep is None:
                self._sweep = SweepOverlay(self.scene)
            if not self._sweep.active or prev is None or prev.timeline is not clip.timeline:
                self._sweep.set_context(clip.fabric, clip.timeline)
        elif self._sweep is not None:
            self._sweep.remove()
        if clip.traffic is not None:
            from fabricviz.ui.canvas.overlays.traffic import TrafficOverlay, scale_for
            if self._heat is None:
                self._heat = TrafficOverlay(self.scene)
            self._heat.set_links(clip.fabric, clip.traffic.links.n)
            self._scale = scale_for(clip.metric, clip.traffic.frames)
        elif self._heat is not None:
            self._heat.clear()
        if self._marks is None and clip.marks is not None:
            from fabricviz.ui.canvas.overlays.lesson import LessonOverlay
            self._marks = LessonOverlay(self.scene)
        if self._marks is not None:
            m = clip.marks or Marks()
            self._marks.show(clip.fabric, m.paths, old_path=m.old_path, before=m.before, ghosts=m.ghosts,
                             added=m.added, loop=m.loop)
        self._clip = ci
        self._plan(clip)

    def _plan(self, clip: Clip) -> None:
        """The legend (what the clip draws at any of its steps) and the layout, for the clip, as
        export plans a picture: rows, layout, the rows again at the picture's level of detail."""
        from fabricviz.ui.canvas.export import PictureOptions, plan_picture
        from fabricviz.ui.canvas.legend import (
            cable_rows,
            device_rows,
            heat_rows,
            merge_rows,
            nvlink_rows,
            semantic_rows,
        )
        from fabricviz.ui.canvas.picture_layout import scene_parts
        base = clip.first if clip.traffic is None and clip.timeline is not None else 0
        overlay = []
        if clip.timeline is not None:
            overlay = self._sweep_rows(clip, base)
        self._show(clip, base + clip.steps - 1)
        if clip.traffic is not None:
            frames = clip.traffic.frames
            overlay = heat_rows(self._scale, paused=any(bool(f.link_paused.any()) for f in frames),
                                ecn=any(bool((f.link_ecn > self._heat.ecn_threshold).any()) for f in frames))
        marks = self._mark_rows(clip)

        def rows() -> list:
            return merge_rows(device_rows(clip.fabric, self.scene), nvlink_rows(scene_parts(self.scene).overlays),
                              cable_rows(self.scene), semantic_rows(self.scene), marks, overlay)
        height = None if self.size[1] <= 2 else int(round(self.picture_h * self.ratio))
        opts = PictureOptions(width=self.size[0], height=height, dpi=96.0 * self.ratio, title=clip.title)
        self._rows = rows()
        self._layout = plan_picture(self.scene, opts, self._rows, clip.title, scene_parts(self.scene))
        again = rows()
        if again != self._rows:
            self._rows = again
            self._layout = plan_picture(self.scene, opts, self._rows, clip.title, scene_parts(self.scene))

    def _sweep_rows(self, clip: Clip, base: int) -> list:
        """The sweep's colours, as the Subnet Manager dock's legend names them; the dimming of
        what the SM has not reached yet while the clip starts before it reached everything."""
        from fabricviz.ui.canvas.overlays.sweep import LEGEND
        tl = clip.timeline
        rows = []
        if not tl.state(base).discovered[self._sweep.subnet_devices].all():
            veil = self._sweep.items["undiscovered"].brush().color()
            rows.append(("not yet discovered by the SM (dimmed)", QtGui.QColor(veil), "veil"))
        drawn = {"discovered", "directed route (DR) of the SMP", "port INIT", "port ARMED", "port ACTIVE"}
        rows += [(text, QtGui.QColor(color), style) for text, color, style in LEGEND if text in drawn]
        return rows

    def _mark_rows(self, clip: Clip) -> list:
        """Legend rows of a lesson step's marks (the lesson stage names them the same way)."""
        if self._marks is None or not self._marks.drawn:
            return []
        from fabricviz.ui.canvas.overlays import lesson as st
        d = self._marks.drawn
        m = clip.marks or Marks()
        rows = [(p.label, QtGui.QColor(c), "line") for p, c in zip(m.paths, st.PATH_COLORS, strict=False)]
        for key, label, color, shape in (("old_path", "path before the change", st.OLD_PATH_COLOR, "dash"),
                                         ("loop", "credit loop", st.LOOP_COLOR, "line"),
                                         ("ghosts", "pulled / unplugged cable", st.GHOST_COLOR, "dash"),
                                         ("added", "new cable", st.ADDED_COLOR, "line")):
            if d.get(key):
                rows.append((label, QtGui.QColor(color), shape))
        return rows

    # ------------------------------------------------------------------ one frame
    def paint(self, shot: Shot, ticks: Sequence[float] = ()) -> np.ndarray:
        """The RGB picture (height × width × 3, uint8) of ``shot``; ``ticks`` mark places on the
        progress bar (0..1: clip starts)."""
        from fabricviz.ui.canvas.export import paint_picture
        if shot.clip != self._clip:
            self._enter(shot.clip)
        clip = self.clips[shot.clip]
        clock, line = self._show(clip, shot.index)
        w, h = self.size
        img = QtGui.QImage(w, h, QtGui.QImage.Format.Format_RGB32)
        img.fill(self.scene.theme.background)
        p = QtGui.QPainter(img)
        p.setRenderHints(QtGui.QPainter.RenderHint.Antialiasing | QtGui.QPainter.RenderHint.TextAntialiasing
                         | QtGui.QPainter.RenderHint.SmoothPixmapTransform)
        p.scale(self.ratio, self.ratio)
        p.save()
        p.setClipRect(QtCore.QRectF(0, 0, w / self.ratio, self.picture_h))
        paint_picture(p, self.scene, self._layout, self._rows, clip.title)
        p.restore()
        self._strip(p, QtCore.QRectF(0, self.picture_h, w / self.ratio, self.strip_h), clock, line,
                    (shot.frame + 1) / shot.total, ticks)
        p.end()
        rgb = img.convertToFormat(QtGui.QImage.Format.Format_RGB888)
        buf = np.frombuffer(rgb.constBits(), np.uint8, count=rgb.bytesPerLine() * h)
        return buf.reshape(h, rgb.bytesPerLine())[:, :3 * w].reshape(h, w, 3).copy()

    def _show(self, clip: Clip, index: int) -> tuple[str, str]:
        """Set the overlays to step / frame ``index``; the clock line and the narration line."""
        if clip.traffic is not None:
            frames = clip.traffic.frames
            fr = frames[index]
            self._heat.show_frame(fr, self._scale)
            paused = len(self._heat.paused)
            clock = f"t = {fr.time_s * 1e3:,.3f} ms · frame {index + 1}/{len(frames)}"
            if clip.traffic.model == "maxmin":
                clock = "steady state (max-min fair shares)"
            line = clip.note or (f"{len(clip.traffic.flows):,} flows · {clip.traffic.routing} routing · cables "
                                 f"coloured by {clip.metric}")
            if paused:
                line += f" · {paused:,} cable(s) paused (PFC / no credits)"
            return clock, line
        if clip.timeline is not None:
            from fabricviz.anim.sweep_timeline import PHASE_TITLES
            tl = clip.timeline
            st = tl.state(index)
            self._sweep.show(st)
            if self._layout is not None:
                self._sweep.set_zoom(self._layout.transform.m11())
            n_sw = int(st.discovered[tl.switches].sum())
            clock = (f"step {index + 1}/{len(tl)} · t = {st.t_us:,.1f} µs · {PHASE_TITLES.get(st.phase, st.phase)}"
                     f" · {n_sw}/{len(tl.switches)} switches found" + (" · SUBNET UP" if st.subnet_up else ""))
            return clock, (clip.note if clip.first == clip.last and clip.note else tl.narration[index])
        return "", clip.note

    def _strip(self, p: QtGui.QPainter, r: QtCore.QRectF, clock: str, line: str, done: float,
               ticks: Sequence[float]) -> None:
        """The clock strip: the clock in bold, the narration under it, a progress bar at the bottom."""
        px = self.font_px
        m = max(8.0, 0.6 * px)
        p.setPen(QtGui.QPen(self.scene.theme.text, max(0.5, px / 24)))
        p.drawLine(QtCore.QPointF(r.left() + m, r.top()), QtCore.QPointF(r.right() - m, r.top()))
        font = QtGui.QFont()
        font.setPixelSize(max(1, round(px * 1.2)))
        font.setBold(True)
        p.setFont(font)
        row = QtCore.QRectF(r.left() + m, r.top() + 0.3 * px, r.width() - 2 * m, 1.7 * px)
        left = QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter
        p.drawText(row, left, QtGui.QFontMetricsF(font).elidedText(clock, QtCore.Qt.TextElideMode.ElideRight,
                                                                   row.width()))
        font.setBold(False)
        font.setPixelSize(max(1, round(px)))
        p.setFont(font)
        p.drawText(row.translated(0, 1.6 * px), left,
                   QtGui.QFontMetricsF(font).elidedText(line, QtCore.Qt.TextElideMode.ElideRight, row.width()))
        bar = QtCore.QRectF(r.left(), r.bottom() - 0.45 * px, r.width(), 0.45 * px)
        p.fillRect(bar, QtGui.QColor("#dee2e6"))
        p.fillRect(QtCore.QRectF(bar.left(), bar.top(), bar.width() * done, bar.height()), QtGui.QColor(BAR_COLOR))
        p.setPen(QtGui.QPen(QtGui.QColor("#495057"), max(1.0, px / 12)))
        for t in ticks:
            if 0 < t < 1:
                x = bar.left() + bar.width() * t
                p.drawLine(QtCore.QPointF(x, bar.top() - 0.3 * px), QtCore.QPointF(x, bar.bottom()))


# ------------------------------------------------------------------ encoding (any thread)
class VideoWriter:
    """Frames to ``out`` through imageio: MP4 (libx264, yuv420p) or a looping GIF (pillow).

    Frames go to the temp file of an atomic save of ``out`` (:attr:`part`, hidden beside it) first;
    :meth:`finish` completes it, :meth:`commit` renames it to ``out``, :meth:`abort` deletes it.
    Any one thread may drive it."""

    def __init__(self, out: str | os.PathLike[str], fps: int) -> None:
        self.out = Path(out)
        self.suffix = self.out.suffix.lower()
        if self.suffix not in VIDEO_FORMATS:
            raise FabricError(f"{self.out}: unknown video format {self.out.suffix or '(none)'!r} (use .mp4 or .gif)")
        self.fps = fps
        self.frames = 0
        self._w: Any = None
        try:
            self._save: Replacement | None = Replacement(self.out)
        except FabricError as exc:     # the one-line error of this writer: "OUT: cannot write (why)"
            raise FabricError(f"{self.out}: cannot write ({str(exc).rpartition('cannot save: ')[2]})") from None
        #: the file being encoded (hidden beside ``out``), deleted by :meth:`abort`
        self.part = Path(self._save.tmp)

    def _open(self) -> None:
        if self._save is None:
            raise FabricError(f"{self.out}: the recording was finished or aborted")
        tmp = self._save.tmp
        try:
            if self.suffix == ".gif":
                import imageio.v3 as iio
                self._w = iio.imopen(tmp, "w", plugin="pillow", extension=".gif")
            else:
                import imageio.v3 as iio
                # imageio v2's get_writer(format="FFMPEG") with the extension the temp name lacks
                self._w = iio.imopen(tmp, "wI", plugin="FFMPEG", extension=".mp4",  # type: ignore[call-overload]  # imageio's stub: io_mode "r"/"w" only; legacy plugins take v2's "wI"
                                     legacy_mode=True) \
                    .legacy_get_writer(fps=self.fps, codec="libx264", pixelformat="yuv420p", macro_block_size=2,
                                       ffmpeg_log_level="error", output_params=["-movflags", "+faststart", "-f", "mp4"])
        except OSError as exc:
            self._remove_partial()
            raise FabricError(f"{self.out}: cannot write ({exc.strerror or exc})") from None

    def append(self, frame: np.ndarray) -> None:
        """Encode one RGB frame (the first one opens the file). ffmpeg starts at the first
        frame, so a folder it cannot write in shows here (a broken pipe), not at open."""
        if self._w is None:
            self._open()
        try:
            if self.suffix == ".gif":      # quantised now (1 byte a pixel kept until close), delays in ms
                self._w.write(frame, duration=1000.0 / self.fps, loop=0, bits=8)
            else:
                self._w.append_data(frame)
        except (OSError, RuntimeError) as exc:
            raise self._cannot_write(exc) from None
        self.frames += 1

    def _cannot_write(self, exc: BaseException) -> FabricError:
        """The one-line error of an encoder that failed (its first line: ffmpeg's are long)."""
        text = (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).strip().splitlines()
        return FabricError(f"{self.out}: cannot write ({text[0] if text else type(exc).__name__})")

    def finish(self) -> None:
        """Complete the partial file (every frame encoded); :meth:`commit` then names it ``out``."""
        if self._w is None:
            raise FabricError(f"{self.out}: no frames were recorded")
        w, self._w = self._w, None
        try:
            w.close()
        except (OSError, RuntimeError) as exc:
            _discard(w)
            self._remove_partial()
            raise self._cannot_write(exc) from None
        except BaseException:
            _discard(w)
            self._remove_partial()
            raise

    def _remove_partial(self) -> None:
        save, self._save = self._save, None
        if save is not None:           # its folder may be gone or read-only: nothing more to do then
            save.discard()

    def commit(self) -> Path:
        """Move the finished file to ``out``; returns ``out``."""
        save, self._save = self._save, None
        if save is None:
            raise FabricError(f"{self.out}: no frames were recorded")
        try:
            save.commit()
        except FabricError as exc:
            raise FabricError(f"{self.out}: cannot write ({str(exc).rpartition('cannot save: ')[2]})") from None
        return self.out

    def abort(self) -> None:
        """Stop and delete the partial file."""
        w, self._w = self._w, None
        if w is not None:
            _discard(w)
        self._remove_partial()


def _discard(w: Any) -> None:
    """Close an imageio writer without writing what it holds (a GIF is written at close: its
    frames are dropped first, so neither close nor the plugin's ``__del__`` writes them)."""
    frames = getattr(w, "images_to_write", None)
    if isinstance(frames, list):
        frames.clear()
    try:
        w.close()
    except Exception:  # the file goes anyway; an encoder's complaint about it does not matter
        pass


def record(clips: Sequence[Clip], out: str | os.PathLike[str], fps: int, width: int,
           duration_s: float | None = None, cap_s: float | None = MAX_DEFAULT_S,
           progress: Callable[[int, int], None] | None = None) -> tuple[Path, int, tuple[int, int]]:
    """Paint and encode every shot of ``clips`` on this thread (the CLI's child); returns the
    file, the frame count and the (width, height)."""
    shots = plan(clips, fps, duration_s, cap_s)
    painter = FramePainter(clips, width)
    if Path(out).suffix.lower() == ".gif":
        try:
            check_gif_memory(len(shots), *painter.size, fps)
        except FabricError:
            painter.close()
            raise
    try:
        writer = VideoWriter(out, fps)
    except FabricError:
        painter.close()
        raise
    ticks = clip_ticks(shots)
    try:
        for shot in shots:
            writer.append(painter.paint(shot, ticks))
            if progress is not None:
                progress(shot.frame + 1, shot.total)
        writer.finish()
        path = writer.commit()
    except BaseException:
        writer.abort()
        raise
    finally:
        painter.close()
    return path, len(shots), painter.size


# ------------------------------------------------------------------ the CLI's child process
def _progress_printer(stream=sys.stderr) -> Callable[[int, int], None]:
    """``frame k/N`` on ``stream``: overwritten in place on a terminal, every tenth otherwise."""
    tty = stream.isatty()

    def show(k: int, n: int) -> None:
        if tty:
            stream.write(f"\rframe {k}/{n}" + ("\n" if k == n else ""))
        elif k == n or k % max(1, math.ceil(n / 10)) == 0:
            stream.write(f"frame {k}/{n}\n")
        stream.flush()
    return show


def clips_for(args: Any) -> tuple[list[Clip], float | None]:
    """The clips ``fabricviz record`` asked for, and the length cap that goes with them."""
    if args.lesson:
        from fabricviz.anim.lessons import find_lesson, run_lesson
        lesson = find_lesson(args.lesson)
        return lesson_clips(lesson, run_lesson(lesson)), None
    from fabricviz.loaders import load_any
    fabric = load_any(args.file)
    if args.sweep:
        return [sweep_clip(fabric, args.engine or "minhop")], MAX_DEFAULT_S
    from fabricviz.sim.run import run_traffic
    from fabricviz.sim.units import ParamError, parse_duration
    try:
        res = run_traffic(fabric, args.workload, args.model, args.routing, args.engine or "minhop",
                          parse_duration(args.sim_duration), args.seed)
    except ParamError as e:
        flag = {"workload": "--workload", "duration": "--sim-duration", "routing": "--routing",
                "model": "--model", "engine": "--engine"}.get(e.param)
        if flag is None:
            raise
        raise FabricError(e.with_flag(flag)) from None
    return [traffic_clip(fabric, res, args.workload, args.metric)], MAX_DEFAULT_S


def main(argv: list[str] | None = None) -> int:
    """``python -m fabricviz.ui.canvas.record`` (what ``fabricviz record`` runs; its options)."""
    import argparse
    import time
    ap = argparse.ArgumentParser(prog="fabricviz record")
    ap.add_argument("file", nargs="?")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--workload")
    ap.add_argument("--lesson")
    ap.add_argument("--engine")
    ap.add_argument("--model", default="fluid")
    ap.add_argument("--routing")
    ap.add_argument("--sim-duration", default="2ms")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--metric", default="utilisation")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--fps", type=int)
    ap.add_argument("--width", type=int)
    ap.add_argument("--duration", type=float)
    args = ap.parse_args(argv)
    suffix = Path(args.output).suffix.lower()
    fps = args.fps or DEFAULT_FPS.get(suffix, 30)
    width = args.width or DEFAULT_WIDTH.get(suffix, 1920)
    from fabricviz.ui.canvas.export import picture_main

    def make() -> Path:
        out = check_options(args.output, fps, width, args.duration)
        clips, cap = clips_for(args)
        t0 = time.perf_counter()
        path, n, (w, h) = record(clips, out, fps, width, args.duration, cap, _progress_printer())
        print(f"{n} frames, {w} x {h}, {n / fps:.1f} s at {fps} fps, painted and encoded in "
              f"{time.perf_counter() - t0:.1f} s")
        return path
    return picture_main("fabricviz-record", make)


if __name__ == "__main__":
    sys.exit(main())
