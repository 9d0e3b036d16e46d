"""Saving survives SIGKILL: the target is always the old or the new whole design, and the
temp files a killed save leaves behind are removed by the next save of that file."""

from __future__ import annotations

import hashlib
import os
import queue
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fabricviz.formats.native import dumps, save_fabric, save_text_atomic
from fabricviz.generate import k_ary_fat_tree
from fabricviz.loaders import load_any
from fabricviz.model import FabricError, atomic

ROOT = Path(__file__).resolve().parents[2]

#: The child: two k=16 fat trees (3,392 devices, 729 kB each), saved in turn for ever
#: (argv[2]: "save_fabric" for the whole save, "write" for the atomic write alone).
CHILD = """
import sys
from fabricviz.formats.native import dumps, save_fabric, save_text_atomic
sys.path.insert(0, {tests!r})
from formats.test_save_kill import designs
a, b = designs()
text_a, text_b = dumps(a), dumps(b)
print("ready", flush=True)
while sys.argv[2] == "save_fabric":             # the whole save: serialise, then write
    save_fabric(b, sys.argv[1])
    save_fabric(a, sys.argv[1])
while True:                                     # the write alone, so most kills land in it
    save_text_atomic(text_b, sys.argv[1])
    save_text_atomic(text_a, sys.argv[1])
"""


def designs():
    """Design A (a k=16 fat tree) and B (the same with leaf names and positions changed)."""
    a = k_ary_fat_tree(16)
    b = a.copy()
    b.name = "k16-edited"
    for d in b.device_ids("ib_switch")[:40].tolist():
        b.rename(d, b.name_of(d) + "-x")
    ids = b.device_ids()
    b.set_positions(ids, b.devices_t.x[ids] + 7.5, b.devices_t.y[ids])
    return a, b


def _temps(folder: Path, name: str) -> list[str]:
    return sorted(p for p in os.listdir(folder) if p.startswith(f".{name}.") and p.endswith(".tmp"))


@pytest.mark.slow
def test_sigkill_during_save_leaves_old_or_new_file_whole(tmp_path):
    a, b = designs()
    text_a, text_b = dumps(a).encode(), dumps(b).encode()
    assert text_a != text_b and len(text_a) > 700_000
    target = tmp_path / "k16.json"
    save_fabric(a, target)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    rng = random.Random(1107)
    seen = {"a": 0, "b": 0}
    temps_left = 0
    for i in range(8):                  # 4 kills in each mode, at seeded random moments
        mode = "save_fabric" if i % 2 else "write"
        child = subprocess.Popen([sys.executable, "-c", CHILD.format(tests=str(ROOT / "tests")), str(target), mode],
                                 env=env, stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout.readline() == "ready\n"
            time.sleep(rng.uniform(0.0, 0.25))
            child.send_signal(signal.SIGKILL)
        finally:
            child.wait(30)
            child.stdout.close()
        assert child.returncode == -signal.SIGKILL
        data = target.read_bytes()
        assert data in (text_a, text_b)
        seen["a" if data == text_a else "b"] += 1
        temps_left += len(_temps(tmp_path, target.name))
    # whole and loadable: both versions the kills left behind
    for which, fabric in (("a", a), ("b", b)):
        if seen[which]:
            save_text_atomic((text_a if which == "a" else text_b).decode(), tmp_path / f"{which}.json")
            assert load_any(tmp_path / f"{which}.json").signature() == fabric.signature()
    assert load_any(target).signature() in (a.signature(), b.signature())
    print(f"kills: target was A {seen['a']}x, B {seen['b']}x; temp files left by kills: {temps_left}")
    save_fabric(b, target)
    assert target.read_bytes() == text_b
    assert _temps(tmp_path, target.name) == []
    assert sorted(os.listdir(tmp_path)) == sorted({"k16.json"} | {f"{w}.json" for w in seen if seen[w]})


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _aged(p: Path, seconds: float) -> Path:
    t = time.time() - seconds
    os.utime(p, (t, t))
    return p


def test_next_save_removes_stale_temp_files_of_dead_saves_only(tmp_path):
    target = tmp_path / "d.json"
    save_fabric(k_ary_fat_tree(4), target)
    host = atomic.host_name()
    dead = tmp_path / f".d.json.{_dead_pid()}.{host}.abcd1234.tmp"
    live = tmp_path / f".d.json.{os.getppid()}.{host}.zzzz0000.tmp"     # a running process's save here
    not_a_pid = tmp_path / f".d.json.9999999999.{host}.abcd1234.tmp"     # above any pid: no such process
    other = tmp_path / ".e.json.12.abcd1234.tmp"                         # another file's temp
    huge = tmp_path / ".d.json.99999999999999999999.abcdefgh.tmp"       # not our shape: left alone
    # another host's (its process cannot be seen from here), and names that do not say whose:
    # removed only once untouched for an hour
    names = {"other_host": f".d.json.{os.getppid()}.elsewhere.abcd1234.tmp",
             "legacy": ".d.json.k2j4_x9q.tmp", "pid_only": f".d.json.{_dead_pid()}.abcd1234.tmp"}
    fresh = {k: tmp_path / v for k, v in names.items()}
    old = {k: tmp_path / v.replace(".tmp", "old.tmp") for k, v in names.items()}
    for p in (dead, live, not_a_pid, other, huge, *fresh.values(), *old.values()):
        p.write_text("partial")
    for p in old.values():
        _aged(p, atomic.STALE_AFTER_S + 60)
    # age never makes this host's live save stale: as old as the parent's temp can be (written
    # just after it started, maybe hours ago), older than STALE_AFTER_S when the parent is
    began = atomic.started_at(os.getppid())
    _aged(live, 10 * atomic.STALE_AFTER_S if began is None else time.time() - began - 1)
    assert sorted(atomic.stale_temp_files(target)) == sorted([dead, not_a_pid, *old.values()])
    save_fabric(k_ary_fat_tree(4), target)
    assert sorted(os.listdir(tmp_path)) == sorted(["d.json", live.name, other.name, huge.name,
                                                   *(p.name for p in fresh.values())])


def test_a_temp_name_with_a_huge_pid_never_breaks_a_save(tmp_path, capsys):
    target = tmp_path / "small.json"
    save_fabric(k_ary_fat_tree(4), target)
    for pid in ("99999999999999999999", str(2 ** 63), str(2 ** 31)):
        for name in (f".small.json.{pid}.abcdefgh.tmp", f".small.json.{pid}.{atomic.host_name()}.abcdefgh.tmp"):
            (tmp_path / name).write_text("x")
    save_fabric(k_ary_fat_tree(6), target)                 # was: OverflowError from os.kill
    assert load_any(target).counts() == k_ary_fat_tree(6).counts()
    from fabricviz import cli
    assert cli.main(["info", str(target)]) == 0
    assert atomic.remove_stale_in(tmp_path) >= 0
    assert atomic.process_alive(2 ** 70, atomic.host_name()) is False
    assert atomic.process_alive(99999999999999999999, socket.gethostname()) is False


def test_liveness_needs_this_host_this_boot_the_pid_and_its_start_time():
    me, host, boot = os.getpid(), socket.gethostname(), atomic.boot_id()
    started = atomic.start_time(me)
    assert atomic.process_alive(me, host, boot, started) is True
    assert atomic.process_alive(me, atomic.host_name(), boot, started) is True       # the tag too
    assert atomic.process_alive(me, "elsewhere", boot, started) is False            # another host's
    assert atomic.process_alive(_dead_pid(), host) is False
    assert atomic.process_alive(True, host) is False and atomic.process_alive(0, host) is False
    if boot is None or started is None:
        pytest.skip("no /proc here: boot id and start times are not compared")
    assert atomic.process_alive(me, host, "another-boot", started) is False         # before a reboot
    assert atomic.process_alive(me, host, boot, started + 1) is False               # the pid was reused
    assert atomic.process_alive(os.getppid(), host, boot, atomic.start_time(os.getppid())) is True


def test_a_temp_older_than_the_live_process_now_holding_its_pid_is_stale(tmp_path):
    """pid reuse (normal after a reboot): the pid runs, but its process started after the temp
    file was written, so another process with that pid left it."""
    parent, host = os.getppid(), atomic.host_name()
    began = atomic.started_at(parent)
    if began is None:
        pytest.skip("no /proc here: start times are not known")
    assert abs(atomic.started_at(os.getpid()) - time.time()) < 24 * 3600     # seconds since the epoch
    target = tmp_path / "d.json"
    reused = tmp_path / f".d.json.{parent}.{host}.abcd1234.tmp"
    live = tmp_path / f".d.json.{parent}.{host}.zzzz0000.tmp"
    for p in (reused, live):
        p.write_text("partial")
    os.utime(reused, (began - 3600, began - 3600))            # before the parent started
    os.utime(live, (began + 1, began + 1))                    # the parent's own
    assert atomic.process_alive(parent, host) is True
    assert atomic.stale_temp_files(target) == [reused]
    save_fabric(k_ary_fat_tree(4), target)
    assert sorted(os.listdir(tmp_path)) == sorted(["d.json", live.name])


def test_a_temp_named_with_another_start_time_than_its_pids_process_is_stale_whatever_the_clocks(tmp_path):
    """New temp names carry the writer's start time: pid reuse is found without comparing a file
    time (an NFS server's clock) with a process start (this host's clock)."""
    parent, host = os.getppid(), atomic.host_name()
    began = atomic.start_time(parent)
    if began is None:
        pytest.skip("no /proc here: start times are not known")
    target = tmp_path / "d.json"
    reused = tmp_path / f".d.json.{parent}-{began + 1}.{host}.abcd1234.tmp"     # fresh, yet not its save
    live = tmp_path / f".d.json.{parent}-{began}.{host}.zzzz0000.tmp"
    for p in (reused, live):
        p.write_text("partial")
    _aged(live, time.time() - atomic.started_at(parent) + 3600)     # "older" than the parent: a clock off
    assert atomic.stale_temp_files(target) == [reused]
    save_fabric(k_ary_fat_tree(4), target)
    assert sorted(os.listdir(tmp_path)) == sorted(["d.json", live.name])


def test_a_zombie_is_not_a_running_process(tmp_path):
    if not hasattr(os, "waitid") or atomic.start_time(os.getpid()) is None:
        pytest.skip("no waitid or /proc here")
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)      # exited, not reaped: a zombie
        with open(f"/proc/{child.pid}/stat", encoding="ascii") as fh:
            assert fh.read().rsplit(")", 1)[1].split()[0] == "Z"
        os.kill(child.pid, 0)                                        # it still answers kill(0)
        host, started = socket.gethostname(), atomic.start_time(child.pid)
        assert started is not None
        assert atomic.process_alive(child.pid, host) is False
        assert atomic.process_alive(child.pid, host, atomic.boot_id(), started) is False
        temp = tmp_path / f".d.json.{child.pid}.{atomic.host_name()}.abcd1234.tmp"
        temp.write_text("partial")
        assert atomic.stale_temp_files(tmp_path / "d.json") == [temp]
    finally:
        child.wait()


def test_hosts_that_share_a_short_name_get_different_tags():
    def tag(host):
        return host.split(".")[0] + "-" + hashlib.sha256(host.encode()).hexdigest()[:8]
    assert atomic.host_tag("login01.clusterA") == tag("login01.clusterA")
    assert atomic.host_tag("10.0.0.5") == tag("10.0.0.5") and atomic.host_tag("10.0.0.6") == tag("10.0.0.6")
    assert atomic.host_tag("node_1") == "node-1-" + hashlib.sha256(b"node_1").hexdigest()[:8]
    for a, b in (("10.0.0.5", "10.0.0.6"), ("login01.clusterA", "login01.clusterB"), ("node_1", "node-1"),
                 ("n\u00f6de", "n\u00e9de")):
        assert atomic.host_tag(a) != atomic.host_tag(b), (a, b)
    assert atomic.host_name() == atomic.host_tag(socket.gethostname())
    for host in ("x" * 300, "", "...", "login01.clusterA"):
        t = atomic.host_tag(host)
        m = atomic._temp_re("d.json").fullmatch(f".d.json.12-345.{t}.abcd1234.tmp")
        assert m is not None and m.group("host") == t and m.group("pid") == "12" and m.group("started") == "345"


def test_another_hosts_temp_with_the_same_short_name_is_not_judged_by_a_pid_here(tmp_path, monkeypatch):
    """An NFS home: host B's save is not removed by host A because B's pid is not running on A."""
    here = socket.gethostname()
    short = here.split(".")[0]
    there = next(h for h in (f"{short}.clusterB", f"{short}.clusterC") if h != here)
    monkeypatch.setattr(atomic.socket, "gethostname", lambda: there)
    theirs_tag = atomic.host_name()                                  # what host B's save names its temp
    monkeypatch.undo()
    assert theirs_tag != atomic.host_name() and not atomic.same_host(theirs_tag)
    target = tmp_path / "d.json"
    theirs = tmp_path / f".d.json.{_dead_pid()}.{theirs_tag}.abcd1234.tmp"   # no such pid here
    theirs.write_text("partial")
    assert atomic.stale_temp_files(target) == []
    save_fabric(k_ary_fat_tree(4), target)
    assert sorted(os.listdir(tmp_path)) == sorted(["d.json", theirs.name])


def test_a_thread_never_removes_the_temp_file_another_thread_just_created(tmp_path, monkeypatch):
    """mkstemp and registering the temp file happen under the lock that listing for stale ones takes
    (the named temp file, as where there are no anonymous files: NFS)."""
    monkeypatch.setattr(atomic, "_anonymous", lambda folder: None)
    target = tmp_path / "d.json"
    save_fabric(k_ary_fat_tree(4), target)
    real_mkstemp = atomic.tempfile.mkstemp
    removed, others = [], []

    def mkstemp(*a, **k):
        made = real_mkstemp(*a, **k)
        other = threading.Thread(target=lambda: removed.append(atomic.remove_stale(target)))
        others.append(other)
        other.start()
        other.join(0.5)        # before the fix it ran to the end here and removed the new temp file
        return made
    monkeypatch.setattr(atomic.tempfile, "mkstemp", mkstemp)
    save_fabric(k_ary_fat_tree(6), target)
    monkeypatch.undo()
    others[0].join(30)
    assert removed == [0]
    assert load_any(target).counts() == k_ary_fat_tree(6).counts() and os.listdir(tmp_path) == ["d.json"]


def test_the_group_of_an_existing_file_is_kept(tmp_path, monkeypatch):
    target = tmp_path / "d.json"
    save_fabric(k_ary_fat_tree(4), target)
    gid = 4242 if os.geteuid() == 0 else os.stat(target).st_gid
    os.chown(target, -1, gid)
    calls = []
    real = os.fchown
    monkeypatch.setattr(atomic.os, "fchown", lambda fd, uid, g: (calls.append((uid, g)), real(fd, uid, g)))
    save_fabric(k_ary_fat_tree(6), target)
    assert calls == [(-1, gid)] and os.stat(target).st_gid == gid
    monkeypatch.setattr(atomic.os, "fchown", lambda *a: (_ for _ in ()).throw(PermissionError(1, "no")))
    save_fabric(k_ary_fat_tree(4), target)                # not a member of the group: saved anyway
    assert load_any(target).counts() == k_ary_fat_tree(4).counts()


def test_exception_while_writing_leaves_no_temp_and_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "d.json"
    save_fabric(k_ary_fat_tree(4), target)
    before = target.read_bytes()

    def full(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(FabricError) as e:
        save_fabric(k_ary_fat_tree(6), target)
    assert str(e.value) == f"{target}: cannot save: No space left on device"
    monkeypatch.undo()

    class Interrupted(Exception):
        pass

    real_write = os.write

    def half(fd, data):             # the anonymous temp file is written with os.write
        real_write(fd, bytes(data[: len(data) // 2]))
        raise Interrupted("stop")
    monkeypatch.setattr(atomic.os, "write", half)
    with pytest.raises(Interrupted):                       # not ours to swallow, but cleaned up
        save_fabric(k_ary_fat_tree(6), target)
    monkeypatch.undo()
    assert target.read_bytes() == before and os.listdir(tmp_path) == ["d.json"]

    monkeypatch.setattr(atomic, "_anonymous", lambda folder: None)     # a named temp file (NFS)
    real_fdopen = os.fdopen

    def fdopen(fd, *a, **k):
        fh = real_fdopen(fd, *a, **k)

        class Breaks:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                fh.close()
                return False

            def write(self, data):
                fh.write(data[: len(data) // 2])
                raise Interrupted("stop")
        return Breaks()
    monkeypatch.setattr(atomic.os, "fdopen", fdopen)
    with pytest.raises(Interrupted):                       # not ours to swallow, but cleaned up
        save_fabric(k_ary_fat_tree(6), target)
    monkeypatch.undo()
    assert target.read_bytes() == before
    assert os.listdir(tmp_path) == ["d.json"]


def test_permission_error_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    save_fabric(k_ary_fat_tree(4), folder / "d.json")
    before = (folder / "d.json").read_bytes()

    def denied(*a, **k):       # what a read-only folder does (and runs as root too)
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(atomic, "_anonymous", lambda folder: None)    # O_TMPFILE denied: the named way
    monkeypatch.setattr(atomic.tempfile, "mkstemp", denied)
    with pytest.raises(FabricError) as e:
        save_fabric(k_ary_fat_tree(6), folder / "d.json")
    assert str(e.value) == f"{folder / 'd.json'}: cannot save: Permission denied"
    assert os.listdir(folder) == ["d.json"] and (folder / "d.json").read_bytes() == before


def test_non_finite_position_or_length_is_refused_naming_the_element(tmp_path):
    f = k_ary_fat_tree(4)
    target = tmp_path / "d.json"
    d = f.find("leaf01") if f.find("leaf01") is not None else int(f.device_ids("ib_switch")[0])
    f.devices_t.x[d] = float("inf")
    with pytest.raises(FabricError) as e:
        save_fabric(f, target)
    assert str(e.value) == f"{target}: cannot save: {f.name_of(d)}: x is inf (positions must be finite numbers)"
    f.devices_t.x[d] = 0.0
    c = int(f.cable_ids()[0])
    f.cables_t.length[c] = float("nan")
    with pytest.raises(FabricError, match=r"cannot save: cable .* length_m is nan"):
        save_fabric(f, target)
    assert os.listdir(tmp_path) == []


def test_symlinked_target_is_written_through(tmp_path):
    real = tmp_path / "real.json"
    save_fabric(k_ary_fat_tree(4), real)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    save_fabric(k_ary_fat_tree(6), link)
    assert link.is_symlink() and load_any(real).counts() == k_ary_fat_tree(6).counts()


def test_permission_error_at_rename_leaves_old_file_and_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "d.json"
    save_fabric(k_ary_fat_tree(4), target)
    before = target.read_bytes()

    def denied(src, dst):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(atomic.os, "replace", denied)
    with pytest.raises(FabricError) as e:
        save_fabric(k_ary_fat_tree(6), target)
    assert str(e.value) == f"{target}: cannot save: Permission denied"
    assert target.read_bytes() == before and os.listdir(tmp_path) == ["d.json"]


def test_text_that_is_not_utf8_is_refused_before_anything_is_written(tmp_path):
    f = k_ary_fat_tree(4)
    f.name = "bad\udc80name"                              # a lone surrogate (from a mangled file name)
    with pytest.raises(FabricError) as e:
        save_fabric(f, tmp_path / "d.json")
    assert str(e.value) == f"{tmp_path / 'd.json'}: cannot save: character '\\udc80' cannot be written as UTF-8"
    assert os.listdir(tmp_path) == []


def test_the_parts_catalog_uses_the_same_writer(tmp_path, monkeypatch):
    from fabricviz.model.catalog import Catalog, CatalogError
    cat = Catalog.default()
    parts = [p for p in cat if p.kind == "ib_switch"][:2]
    path = tmp_path / "parts.json"
    stale = tmp_path / f".parts.json.{_dead_pid()}.{atomic.host_name()}.q1w2e3r4.tmp"
    stale.write_text("{", encoding="utf-8")
    Catalog.save_user_parts(path, parts)
    assert os.listdir(tmp_path) == ["parts.json"]
    before = path.read_bytes()

    def full(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(atomic.os, "replace", full)
    with pytest.raises(CatalogError) as e:
        Catalog.save_user_parts(path, parts[:1])
    assert str(e.value) == f"{path}: cannot save: No space left on device"
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["parts.json"]


#: The child for a kill at a known point: its save stops in fsync (the temp file written and
#: flushed, not yet renamed) and says so. argv[3] "named": as where there are no anonymous files.
PAUSED_CHILD = """
import os, sys, time
from fabricviz.model import atomic
from fabricviz.formats.native import save_text_atomic

def paused(fd):
    print("in fsync", flush=True)
    time.sleep(3600)
atomic.os.fsync = paused
if sys.argv[3] == "named":
    atomic._anonymous = lambda folder: None
save_text_atomic(sys.argv[2], sys.argv[1])
"""


def _line(child: subprocess.Popen, seconds: float = 60.0) -> str:
    """The child's next output line, or "" if none comes within ``seconds`` (it is then killed)."""
    got: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: got.put(child.stdout.readline()), daemon=True).start()
    try:
        return got.get(timeout=seconds)
    except queue.Empty:
        child.kill()
        return ""


def _killed_in_fsync(target: Path, text: str, mode: str) -> int | None:
    """Run PAUSED_CHILD on ``target`` and SIGKILL it in fsync; its start time (None: unknown)."""
    child = subprocess.Popen([sys.executable, "-c", PAUSED_CHILD, str(target), text, mode],
                             env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        line = _line(child)
        started = atomic.start_time(child.pid)
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(30)
        err = child.stderr.read()
        child.stdout.close()
        child.stderr.close()
    assert line == "in fsync\n", err
    assert child.returncode == -signal.SIGKILL
    return child.pid if started is None else f"{child.pid}-{started}"     # its pid and start time


def test_sigkill_mid_write_leaves_the_old_file_and_no_temp_file(tmp_path):
    """The data is written into an anonymous file (O_TMPFILE), named only once whole and synced:
    a save killed while writing leaves nothing to clean up (issue 28: a full-size .tmp)."""
    if not atomic._anonymous_supported(tmp_path):
        pytest.skip("no O_TMPFILE on this file system: see the named-temp test below")
    target = tmp_path / "k.json"
    save_fabric(k_ary_fat_tree(4), target)
    old = target.read_bytes()
    new = dumps(k_ary_fat_tree(6))
    _killed_in_fsync(target, new, "anonymous")
    assert os.listdir(tmp_path) == ["k.json"] and target.read_bytes() == old
    save_fabric(k_ary_fat_tree(8), target)
    assert os.listdir(tmp_path) == ["k.json"]
    assert load_any(target).counts() == k_ary_fat_tree(8).counts()


def test_sigkill_at_a_known_point_mid_write_leaves_the_old_file_and_the_next_save_cleans_up(tmp_path):
    """Where there are no anonymous files (NFS): the named temp file of the killed writer stays,
    and the next save removes it (its pid names a dead process)."""
    target = tmp_path / "k.json"
    save_fabric(k_ary_fat_tree(4), target)
    old = target.read_bytes()
    new = dumps(k_ary_fat_tree(6))
    writer = _killed_in_fsync(target, new, "named")
    (temp,) = _temps(tmp_path, target.name)
    assert re.fullmatch(rf"\.k\.json\.{writer}\.{re.escape(atomic.host_name())}\.[a-z0-9_]{{8}}\.tmp", temp)
    assert (tmp_path / temp).read_text(encoding="utf-8") == new      # written whole, never renamed
    assert target.read_bytes() == old                                  # the old whole file
    assert load_any(target).counts() == k_ary_fat_tree(4).counts()
    save_fabric(k_ary_fat_tree(8), target)                             # the next save removes it
    assert os.listdir(tmp_path) == ["k.json"]
    assert load_any(target).counts() == k_ary_fat_tree(8).counts()


def test_flow_csvs_are_written_atomically(tmp_path, monkeypatch):
    import numpy as np

    from fabricviz.sim.flows_csv import load_flows, save_flow_results, save_flows
    from fabricviz.sim.workloads import Flows
    f = k_ary_fat_tree(4)
    gpus = f.device_ids("gpu")
    flows = Flows(gpus[:2], gpus[2:4], bytes=np.array([1e6, np.inf]), rate_gbps=np.array([np.inf, 5.0]),
                  start_s=np.array([0.0, 1e-6]), step=np.array([-1, 0]))
    path = tmp_path / "f.csv"
    save_flows(f, flows, path)
    before = path.read_bytes()
    assert before.startswith(b"src,dst,bytes,rate_gbps,start_us,step\r\n")    # as csv writes it
    assert load_flows(f, path).src.tolist() == gpus[:2].tolist()

    def full(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(atomic.os, "replace", full)
    for save in (lambda: save_flows(f, flows, path),
                 lambda: save_flow_results(f, flows, np.ones(2), np.ones(2), path)):
        with pytest.raises(FabricError) as e:
            save()
        assert str(e.value) == f"{path}: cannot save: No space left on device"
        assert path.read_bytes() == before and os.listdir(tmp_path) == ["f.csv"]
