"""The painting children of ``render``, ``record`` and ``demo --screenshot`` import the package
this process runs, whatever the current directory (issue 29, item 7).

Each test runs the real CLI as an installed console script would (``python -P -m fabricviz``:
no current directory on sys.path) from a folder holding a ``fabricviz/`` source tree whose
``__init__`` raises; a child started with plain ``python -m`` would import that tree and die.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fabricviz.commands.painting import child_command, child_env, package_root
from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree

ROOT = package_root()
POISON = "raise SystemExit('the fabricviz tree of the current directory was imported')\n"


@pytest.fixture
def clone(tmp_path):
    """A folder with a ``fabricviz/`` tree that must not be imported, and a small design in it."""
    (tmp_path / "fabricviz").mkdir()
    (tmp_path / "fabricviz" / "__init__.py").write_text(POISON)
    (tmp_path / "fabricviz" / "__main__.py").write_text(POISON)
    save_fabric(fat_tree(levels=2, radix=4, hosts=4, name="tiny"), tmp_path / "tiny.json")
    return tmp_path


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return subprocess.run([sys.executable, "-P", "-m", "fabricviz", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_child_command_has_no_current_directory_on_its_path():
    assert child_command("fabricviz.ui.canvas.export", ["a.json"]) == \
        [sys.executable, "-P", "-m", "fabricviz.ui.canvas.export", "a.json"]


def test_a_source_tree_this_process_runs_goes_first_on_the_childs_path(monkeypatch):
    monkeypatch.setattr("fabricviz.commands.painting._site_dirs", lambda: set())
    env = child_env({"PYTHONPATH": "/elsewhere"})
    assert env["PYTHONPATH"] == os.pathsep.join([str(ROOT), "/elsewhere"])
    monkeypatch.setattr("fabricviz.commands.painting._site_dirs", lambda: {ROOT})
    assert child_env({"PYTHONPATH": "/elsewhere"})["PYTHONPATH"] == "/elsewhere"     # installed: as it was
    assert "PYTHONPATH" not in child_env({})


def test_the_poisoned_tree_would_break_a_plain_python_m_child(clone):
    """The test's folder does what the issue says to a child started the old way."""
    r = subprocess.run([sys.executable, "-m", "fabricviz.ui.canvas.export", "tiny.json", "-o", "x.png"],
                       cwd=clone, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode != 0 and "the fabricviz tree of the current directory was imported" in r.stderr
    assert not (clone / "x.png").exists()


@pytest.mark.slow
def test_render_from_a_folder_with_a_fabricviz_tree_writes_the_picture(clone):
    r = cli("render", "tiny.json", "-o", "pic.png", "--width", "400", cwd=clone)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("wrote pic.png (") and r.stderr == ""
    assert (clone / "pic.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_record_from_a_folder_with_a_fabricviz_tree_writes_the_video(clone):
    r = cli("record", "tiny.json", "--sweep", "-o", "sweep.gif", "--fps", "4", "--width", "300",
            "--duration", "1", cwd=clone)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith("4 frames, 300 x 300")
    assert (clone / "sweep.gif").read_bytes()[:6] == b"GIF89a"


@pytest.mark.slow
def test_demo_screenshot_from_a_folder_with_a_fabricviz_tree_writes_the_picture(clone):
    r = cli("demo", "1", "--until", "1", "--screenshot", "step1.png", "--width", "400", cwd=clone)
    assert r.returncode == 0, r.stderr
    assert (clone / "step1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
