"""The package ships its assets: a built wheel, installed alone, finds catalog and lessons.

The assets live in the top-level ``assets/`` folder and are mapped to the package
``fabricviz.assets`` by pyproject.toml. Two installs must work: the editable one
(make / CI) and a normal wheel. The wheel test builds from a copy of the sources
(an in-tree build would leave build/ and *.egg-info in the checkout), installs it
into a fresh venv whose only other entry is this venv's site-packages (for the
heavy dependencies; its .pth files, hence the editable fabricviz, are not
processed there) and runs the CLI from outside the repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ASSETS = REPO / "assets"
ASSET_SUFFIXES = {".json", ".svg", ".png", ".md"}


def _asset_files(root: Path) -> set[str]:
    """Relative paths of the data files under ``root`` (what package-data must ship)."""
    return {p.relative_to(root).as_posix() for p in root.rglob("*")
            if p.is_file() and p.suffix in ASSET_SUFFIXES}


def _clean_env(home: Path) -> dict[str, str]:
    """An environment that sees neither the checkout nor the developer's parts file."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "FABRICVIZ_PARTS", "VIRTUAL_ENV"}}
    env["HOME"] = str(home)
    return env


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 120) -> str:
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(cmd)} -> {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.stdout


def _expected_lesson_lines() -> list[tuple[str, str, str, int]]:
    """(number, name, title, steps) of every bundled lesson, read from assets/lessons."""
    out = []
    for p in sorted((ASSETS / "lessons").glob("*.json"), key=lambda p: int(p.name.split("-", 1)[0])):
        doc = json.loads(p.read_text(encoding="utf-8"))
        out.append((p.name.split("-", 1)[0], doc["name"], doc["title"], len(doc["steps"])))
    return out


def test_package_list_covers_every_package():
    """pyproject lists packages by hand (to map fabricviz.assets); none may be forgotten."""
    from setuptools import find_packages

    listed = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    found = find_packages(str(REPO), include=["fabricviz", "fabricviz.*"])
    assert sorted(listed) == sorted([*found, "fabricviz.assets"])


def test_assets_only_at_top_level():
    """A stale fabricviz/assets folder would shadow the mapped package (as a namespace package)."""
    assert not (REPO / "fabricviz" / "assets").exists()
    assert {"catalog", "demo", "guide", "icons", "lessons"} <= {p.name for p in ASSETS.iterdir() if p.is_dir()}


def test_editable_install_finds_top_level_assets(tmp_path):
    """From outside the checkout, the editable install maps fabricviz.assets to ./assets."""
    code = "from fabricviz.resources import asset_path; print(asset_path())"
    out = _run([sys.executable, "-c", code], tmp_path, _clean_env(tmp_path))
    assert Path(out.strip()).resolve() == ASSETS.resolve()


@pytest.mark.slow
def test_wheel_installs_and_finds_assets(tmp_path):
    pip = [sys.executable, "-m", "pip"]
    if subprocess.run([*pip, "--version"], capture_output=True).returncode != 0:
        pytest.skip("pip is not available in this interpreter")
    env = _clean_env(tmp_path)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("fabricviz", "assets"):
        shutil.copytree(REPO / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    wheels = tmp_path / "wheels"
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(wheels), str(src)],
         tmp_path, env, timeout=180)
    (wheel,) = wheels.glob("fabricviz-*.whl")

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, env)
    py = venv / "bin" / "python"
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     tmp_path, env).strip())
    deps = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (site / "zz-fabricviz-deps.pth").write_text("".join(f"{d}\n" for d in deps))
    _run([*pip, "--python", str(py), "install", "--no-deps", "--no-index", "-q", str(wheel)], tmp_path, env)

    # the fresh venv sees the wheel's fabricviz, not the checkout's
    where = _run([str(py), "-c", "import fabricviz, fabricviz.assets as a; print(fabricviz.__file__); "
                  "print(a.__file__)"], tmp_path, env).split()
    assert all(Path(w).is_relative_to(site) for w in where), where
    assert _asset_files(site / "fabricviz" / "assets") == _asset_files(ASSETS)

    # Help ▸ User Guide shows the guide shipped in the wheel, every page of it (not "ships with the checkout")
    guide = _run([str(py), "-c", "from PySide6 import QtWidgets; app = QtWidgets.QApplication([]); "
                  "from fabricviz.ui.dialogs.guide import GuideWindow; g = GuideWindow(); "
                  "print(g.root); print(g.page_list.count()); print(g.browser.toPlainText().splitlines()[0])"],
                 tmp_path, {**env, "QT_QPA_PLATFORM": "offscreen"}).splitlines()
    assert Path(guide[0]).is_relative_to(site) and guide[1:] == [str(len(list((ASSETS / "guide").glob("*.md")))),
                                                                 "First steps"], guide

    cli = str(venv / "bin" / "fabricviz")
    listing = _run([cli, "demo", "--list"], tmp_path, env).splitlines()
    expected = _expected_lesson_lines()
    assert len(listing) == len(expected) == 12
    for line, (num, name, title, steps) in zip(listing, expected, strict=True):
        assert line.split()[:2] == [num, name] and line.endswith(f"{title} ({steps} steps)"), line

    # the catalog loads: a generated fabric takes its switches from the bundled parts,
    # and the bill of materials prices them exactly as the editable install does
    out = _run([cli, "generate", "fat-tree", "--levels", "2", "--radix", "8", "--hosts", "16",
                "--switch", "QM9700", "-o", "ft.json"], tmp_path, env)
    assert out.strip() == "ft.json: fat-tree-2l-r8-16h: 16 servers, 16 GPUs, 16 NICs, 8 switches, 32 cables"
    bom = _run([cli, "bom", "ft.json", "--csv", "wheel.csv"], tmp_path, env)
    _run([sys.executable, "-m", "fabricviz", "bom", "ft.json", "--csv", "editable.csv"], tmp_path, env)
    assert (tmp_path / "wheel.csv").read_text() == (tmp_path / "editable.csv").read_text()
    switches = json.loads((ASSETS / "catalog" / "switches.json").read_text())["parts"]
    qm9700 = next(p for p in switches if p["id"] == "QM9700")
    price = qm9700["price_usd"]
    rows = [" ".join(line.split()) for line in bom.splitlines() if line.split()[:2] == ["switch", "QM9700"]]
    assert len(rows) == 1 and f" 8 ${price:,} ${8 * price:,} " in rows[0], bom
