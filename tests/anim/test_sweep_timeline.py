"""SweepTimeline on a 2-level radix-4 fat tree (4 hosts, 2 leaves, 2 spines).

Expected figures come from the tree's wiring: node01's NIC (device 8) is the
SM; the NICs are devices 8-11 with ports 0-3, the switches leaf01, leaf02,
spine01, spine02 are devices 12-15 with ports 4-7, 8-11, 12-15, 16-19; the
spines use only their ports 1 and 2, so 16 subnet ports in all. Discovery
reaches leaf01 at hop 1, node02 and both spines at hop 2, leaf02 at hop 3 and
node03/node04 at hop 4 (57 SMPs: 4 + 12 + 23 + 12 + 6 by the engine's MAD
counts). LIDs: SM 1, then the switches 5-8, then the CAs 2-4.
"""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.anim.sweep_timeline import ACTIVE, INIT, SweepTimeline, narrate
from fabricviz.generate import fat_tree
from fabricviz.ib.sweep import heavy_sweep

SWITCHES = [12, 13, 14, 15]
NICS = [8, 9, 10, 11]
SUBNET_PORTS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17]


@pytest.fixture(scope="module")
def tl():
    f = fat_tree(levels=2, radix=4, hosts=4)
    return SweepTimeline(heavy_sweep(f, "minhop"))


def last_of(tl, phase):
    return max(i for i, e in enumerate(tl.events) if e.phase == phase)


def test_phases_and_lengths(tl):
    assert len(tl) == 39
    assert [tl.events[i].phase for i in tl.phase_starts()] == \
        ["election", "discovery", "pkeys", "sm_lid", "lids", "routing", "lft", "links", "up"]
    assert tl.phase_starts() == [0, 1, 16, 21, 23, 31, 32, 34, 38]
    assert tl.next_phase_index(0) == 1
    assert tl.next_phase_index(5) == 16
    # no partitions.conf: no P_Key table to send, but a PortInfo turning partition enforcement
    # on for each of the 4 switch ports facing a CA, then the banner
    assert [tl.events[i].kind for i in range(16, 21)] == ["pkey_enforce"] * 4 + ["banner"]
    assert tl.next_phase_index(16) == 21
    assert tl.next_phase_index(37) == 38
    assert tl.next_phase_index(38) == 38          # nothing after SUBNET UP


def test_after_discovery_every_switch_and_ca_found_ports_init(tl):
    st = tl.state(last_of(tl, "discovery"))
    assert st.event.text == "HEAVY SWEEP COMPLETE"
    assert np.flatnonzero(st.discovered).tolist() == NICS + SWITCHES     # servers and GPUs are not IB nodes
    assert np.flatnonzero(st.port_state).tolist() == SUBNET_PORTS
    assert set(st.port_state[SUBNET_PORTS].tolist()) == {INIT}
    assert st.smps == 57
    assert not st.lid.any() and not st.subnet_up


def test_discovery_fans_out_wave_by_wave(tl):
    waves = [i for i, e in enumerate(tl.events) if e.kind == "wave"]
    found = [np.flatnonzero(tl.state(i).discovered).tolist() for i in waves]
    assert found == [[8], [8, 12], [8, 9, 12, 14, 15], [8, 9, 12, 13, 14, 15], NICS + SWITCHES]
    assert tl.narration[waves[2]] == "Discovery wave 2: 3 switches and 2 CAs found, 39 SMPs so far"
    # node03 is reached over node01 port 1 → leaf01 port 3 → spine01 port 2 → leaf02 port 1
    i = next(i for i, e in enumerate(tl.events) if e.kind == "node" and e.devices == (10,))
    f = tl.fabric
    assert tl.state(i).dr_cables == (f.port("node01/mlx5_0:1").cable.id, f.port("leaf01:3").cable.id,
                                     f.port("spine01:2").cable.id, f.port("leaf02:1").cable.id)


def test_subnet_up_every_port_active_with_routing_lids(tl):
    st = tl.state(len(tl) - 1)
    r = tl.sweep.routing
    assert st.subnet_up and st.narration.startswith("SUBNET UP")
    assert np.flatnonzero(st.port_state == ACTIVE).tolist() == SUBNET_PORTS
    ca_ports = r.subnet.ca_ports.tolist()
    assert st.lid[ca_ports].tolist() == r.lids.ca_lid.tolist() == [1, 2, 3, 4]
    for s, _d in enumerate(SWITCHES):       # every port of a switch carries its port 0 LID
        assert st.lid[4 * s + 4: 4 * s + 8].tolist() == [int(r.lids.sw_lid[s])] * 4 == [5 + s] * 4
    assert st.lft_blocks_received[SWITCHES].tolist() == [1, 1, 1, 1]
    assert st.lft_blocks_received[NICS].tolist() == [0, 0, 0, 0]


def test_scrub_back_and_forth(tl):
    end = tl.state(len(tl) - 1)
    first = tl.state(0)
    assert not first.discovered.any() and not first.port_state.any() and not first.subnet_up
    again = tl.state(len(tl) - 1)
    assert np.array_equal(again.port_state, end.port_state) and again.subnet_up
    with pytest.raises(ValueError):
        first.discovered[0] = True            # frames are read-only
    with pytest.raises(IndexError):
        tl.state(len(tl))


def test_armed_before_active(tl):
    armed = next(i for i, e in enumerate(tl.events) if e.kind == "port_state")
    st = tl.state(armed)
    assert set(st.port_state[SUBNET_PORTS].tolist()) == {2}
    assert not st.subnet_up


def test_index_at_time(tl):
    assert tl.index_at_time(-1.0) == 0
    assert tl.index_at_time(0.0) == 2                 # three events at t=0; the last one shows
    assert tl.index_at_time(81.4) == 4
    assert tl.index_at_time(81.5) == 8
    assert tl.index_at_time(1e9) == len(tl) - 1
    assert tl.duration_us == pytest.approx(754.072 + 4 * 20.5)     # 4 PortInfo SMPs of one hop


def test_keyframes_smaller_than_plain_copies():
    from fabricviz.generate import k_ary_fat_tree
    t = SweepTimeline(heavy_sweep(k_ary_fat_tree(8), "ftree"))
    assert len(t) == 440 + 128                    # 128 PortInfo SMPs: one per switch port facing a host
    assert t.nbytes() * 10 < t.plain_copies_nbytes()
    # every frame rebuilt from a keyframe equals the one built by replaying from the start
    full = [t.state(i).port_state.copy() for i in range(len(t))]
    for i in (567, 0, 200, 63, 64, 65, 566):
        assert np.array_equal(t.state(i).port_state, full[i])


def test_narration_names_the_phase():
    f = fat_tree(levels=2, radix=4, hosts=4)
    e = heavy_sweep(f).events
    assert narrate(e[4]).startswith("Heavy sweep discovery: switch leaf01 found at hop 1")
    assert narrate(e[16]) == ("P_Key manager (pkey_mgr): PortInfo → leaf01 port 1: partition enforcement "
                              "inbound+outbound on")
    assert narrate(e[20]) == "P_Key manager (pkey_mgr): PKEY setup completed - STARTING SM LID CONFIG"
    assert narrate(e[21]) == "SM LID assignment: SM port node01/mlx5_0:1 takes LID 1"


def test_pkey_tables_sent_as_smps_and_narrated():
    """With a partitions.conf, the P_Key manager sends each changed 32-entry block: the CA port's
    table and the table of the switch port facing it, then that port's enforcement (PortInfo; one
    per switch port facing a CA), then the banner."""
    from fabricviz.formats.partitions_conf import loads
    from fabricviz.generate import k_ary_fat_tree
    from fabricviz.ib.partitions import to_meta
    f = k_ary_fat_tree(4)
    port = f.port("node07/mlx5_0:1")
    guid = int(f.ports_t.guid[port.id])
    f.meta["partitions"] = to_meta(loads(f"Default=0x7fff: ALL=full;\ncompute=0x8001: 0x{guid:x}=full;\n", "p"))
    sw = heavy_sweep(f)
    pk = [e for e in sw.events if e.phase == "pkeys"]
    blocks = [i for i, e in enumerate(pk) if e.kind == "pkey_block"]
    assert [narrate(pk[i]) for i in blocks + [blocks[-1] + 1]] == [
        "P_Key manager (pkey_mgr): P_Key table block 0 → node07/mlx5_0 port 1: 0xffff 0x8001",
        f"P_Key manager (pkey_mgr): P_Key table block 0 → {port.peer.device.name} port {port.peer.num}: "
        "0xffff 0x8001",
        f"P_Key manager (pkey_mgr): PortInfo → {port.peer.device.name} port {port.peer.num}: "
        "partition enforcement inbound+outbound on"]
    assert blocks[1] == blocks[0] + 1
    assert [e.kind for e in pk].count("pkey_enforce") == 16 and pk[-1].kind == "banner"
    assert narrate(pk[-1]) == "P_Key manager (pkey_mgr): PKEY setup completed - STARTING SM LID CONFIG"
    b0 = pk[blocks[0]]
    assert b0.ports == (port.id,) and b0.data["entries"][:2] == (0xFFFF, 0x8001)
    assert sw.routing.info.pkey_blocks_sent == 2 and sw.routing.info.pkey_port_infos_sent == 16
    # the phase sits between discovery and the SM's LID, as in OpenSM's do_sweep()
    phases = [e.phase for e in sw.events]
    assert phases.index("pkeys") > max(i for i, p in enumerate(phases) if p == "discovery")
    assert phases.index("sm_lid") > max(i for i, p in enumerate(phases) if p == "pkeys")
    # a re-sweep with the same partitions sends nothing (the enforcement bits are on already)
    again = heavy_sweep(f, previous=sw.routing)
    assert [e.kind for e in again.events if e.phase == "pkeys"] == ["banner"]


def test_resweep_keeps_live_links_active_and_arms_only_a_returning_link():
    """On Trap 128 OpenSM re-sweeps but does not bounce ACTIVE links; a cable put back goes
    INIT -> ARMED -> ACTIVE alone."""
    from fabricviz.anim.sweep_timeline import ACTIVE, SweepTimeline
    from fabricviz.generate import fat_tree
    from fabricviz.ib.routing import route
    from fabricviz.ib.sweep import cable_pull, heavy_sweep
    f = fat_tree(levels=2, radix=8, hosts=16)
    before = route(f, "minhop")
    cable = int(f.port("leaf01:8").cable.id)
    ends = sorted((int(f.cables_t.port_a[cable]), int(f.cables_t.port_b[cable])))
    sw, removed = cable_pull(f, before, cable)
    kinds = [e.kind for e in sw.events if e.phase == "links"]
    assert "port_state" not in kinds and kinds[-1] == "no_change"
    tl = SweepTimeline(sw, f)
    live = f.ports_t.cable >= 0
    n_live = int(live.sum())                 # both ends of the 31 cables left
    assert int((tl.state(1).port_state == ACTIVE).sum()) == n_live == 2 * 31
    assert int((tl.state(-1).port_state == ACTIVE).sum()) == n_live
    assert all(tl.state(-1).port_state[p] != ACTIVE for p in ends)
    # put it back: only its two ports change state
    f.restore(removed)
    back = heavy_sweep(f, "minhop", previous=sw.routing, trap_port=ends[1])
    changes = [e for e in back.events if e.kind == "port_state"]
    assert [e.data["state"] for e in changes] == ["armed", "active"]
    assert all(sorted(e.ports) == ends for e in changes)
    tl2 = SweepTimeline(back, f)
    assert int((tl2.state(-1).port_state == ACTIVE).sum()) == 2 * 32
