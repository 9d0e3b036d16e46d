"""Where the partition marks overlay draws: a host's frame on the scene, the rectangles of a path
item, the square of a host's mark in a slot (the tests of the marks and of lesson 7's stage)."""

from __future__ import annotations

from fabricviz.formats.partitions_conf import loads as conf_loads
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.partitions import to_meta
from fabricviz.model.fabric import Fabric
from fabricviz.sim.reach import nic_ports
from fabricviz.ui.canvas.overlays.partitions import GAP, SQUARE


def frame(w, name):
    item = w.scene.items_by_id[w.editor.fabric.device_id(name)]
    return item.mapRectToScene(item.rect())


def rects(item):
    return sorted((r.x(), r.y(), r.width(), r.height())
                  for r in (p.boundingRect() for p in item.path().toSubpathPolygons()))


def mark_rect(w, name, slot):
    fr = frame(w, name)
    return (fr.left() + GAP + slot * (SQUARE + GAP), fr.top() - SQUARE / 2, SQUARE, SQUARE)


def partitioned() -> Fabric:
    """A k=4 fat tree with a storage partition: node01 full, node02/03 limited members."""
    f = k_ary_fat_tree(4)
    g = {}
    for i in (1, 2, 3):
        nic = int(f.children_ids(f.find(f"node{i:02d}"))[-1])
        g[i] = int(f.ports_t.guid[nic_ports(f)[nic]])
    text = ("Default=0x7fff : ALL=full ;\n"
            f"storage=0x8002 : 0x{g[1]:x}=full, 0x{g[2]:x}, 0x{g[3]:x} ;\n")
    f.meta["partitions"] = to_meta(conf_loads(text, "p"))
    return f
