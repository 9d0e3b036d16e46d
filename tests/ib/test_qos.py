"""fabricviz.ib.qos: the tables OpenSM 3.3.23 programs, exact values (no OpenSM needed).

The same rules are checked against the real OpenSM in test_qos_vs_opensm.py."""

from __future__ import annotations

import pytest

from fabricviz.formats import opensm_conf
from fabricviz.formats.ibnetdiscover import loads, sniff
from fabricviz.ib.qos import PortCaps, compute_qos, sl2vl_lines, vl_mask, vlarb_lines
from fabricviz.ib.routing import route
from tests.ib import topologies

CONF = """qos TRUE
qos_high_limit 7
qos_sl2vl 1,0,3,2,5,4,7,6,9,14,12,11,3,3,0,15
qos_vlarb_high 0:10,1:20,2:30,9:40
qos_vlarb_low 3:5,4:6,5:7,6:8,7:9,0:1,1:2,2:3,3:4,12:50
qos_swe_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
qos_swe_high_limit 3
qos_sw0_sl2vl 7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,0
"""


@pytest.fixture(scope="module")
def ring():
    text = topologies.ring(4).text()
    return route(loads(text, "ring.net", dialect=sniff(text)), "minhop")


def test_masks():
    assert [vl_mask(n) for n in (1, 2, 4, 8, 15)] == [0, 1, 3, 7, 15]


def test_qos_off_programs_nothing(ring):
    q = compute_qos(ring.subnet, opensm_conf.loads("qos FALSE\n"))
    assert not q.enabled and q.sl2vl == {} and q.ports == {}
    assert sl2vl_lines(ring, q) == [] and vlarb_lines(ring, q) == []


def test_ring_base_port0(ring):
    q = compute_qos(ring.subnet, opensm_conf.loads(CONF), enhanced_port0=False)
    sw = sorted(int(g) for g in ring.subnet.sw_guid.tolist())
    # 4 switches x out 1..3 x in 0..3, no out 0 (base port 0), + 4 CA ports
    assert len(q.sl2vl) == 4 * 3 * 4 + 4
    assert (sw[0], 0, 0) not in q.sl2vl
    assert q.sl2vl[(sw[0], 2, 1)] == (0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 15)
    lines = sl2vl_lines(ring, q)
    assert lines[0] == f"sl2vl 0x{sw[0]:016x} 0 1 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 15"
    # CA: node GUID, in 0, out = port; qos_sl2vl masked to VL0-7 (9 -> 1, 14 -> 6, 12 -> 4, 11 -> 3)
    ca_node = topologies.CA_BASE + (topologies.scrambled(0) << 4)
    assert f"sl2vl 0x{ca_node:016x} 0 1 1 0 3 2 5 4 7 6 1 6 4 3 3 3 0 15" in lines
    assert lines[-4:] == sorted(lines[-4:]) and all(" 0 1 " in x for x in lines[-4:])
    arb = vlarb_lines(ring, q)
    assert len(arb) == 4 * 3 + 4
    assert arb[0] == (f"vlarb 0x{sw[0]:016x} 1 3 high 0:10 1:20 2:30 1:40 0:0 0:0 0:0 0:0 "
                      "low 3:5 4:6 5:7 6:8 7:9 0:1 1:2 2:3")
    assert f"vlarb 0x{ca_node:016x} 1 7 high 0:10 1:20 2:30 1:40 0:0 0:0 0:0 0:0 " \
           "low 3:5 4:6 5:7 6:8 7:9 0:1 1:2 2:3" in arb


def test_enhanced_port0_gets_sw0_and_swe(ring):
    q = compute_qos(ring.subnet, opensm_conf.loads(CONF), enhanced_port0=True)
    g = int(ring.subnet.sw_guid[0])
    assert q.sl2vl[(g, 0, 0)] == (7, 6, 5, 4, 3, 2, 1, 0, 7, 6, 5, 4, 3, 2, 1, 0)   # sw0 written last
    assert q.sl2vl[(g, 3, 0)] == (0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 15)  # swe
    p0 = q.ports[(g, 0)]
    assert (p0.port_type, p0.high_limit, p0.oper_vls) == ("sw0", 7, 8)
    assert len(q.sl2vl) == 4 * 4 * 4 + 4


def test_vl_caps_and_max_op_vls(ring):
    sn = ring.subnet
    g = int(sn.sw_guid[0])
    o = opensm_conf.loads(CONF + "max_op_vls 3\n")                      # VL0-3
    q = compute_qos(sn, o, enhanced_port0=False)
    assert q.ports[(g, 1)].oper_vls == 4
    assert q.sl2vl[(g, 0, 1)] == (0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 15)
    first = compute_qos(sn, o, enhanced_port0=False, first_sweep=True)
    assert first.ports[(g, 1)].oper_vls == 4                            # settled value reported
    assert first.sl2vl[(g, 0, 1)] == (0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 15)
    # a peer with 2 data VLs limits the link; one data VL: no arbitration, high limit 0
    peer = int(sn.sw_guid[int(sn.nbr_sw[0, 1])])
    q2 = compute_qos(sn, opensm_conf.loads(CONF), enhanced_port0=False,
                     caps_by_guid={peer: PortCaps(vl_cap=2), g: PortCaps(vl_cap=1)})
    assert q2.ports[(g, 1)].oper_vls == 1 and q2.ports[(g, 1)].vlarb_high == ()
    assert q2.ports[(g, 1)].high_limit == 0
    assert q2.sl2vl[(g, 0, 1)] == (0,) * 15 + (15,)
    assert q2.ports[(peer, 2)].oper_vls == 1
    qp = q2.ports[(peer, 1)]
    assert qp.oper_vls == 2 and qp.vlarb_low[:3] == ((1, 5), (0, 6), (1, 7))


def test_vlarb_caps_over_one_block(ring):
    sn = ring.subnet
    g = int(sn.sw_guid[0])
    text = CONF + "qos_swe_vlarb_low " + ",".join(f"{i % 8}:{i}" for i in range(64)) + "\n"
    q = compute_qos(sn, opensm_conf.loads(text), enhanced_port0=False,
                    caps_by_guid={g: PortCaps(vlarb_low_cap=40, vlarb_high_cap=64)})
    low = q.ports[(g, 1)].vlarb_low
    assert len(low) == 40 and low[32] == (0, 32) and low[-1] == (7, 39)
    assert len(q.ports[(g, 1)].vlarb_high) == 32    # cap 64: OpenSM sends 64 % 32 = 0 of block 2


def test_lines_refuse_other_subnet(ring):
    text = topologies.k_ary_fat_tree(4).text()
    other = route(loads(text, "k4.net", dialect=sniff(text)), "minhop")
    q = compute_qos(other.subnet, opensm_conf.loads(CONF))
    with pytest.raises(ValueError, match="another subnet"):
        sl2vl_lines(ring, q)
