"""A port's tooltip names what OpenSM's QoS setup writes for packets leaving it (the design's
stored QoS options), checked against the whole-subnet computation."""

from __future__ import annotations

from fabricviz.formats.opensm_conf import loads
from fabricviz.generate import k_ary_fat_tree, leaf_spine
from fabricviz.ib.qos import compute_qos
from fabricviz.ib.qos_meta import to_meta
from fabricviz.ib.subnet import discover
from fabricviz.ui.canvas.describe import port_tooltip, qos_line

CONF = ("qos TRUE\nmax_op_vls 3\nqos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\n"
        "qos_ca_sl2vl 0,0,1,1,2,2,3,3,0,0,1,1,2,2,3,3\n")


def test_switch_and_ca_ports_show_the_tables_compute_qos_programs():
    f = k_ary_fat_tree(4)
    opts = loads(CONF, "opensm.conf")
    f.meta["qos"] = to_meta(opts)
    tables = compute_qos(discover(f), opts)
    up = f.port("leaf01:3")                     # a leaf's uplink (cabled)
    sw_guid = int(f.devices_t.guid[f.find("leaf01")])
    want_sw = tables.sl2vl[(sw_guid, 1, up.num)]             # any input port: the same table
    assert all(tables.sl2vl[(sw_guid, i, up.num)] == want_sw for i in range(0, 5))
    assert qos_line(f, up.id) == "QoS: 4 data VLs (VL0-3) · SL→VL " + " ".join(map(str, want_sw))
    assert want_sw == (0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3)      # VL4-7 masked to VL0-3
    ca = f.port("node01/mlx5_0:1")
    node_guid = int(f.devices_t.guid[f.find("node01/mlx5_0")])
    want_ca = tables.sl2vl[(node_guid, 0, ca.num)]
    assert qos_line(f, ca.id) == "QoS: 4 data VLs (VL0-3) · SL→VL " + " ".join(map(str, want_ca))
    assert "QoS: 4 data VLs" in port_tooltip(f, ca.id)


def test_no_qos_line_without_qos_or_on_ethernet():
    f = k_ary_fat_tree(4)
    p = f.port("leaf01:3").id
    assert qos_line(f, p) == "" and "QoS" not in port_tooltip(f, p)          # no options stored
    f.meta["qos"] = to_meta(loads("qos FALSE\n", "o"))
    assert qos_line(f, p) == ""
    e = leaf_spine(2, 1, 2)
    e.meta["qos"] = to_meta(loads(CONF, "o"))
    assert qos_line(e, e.port("leaf01:1").id) == ""
