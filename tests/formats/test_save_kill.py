"""Saving survives SIGKILL: the target is always the old or the new whole design, and the
temp files a killed save leaves behind are removed by the next save of that file."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fabricviz.build import k_ary_fat_tree
from fabricviz.formats import atomic
from fabricviz.formats.native import dumps, save_fabric, save_text_atomic
from fabricviz.loaders import load_any
from fabricviz.model import FabricError

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
    for i in range(14):
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


def test_next_save_removes_stale_temp_files_of_dead_saves_only(tmp_path):
    target = tmp_path / "d.json"
    save_fabric(k_ary_fat_tree(4), target)
    dead = tmp_path / f".d.json.{_dead_pid()}.abcd1234.tmp"
    legacy = tmp_path / ".d.json.k2j4_x9q.tmp"            # an older version's temp name (no pid)
    live = tmp_path / f".d.json.{os.getppid()}.zzzz0000.tmp"   # a running process's save
    other = tmp_path / ".e.json.12.abcd1234.tmp"           # another file's temp
    for p in (dead, legacy, live, other):
        p.write_text("partial")
    assert sorted(atomic.stale_temp_files(target)) == sorted([dead, legacy])
    save_fabric(k_ary_fat_tree(4), target)
    assert sorted(os.listdir(tmp_path)) == sorted(["d.json", live.name, other.name])


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


def test_permission_error_is_one_line_and_leaves_nothing(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root may write anywhere")
    folder = tmp_path / "ro"
    folder.mkdir()
    save_fabric(k_ary_fat_tree(4), folder / "d.json")
    folder.chmod(0o500)
    try:
        with pytest.raises(FabricError, match=r"d\.json: cannot save: Permission denied$"):
            save_fabric(k_ary_fat_tree(6), folder / "d.json")
    finally:
        folder.chmod(0o700)
    assert os.listdir(folder) == ["d.json"]


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
    stale = tmp_path / f".parts.json.{_dead_pid()}.q1w2e3r4.tmp"
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
