"""The Subnet Manager dock starts a sweep at a speed that plays it whole in about a minute, and
says how long the rest takes (issue 29: a 1,024-host tree's 3,754 steps took ~20 minutes at 1×)."""

from __future__ import annotations

import pytest

from fabricviz.generate.fattree import fat_tree
from fabricviz.loaders import save_as
from fabricviz.ui.docks import sweep_playback
from fabricviz.ui.main_window import DEMO_FABRIC

pytestmark = pytest.mark.gui
WAIT = 60_000


def test_default_speed_plays_a_sweep_in_about_a_minute():
    assert [sweep_playback.default_speed(n) for n in (83, 225, 226, 568, 3754, 20_000, 200_000)] == \
        [1.0, 1.0, 2.0, 5.0, 25.0, 100.0, 1000.0]
    assert sweep_playback.time_left_text(3753 / 3) == "20:51 left"
    assert sweep_playback.time_left_text(37.8) == "0:38 left"


def test_a_big_sweep_opens_fast_with_the_time_left_and_keeps_the_users_speed(make_window, qtbot, tmp_path):
    path = tmp_path / "ft3-r8.json"
    save_as(fat_tree(levels=3, radix=8), path, "native")
    w = make_window(str(path))
    d = w.sweep_dock
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        w.findChild(type(w.acts["fit"]), "action_sweep").trigger()
    assert len(d.timeline) == 568 and d.index == 0
    assert d.player.speed == 5.0 and d.player.speed_box.currentText() == "5×"    # 1× was 3 min 9 s
    assert d.player.time_left.text() == "0:38 left"                             # 567 steps at 15 a second
    d.show_step(567 - 150)
    assert d.player.time_left.text() == "0:10 left"
    # the user picks 100× (a real pick, the combo's activated signal): a re-sweep keeps it
    d.player.speed_box.setCurrentIndex(sweep_playback.SPEEDS.index(100.0))
    d.player.speed_box.activated.emit(sweep_playback.SPEEDS.index(100.0))
    assert d.player.time_left.text() == "0:00 left"
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        d.recompute()
    assert d.player.speed == 100.0 and d.player.time_left.text() == "0:02 left"     # 567 / 300 s
    # another design: its sweep picks its own speed again (the demo's 83 steps: 1×)
    assert w.files.open_path(DEMO_FABRIC)
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        w.findChild(type(w.acts["fit"]), "action_sweep").trigger()
    assert len(d.timeline) == 83 and d.player.speed == 1.0 and d.player.time_left.text() == "0:27 left"
