"""Undo of cable-type edits on cage parts (twin-port copper, twin-to-single-port optics): the design comes
back to the byte (its signature and its saved text)."""

from __future__ import annotations

import numpy as np

from fabricviz.formats.native import dumps
from fabricviz.model import Fabric


def _design():
    f = Fabric(name="cages")
    f.add_device("ib_switch", "QM9700", "leaf", tier=1)
    f.add_device("ib_switch", "QM9700", "spine", tier=2)
    f.add_device("ib_switch", "Q3400", "xleaf", tier=1)
    f.add_device("server", "DGX-B300", "b300")
    f.add_cables(np.array([f.port_id("leaf:1"), f.port_id("leaf:2")]),
                 np.array([f.port_id("spine:1"), f.port_id("spine:2")]), 1.0)           # NDR-TWIN-DAC
    f.add_cable("xleaf:1", "b300/mlx5_0:1", 10.0)                                      # XDR-SPLIT-DR4
    return f


def test_cable_type_edits_on_cage_parts_undo_to_the_byte(make_window):
    w = make_window()
    assert w.apply_generated(_design())
    f, ed = w.fabric, w.editor
    dac, optics = f.port("leaf:1").cable.id, f.port("xleaf:1").cable.id
    assert (f.cable(dac).part_id, f.cable(optics).part_id) == ("NDR-TWIN-DAC", "XDR-SPLIT-DR4")
    states = [(f.signature(), dumps(f))]
    assert ed.set_cable(dac, ctype="transceiver")                      # the pair's link to twin optics
    assert f.cable(dac).part_id == "NDR-TWIN-SR4"
    states.append((f.signature(), dumps(f)))
    assert ed.set_cable(optics, length_m=2.0, ctype="dac")             # into the node rack: MCA7K10 splitter
    assert f.cable(optics).part_id == "XDR-SPLIT-ACC"
    states.append((f.signature(), dumps(f)))
    for i in (2, 1):
        ed.stack.undo()
        assert (w.fabric.signature(), dumps(w.fabric)) == states[i - 1]
    assert (f.cable(dac).part_id, f.cable(optics).part_id) == ("NDR-TWIN-DAC", "XDR-SPLIT-DR4")
