"""``fabricviz record``: the SM sweep and a traffic run as MP4 / GIF, read back with imageio;
the frame plan (Qt-free); every bad argument refused in one line with status 2."""

from __future__ import annotations

import subprocess
import sys

import imageio.v2 as iio2
import imageio.v3 as iio
import numpy as np
import pytest

from fabricviz.anim.recording import MAX_DEFAULT_S, SWEEP_EVENTS_PER_S, plan, sweep_clip, traffic_clip
from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree

pytestmark = pytest.mark.slow     # each test records a picture or video in a child process


@pytest.fixture
def tiny(tmp_path):
    """A 2-level fat tree of radix-4 switches with 4 hosts, saved as a design file."""
    path = tmp_path / "tiny.json"
    save_fabric(fat_tree(levels=2, radix=4, hosts=4, name="tiny"), path)
    return path


def record(*args, cwd):
    return subprocess.run([sys.executable, "-m", "fabricviz", "record", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_sweep_mp4_has_duration_times_fps_frames_that_change(tiny, tmp_path):
    out = tmp_path / "sweep.mp4"
    r = record(tiny, "--sweep", "-o", out, "--fps", 10, "--width", 640, "--duration", 2, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith("20 frames, 640 x 640, 2.0 s at 10 fps")
    assert r.stdout.splitlines()[1].startswith(f"wrote {out} (")
    assert r.stderr.splitlines()[-1] == "frame 20/20"            # not a terminal: a line per tenth
    assert len(r.stderr.splitlines()) == 10
    reader = iio2.get_reader(out, format="FFMPEG")
    try:
        meta = reader.get_meta_data()
        frames = [np.asarray(f) for f in reader]
    finally:
        reader.close()
    assert (len(frames), meta["size"], meta["fps"]) == (20, (640, 640), 10.0)
    assert frames[0].shape == (640, 640, 3)
    changed = np.abs(frames[0].astype(int) - frames[-1].astype(int)).max(axis=2) > 60
    assert changed.sum() > 500           # ports INIT → ACTIVE, LID labels, the clock, the bar
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.mp4", "tiny.json"]   # no .partial left


def test_workload_gif_loops_with_a_frame_per_step(tiny, tmp_path):
    out = tmp_path / "incast.gif"
    r = record(tiny, "--workload", "incast:3", "--model", "fluid", "-o", out, "--fps", 10, "--width", 400,
               "--duration", 3, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    frames = iio.imread(out, index=None)
    assert frames.shape == (30, 400, 400, 3)
    meta = iio.immeta(out)
    assert (meta["loop"], meta["duration"]) == (0, 100)
    hot = np.array([0xd7, 0x19, 0x1c])                     # the heat ramp's 100 % end: the incast link
    near = np.abs(frames[-1].astype(int) - hot).max(axis=2) < 40
    assert near.sum() > 30           # leaf01's name, on its plate above the cables, covers a part of it
    assert not np.array_equal(frames[0], frames[-1])


def test_a_refused_design_is_one_line_from_the_child(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "fabricviz", "version": 1, "devices": [{"kind": "gpu"}]}')
    r = record(bad, "--sweep", "-o", tmp_path / "x.mp4", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", f"fabricviz: error: {bad}: devices[0].name: missing\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_plan_a_sweep_at_its_own_pace_and_capped():
    f = fat_tree(levels=2, radix=4, hosts=4, name="tiny")
    clip = sweep_clip(f, "minhop")
    n = len(clip.timeline)
    shots = plan([clip], 10)
    assert len(shots) == round(n / SWEEP_EVENTS_PER_S * 10)
    assert (shots[0].index, shots[-1].index) == (0, n - 1)
    assert [s.frame for s in shots] == list(range(len(shots)))
    idx = [s.index for s in shots]
    assert idx == sorted(idx)
    assert len(plan([clip], 30, duration_s=1.5)) == 45
    assert len(plan([clip], 120, cap_s=0.5)) == 60            # a long sweep is squeezed into the cap


def test_plan_traffic_one_video_frame_per_run_frame():
    from fabricviz.sim.run import run_traffic
    f = fat_tree(levels=2, radix=4, hosts=4, name="tiny")
    res = run_traffic(f, "incast:3", "fluid", None, "minhop", 2e-3, 0)
    clip = traffic_clip(f, res, "incast:3")
    n = len(res.frames)
    shots = plan([clip], 30)
    assert n / 30 < MAX_DEFAULT_S and [s.index for s in shots] == list(range(n))
    assert [s.index for s in plan([clip], 10, duration_s=2.0)][:3] == [0, round(1 * (n - 1) / 19), round(2 * (n - 1) / 19)]


@pytest.mark.parametrize("args,msg", [
    (["{f}", "--sweep", "-o", "x.avi"], "-o x.avi: unknown video format '.avi' (use .mp4 or .gif)"),
    (["{f}", "--sweep", "--workload", "ring", "-o", "x.mp4"], "argument --workload: not allowed with argument --sweep"),
    (["{f}", "-o", "x.mp4"], "one of the arguments --sweep --workload --lesson is required"),
    (["{f}", "--sweep", "-o", "x.mp4", "--fps", "0"], "--fps 0: use 1 to 120 frames per second"),
    (["{f}", "--sweep", "-o", "x.gif", "--fps", "121"], "--fps 121: use 1 to 120 frames per second"),
    (["{f}", "--sweep", "-o", "x.mp4", "--width", "199"], "--width 199: use 200 to 7680 pixels"),
    (["{f}", "--sweep", "-o", "x.mp4", "--width", "7682"], "--width 7682: use 200 to 7680 pixels"),
    (["{f}", "--sweep", "-o", "x.mp4", "--width", "641"], "--width 641: an MP4 (H.264, 4:2:0) needs an even number of pixels"),
    (["{f}", "--sweep", "-o", "x.mp4", "--duration", "0"], "--duration 0: use 0.1 to 600 seconds"),
    (["{f}", "--sweep", "-o", "x.mp4", "--engine", "dmodk"], "--engine dmodk: the SM sweep routes with minhop, updn, ftree, dfsssp, lash, sssp"),
    (["{f}", "--sweep", "-o", "x.mp4", "--model", "fluid"], "--model: only with --workload (a traffic run)"),
    (["{f}", "--workload", "ring", "-o", "x.gif", "--sim-duration", "soon"], "--sim-duration 'soon': use e.g. 10ms, 250us, 0.5s"),
    (["--lesson", "99", "-o", "x.mp4"], "--lesson 99: no such lesson (bundled: 1 (sm-bringup), 2 (routing-engines), "
                                        "3 (credit-loop), 4 (ecmp-vs-spray), 5 (roce-incast), 6 (ib-vs-roce-latency), 7 (partitions), 8 (torus-deadlock), "
                                        "9 (roce-done-right), 10 (pfc-deadlock), 11 (rails-and-allreduce), "
                                        "12 (failed-spine); "
                                        "or give a lesson file)"),
    (["{f}", "--lesson", "1", "-o", "x.mp4"], "--lesson 1: a lesson records its own fabric; give no FILE ({f})"),
    (["--sweep", "-o", "x.mp4"], "record: give a design FILE with --sweep or --workload W (or --lesson N)"),
    (["missing.json", "--sweep", "-o", "x.mp4"], "missing.json: no such file"),
    (["{f}", "--sweep", "-o", "nodir/x.mp4"], "-o nodir/x.mp4: no folder nodir"),
    (["{f}", "--sweep", "-o", "x.mp4", "--fps", "ten"], "argument --fps: invalid int value: 'ten'"),
    (["{f}", "--sweep", "-o", "x.gif", "--width", "1920"],
     "a GIF of 400 frames of 1920 x 1920 needs ~1,406 MB held in memory (at most 400 MB): lower --width, --fps "
     "or --duration, or record an .mp4"),
    (["{f}", "--sweep", "-o", "x.gif", "--fps", "120", "--duration", "600", "--width", "200"],
     "a GIF of 72,000 frames of 200 x 200 needs ~2,747 MB held in memory (at most 400 MB): lower --width, --fps "
     "or --duration, or record an .mp4"),
])
def test_bad_arguments_exit_2_with_one_line(args, msg, tiny, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    f = tiny.name
    rc = main(["record", *(a.format(f=f) for a in args)])
    out, err = capsys.readouterr()
    assert (rc, out, err) == (2, "", f"fabricviz: error: {msg.format(f=f)}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.json"]


def test_default_gifs_are_within_the_memory_cap():
    from fabricviz.anim.recording import DEFAULT_FPS, DEFAULT_WIDTH, MAX_GIF_BYTES, check_options
    check_options("x.gif", DEFAULT_FPS[".gif"], DEFAULT_WIDTH[".gif"], None)          # 20 fps, 960 px, 20 s
    assert 400 * 960 * 960 <= MAX_GIF_BYTES < 400 * 1920 * 1000


@pytest.mark.parametrize("code,why", [(1, "exit 1"), (-11, "killed by signal 11")])
def test_a_child_that_crashes_exits_2_with_one_line(code, why, tiny, tmp_path, monkeypatch, capsys):
    """A traceback (exit 1) or a signal in the painting process: one line, status 2."""
    from fabricviz.commands import record as record_cmd
    monkeypatch.setattr(record_cmd.subprocess, "run", lambda cmd, **k: subprocess.CompletedProcess(cmd, code))
    assert main(["record", str(tiny), "--sweep", "-o", str(tmp_path / "x.mp4")]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"fabricviz: error: record: the painting process failed ({why}); x.mp4 was not "
                              "written\n")


@pytest.mark.parametrize("name", ["x.mp4", "x.gif"])
def test_an_unwritable_video_is_one_error_line_and_no_partial(name, tiny, tmp_path, qapp):
    """ffmpeg fails at the first frame (not at open), a GIF at close: either is a one-line
    FabricError naming the file, and nothing is left behind."""
    from fabricviz.loaders import load_any
    from fabricviz.model import FabricError
    from fabricviz.ui.canvas.record import record as paint_and_encode
    (tmp_path / "afile").write_text("")
    out = tmp_path / "afile" / name
    with pytest.raises(FabricError) as e:
        paint_and_encode([sweep_clip(load_any(str(tiny)))], out, 5, 200, 0.4)
    why = str(e.value)[len(f"{out}: cannot write ("):-1]     # ffmpeg: at open or at the first frame
    assert str(e.value) == f"{out}: cannot write ({why})" and why in ("Not a directory", "[Errno 32] Broken pipe")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "tiny.json"]
