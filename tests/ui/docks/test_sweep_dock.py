"""The Subnet Manager dock on the demo fabric (16 nodes, 4 leaves, 4 spines).

What the user sees is read back from the dock's own widgets and overlay: the
narration text, the status line, the slider, and the overlay's per-port colour
and per-device discovered set. Expected sets come from the engine: the 64
ports the link manager activates, the 8 switches, and `fabricviz trace`
printing the node01 → node16 path on the same file.
"""

from __future__ import annotations

import re

import pytest
from PySide6 import QtCore

from fabricviz.cli import main as cli_main
from fabricviz.ib.sweep import heavy_sweep
from fabricviz.ui.docks import sweep as sweep_dock
from fabricviz.ui.docks import sweep_playback
from fabricviz.ui.main_window import DEMO_FABRIC

WAIT = 60_000                # a generous deadline: only a hang waits this long
LEFT = QtCore.Qt.MouseButton.LeftButton


@pytest.fixture
def dock(sweep_window):
    w, d = sweep_window
    assert d.objectName() == "sweep"
    assert [a.objectName() for a in w.findChildren(type(w.acts["fit"])) if a.objectName() == "action_sweep"] \
        == ["action_sweep"]
    return w, d


def engine_sweep(w):
    return heavy_sweep(w.editor.fabric, "minhop")


def test_step_through_to_subnet_up(dock, qtbot):
    w, d = dock
    ref = engine_sweep(w)
    subnet_ports = set(ref.events[-2].ports)                 # "64 ports set ACTIVE"
    switches = set(ref.routing.subnet.switches.tolist())
    assert len(subnet_ports) == 64 and len(switches) == 8
    assert len(d.timeline) == len(ref.events) == 67 + 16      # a PortInfo per switch port facing a CA
    assert d.index == 0 and d.overlay.port_colour(min(subnet_ports)) is None
    assert set(d.overlay.drawn["undiscovered"].tolist()) >= switches
    discovery_done = None
    for _ in range(len(d.timeline) - 1):
        qtbot.mouseClick(d.player.step_button, LEFT)
        if d.timeline.events[d.index].text == "HEAVY SWEEP COMPLETE":
            discovery_done = (set(d.overlay.drawn["discovered"].tolist()),
                              {p for p in subnet_ports if d.overlay.port_colour(p) == "INIT"})
    assert d.index == len(d.timeline) - 1 == d.player.slider.value()
    assert discovery_done == (switches | {int(w.editor.fabric.ports_t.device[p])
                                          for p in ref.routing.subnet.ca_ports.tolist()}, subnet_ports)
    text = d.narration_text()
    up = ref.events[-1].data
    assert text.rstrip().endswith(f"\u25b6 SUBNET UP after {up['smps']:,} SMPs and {up['t_us'] / 1000:.3f} ms")
    assert up["smps"] == 417 + 16
    assert "Discovery wave 2: 5 switches and 4 CAs found" in text
    assert "SUBNET UP" in d.status.text()
    assert {p for p in subnet_ports if d.overlay.port_colour(p) == "ACTIVE"} == subnet_ports
    assert set(d.overlay.drawn["ACTIVE"].tolist()) == subnet_ports
    assert not len(d.overlay.drawn["INIT"]) and not len(d.overlay.drawn["ARMED"])
    assert switches <= set(d.overlay.drawn["discovered"].tolist())
    assert not len(d.overlay.drawn["undiscovered"])
    active = d.overlay.items["ACTIVE"]
    assert active.scene() is w.scene and active.brush().color().name() == sweep_dock.STATE_COLORS["ACTIVE"]
    assert active.path().elementCount() > 0
    # LID labels on the NIC ports are the routing's LIDs
    r = d.timeline.sweep.routing
    for j, p in enumerate(r.subnet.ca_ports.tolist()):
        assert d.overlay.labels[p].text() == f"LID {int(r.lids.ca_lid[j])}"

    # scrub back to 0: nothing discovered, no port dots
    d.player.slider.setValue(0)
    assert d.index == 0
    assert not len(d.overlay.drawn["discovered"]) and not len(d.overlay.drawn["ACTIVE"])
    assert all(d.overlay.port_colour(p) is None for p in subnet_ports)
    assert "SUBNET UP" not in d.narration_text()


def test_step_phase_and_keys(dock, qtbot):
    w, d = dock
    starts = d.timeline.phase_starts()
    qtbot.mouseClick(d.player.phase_button, LEFT)
    assert d.index == starts[1] and d.timeline.events[d.index].phase == "discovery"
    d.player.slider.setFocus()
    qtbot.keyClick(d.player.slider, QtCore.Qt.Key.Key_Right, QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert d.index == starts[2] and d.timeline.events[d.index].phase == "pkeys"
    qtbot.keyClick(d.player.slider, QtCore.Qt.Key.Key_Right)
    assert d.index == starts[2] + 1 and d.timeline.events[d.index].kind == "pkey_enforce"   # PortInfo SMPs
    qtbot.keyClick(d.player.slider, QtCore.Qt.Key.Key_Right, QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert d.index == starts[3] and d.timeline.events[d.index].phase == "sm_lid"
    qtbot.keyClick(d.player.slider, QtCore.Qt.Key.Key_Right)
    assert d.index == starts[3] + 1
    qtbot.keyClick(d.player.slider, QtCore.Qt.Key.Key_Space)
    assert d.player.playing
    qtbot.keyClick(d.player.slider, QtCore.Qt.Key.Key_Space)
    assert not d.player.playing


def test_play_reaches_the_end(dock, qtbot):
    w, d = dock
    assert d.player.phase_pause.isChecked()                                 # the teaching default
    d.player.phase_pause.setChecked(False)
    d.player.speed_box.setCurrentIndex(len(sweep_playback.SPEEDS) - 1)          # 1000×
    assert d.player.speed == 1000.0
    qtbot.mouseClick(d.player.play_button, LEFT)
    assert d.player.playing and d.player.play_button.text() == "Pause"
    qtbot.waitUntil(lambda: d.index == len(d.timeline) - 1 and not d.player.playing, timeout=WAIT)
    assert "SUBNET UP" in d.narration_text()


def test_play_pauses_at_phase_end(dock, qtbot):
    w, d = dock
    d.player.speed_box.setCurrentIndex(len(sweep_playback.SPEEDS) - 1)
    d.player.phase_pause.setChecked(True)
    d.show_step(d.timeline.phase_starts()[1])
    qtbot.mouseClick(d.player.play_button, LEFT)
    qtbot.waitUntil(lambda: not d.player.playing, timeout=WAIT)
    assert d.timeline.events[d.index].text == "HEAVY SWEEP COMPLETE"     # last step of discovery


def test_trace_matches_cli(dock, qtbot, capsys):
    w, d = dock
    assert cli_main(["trace", str(DEMO_FABRIC), "node01", "node16"]) == 0
    cli_hops = re.findall(r"^\s+(\[\d+\] \S+ \[\d+\])$", capsys.readouterr().out, re.M)
    assert len(cli_hops) == 3
    d.src_edit.setText("node01")
    d.dst_edit.setText("node16")
    qtbot.mouseClick(d.trace_button, LEFT)
    assert [f"[{h.in_port}] {h.switch} [{h.out_port}]" for h in d.tools.trace_hops] == cli_hops
    text = d.narration_text()
    for line in cli_hops:
        assert line in text
    f = w.editor.fabric
    want = [f.port("node01/mlx5_0:1").cable.id]
    for line in cli_hops:
        _in, sw, out = re.match(r"\[(\d+)\] (\S+) \[(\d+)\]", line).groups()
        want.append(f.port(f"{sw}:{out}").cable.id)
    assert d.overlay.drawn["trace"].tolist() == want
    assert f.cable(want[-1]).port_b.device.name == "node16/mlx5_0" or \
        f.cable(want[-1]).port_a.device.name == "node16/mlx5_0"
    d.dst_edit.setText("nosuchnode")
    qtbot.mouseClick(d.trace_button, LEFT)
    assert d.status.text().startswith("trace: ") and "nosuchnode" in d.status.text()


def test_overlay_removed_on_close_and_replace(dock, qtbot):
    w, d = dock
    d.show_step(len(d.timeline) - 1)
    items = list(d.overlay.items.values())
    assert all(i.scene() is w.scene for i in items)
    d.close()
    assert all(i.scene() is None for i in items) and not d.overlay.active
    d.show()                                   # the frames are kept: no new sweep, same step
    qtbot.waitUntil(lambda: d.overlay.active, timeout=WAIT)
    assert d.index == len(d.timeline) - 1 and len(d.overlay.drawn["ACTIVE"]) == 64
    from fabricviz.generate import fat_tree
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        w.apply_generated(fat_tree(levels=2, radix=4, hosts=4))
    assert len(d.timeline) == 39 and d.index == 0
    assert sum(i.scene() is w.scene for i in w.scene.items() if i.data(2) == "sweep_overlay") == len(d.overlay.items)


def test_engine_switch_reruns(dock, qtbot):
    w, d = dock
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        d.engine_box.setCurrentText("ftree")
    assert d.timeline.sweep.routing.engine == "ftree"
    ev = [e for e in d.timeline.events if e.phase == "routing"][0]
    assert ev.data["routed_by"] == "ftree"


class _Clock:
    """Stands in for the dock's QElapsedTimer: the test says how much wall time has passed."""

    def __init__(self) -> None:
        self.ms = self.last = 0

    def start(self) -> None:
        self.last = self.ms

    def restart(self) -> int:
        dt, self.last = self.ms - self.last, self.ms
        return dt


def test_one_x_plays_about_three_events_per_second_with_the_real_timer(dock, qtbot, monkeypatch):
    """The real timer ticks; how far a tick moves is the wall time since the last one (an injected
    clock here, so a loaded machine's late ticks change nothing): 1.5 s at 1x is 4 events, 1 s more 3."""
    w, d = dock
    assert d.player.speed == 1.0 and sweep_playback.EVENTS_PER_SECOND == 3.0
    assert "3 SM events per second" in d.player.speed_box.toolTip()
    clock = _Clock()
    monkeypatch.setattr(d.player, "_wall", clock)
    start = d.timeline.phase_starts()[1]                     # discovery: 30+ events, no phase end near
    d.show_step(start)
    d.player.play()
    assert d.player.playing and d.player.timer.interval() == sweep_playback.TICK_MS
    qtbot.wait(3 * sweep_playback.TICK_MS)                       # ticks with no time passed: no step
    assert d.index == start
    clock.ms += 1500
    qtbot.waitUntil(lambda: d.index != start, timeout=WAIT)  # the next real tick
    assert d.index - start == 4                              # int(1.5 s x 3 events per second)
    clock.ms += 1000
    qtbot.waitUntil(lambda: d.index != start + 4, timeout=WAIT)
    assert d.index - start == 7 and d.player.playing                # 2.5 s: 7.5 events
    d.player.pause()
    assert d.timeline.events[d.index].phase == "discovery"


def test_switch_lids_are_labelled_once_assigned(dock, qtbot):
    from fabricviz.ib.routing import route
    w, d = dock
    f = w.editor.fabric
    r = route(f)
    spine02 = f.find("spine02")
    want = f"LID {int(r.lids.sw_lid[r.subnet.sw_index[spine02]])}"
    assert want == "LID 12"
    assert d.overlay.switch_label(spine02) == ""             # step 0: no LID yet
    d.show_step(d.timeline.next_phase_index(d.timeline.phase_starts()[4]))   # after the LID phase
    assert d.timeline.events[d.index].phase == "routing"
    assert d.overlay.switch_label(spine02) == want
    labels = {f.name_of(dv): t.text() for dv, t in d.overlay.switch_labels.items()}
    assert labels == {r.subnet.switch_name(i): f"LID {int(x)}" for i, x in enumerate(r.lids.sw_lid.tolist())}
    item = d.overlay.switch_labels[spine02]
    w.view.resetTransform()
    w.view._after_zoom()
    assert item.scene() is w.scene and item.isVisible()
    w.view.scale(0.2, 0.2)                                    # far out: hidden like the CA LID labels
    w.view._after_zoom()
    assert not item.isVisible() and not d.overlay.labels[r.subnet.ca_ports[0]].isVisible()


def test_the_legend_names_every_colour_the_overlay_draws(dock, qtbot):
    from fabricviz.ui.canvas.overlays import sweep as ov
    w, d = dock
    want = {ov.DISCOVERED_COLOR, ov.DR_COLOR, ov.TRACE_COLOR, ov.LOOP_COLOR, ov.GHOST_COLOR,
            *ov.STATE_COLORS.values()}
    assert len(want) == 8
    assert set(d.legend.colors()) == want == d.overlay.colors() and len(d.legend.colors()) == 8
    assert d.legend.texts() == ("discovered", "directed route (DR) of the SMP", "port INIT", "port ARMED",
                                "port ACTIVE", "traced path", "credit loop", "pulled cable (what-if)")
    assert d.legend.isVisible() and d.legend.parent() is d.widget()


def test_pull_without_a_selected_cable_changes_nothing(dock, qtbot):
    w, d = dock
    n = len(w.editor.fabric.cable_ids())
    w.scene.set_selected_cables(set())
    qtbot.mouseClick(d.pull_button, LEFT)
    assert d.status.text() == "pull cable: select one cable on the canvas first"
    assert len(w.editor.fabric.cable_ids()) == n and not w.editor.stack.canUndo()


def ring_fabric(n=5):
    """n switches in a ring (sw{i}:1 → sw{i+1}:2), one CX7-1P NIC on port 3 of each."""
    import math

    from fabricviz.model import Fabric
    f = Fabric(name=f"ring{n}")
    for i in range(n):
        a = 2 * math.pi * i / n
        f.add_device("ib_switch", "QM9700", f"sw{i}", 400 * math.cos(a), 400 * math.sin(a), tier=1)
        f.add_device("nic", "CX7-1P", f"hca{i}", 700 * math.cos(a), 700 * math.sin(a), tier=0)
    for i in range(n):
        f.add_cable(f.port(f"sw{i}:1").id, f.port(f"sw{(i + 1) % n}:2").id, 2.0)
        f.add_cable(f.port(f"sw{i}:3").id, f.port(f"hca{i}:1").id, 2.0)
    return f


def test_credit_loops_on_a_ring_and_the_updn_fallback_reason(dock, qtbot):
    from fabricviz.ib.creditloops import find_credit_loops
    from fabricviz.ib.routing import route
    w, d = dock
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        w.apply_generated(ring_fabric())
    f = w.editor.fabric
    assert d.routing.routed_by == "minhop" and d.routing.subnet.fabric is f
    assert d.facts.text() == "routed by minhop"
    with qtbot.waitSignal(d.loops_found, timeout=WAIT) as got:
        qtbot.mouseClick(d.loops_button, LEFT)
        assert not d.loops_button.isEnabled() and "looking for credit loops" in d.status.text()
    ref = find_credit_loops(route(f, "minhop"))
    assert len(ref) == 2 and len(got.args[0]) == 2
    first = [f.port(ch).cable.id for ch in ref[0].channels]
    assert len(first) == 5 and d.overlay.drawn["loop"].tolist() == first
    assert d.overlay.items["loop"].path().elementCount() > 0
    assert {f.port(f"sw{i}:1").cable.id for i in range(5)} in (set(first),
                                                               {f.port(f"sw{i}:2").cable.id for i in range(5)})
    text = d.narration_text()
    assert "2 credit loop(s) on VL0 (minhop, 1 VL) — the first one highlighted in red" in text
    for lp in ref:
        assert " -> ".join(lp.channels + lp.channels[:1]) in text
    # up/down refuses a ring (no root) and OpenSM falls back to minhop: the dock says why
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        d.engine_box.setCurrentText("updn")
    reason = route(f, "updn").fallback_reason
    assert reason.startswith("updn: no root switches found")
    assert d.routing.routed_by == "minhop" and d.routing.fallback_reason == reason
    assert f"fallback: {reason}" in d.facts.text() and "asked for updn" in d.facts.text()
    assert f"fallback: {reason}" in d.narration_text()
    assert not len(d.overlay.drawn.get("loop", []))                  # the new sweep cleared the old highlight
    with qtbot.waitSignal(d.loops_found, timeout=WAIT):
        qtbot.mouseClick(d.loops_button, LEFT)
    assert d.overlay.drawn["loop"].tolist() == first                 # same LFTs, same loops


def test_held_playback_stands_still_and_goes_on_to_the_same_target(dock, qtbot):
    w, d = dock
    target = d.timeline.phase_starts()[3]
    d.player.play_until(target, seconds=1.5)
    assert d.player.playing
    with d.player.held():
        at = d.index
        qtbot.wait(300)
        assert not d.player.playing and d.index == at              # no step while a picture is drawn
    assert d.player.playing and d.player._stop_at == target              # the play_until target is kept
    qtbot.waitUntil(lambda: not d.player.playing, timeout=WAIT)
    assert d.index == target
    with d.player.held():                                          # not playing: nothing starts
        pass
    assert not d.player.playing
