"""Partition enforcement in the sweep: the P_Key manager's PortInfo SMPs on switch ports facing CAs.

OpenSM's ``pkey_mgr_update_peer_port`` programs the switch port facing each CA port and then
sets PartitionEnforcementInbound/Outbound on it (``part_enforce both``), or leaves it off when
that port's table cannot hold the CA port's P_Keys; ``osm_pkey_mgr_process`` last clears it on
switch ports facing a switch. Designs: the k=4 fat tree (16 hosts on 8 leaves, 2 per leaf).
The last test replays the order against the real OpenSM's debug log under ibsim (skipped
without it).
"""

from __future__ import annotations

import re

import pytest

from fabricviz.anim.sweep_timeline import narrate
from fabricviz.formats.partitions_conf import loads
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.partitions import resolve, to_meta
from fabricviz.ib.pkeys import IBSIM, PKeyCaps, compute_tables
from fabricviz.ib.routing import route
from fabricviz.ib.sweep import heavy_sweep
from fabricviz.ib.sweep_pkeys import pkey_smps

ON = "partition enforcement inbound+outbound on"


def _pk(sweep):
    return [e for e in sweep.events if e.phase == "pkeys"]


def _guid(f, host):
    return int(f.ports_t.guid[f.port(f"{host}/mlx5_0:1").id])


def _osm_order(guids):
    return sorted(guids, key=lambda g: int.from_bytes(int(g).to_bytes(8, "big"), "little"))


def test_without_partitions_one_portinfo_per_switch_port_facing_a_ca_in_port_guid_order():
    f = k_ary_fat_tree(4)
    sw = heavy_sweep(f)
    pk = _pk(sw)
    assert [e.kind for e in pk] == ["pkey_enforce"] * 16 + ["banner"]
    sn = sw.routing.subnet
    # OpenSM walks its port GUID table (network-order GUIDs): the CA ports in that order
    order = _osm_order(sn.ca_guid.tolist())
    hosts = [f.port_name(int(sn.ca_ports[sn.ca_guid.tolist().index(g)])) for g in order]
    peers = [f.port(h).peer for h in hosts]
    assert [narrate(e) for e in pk[:-1]] == [
        f"P_Key manager (pkey_mgr): PortInfo → {p.device.name} port {p.num}: {ON}" for p in peers]
    assert [e.ports for e in pk[:-1]] == [(p.id,) for p in peers]
    assert all(e.data == {"enforce": True, "smp": True, "reason": ""} for e in pk[:-1])
    assert sw.routing.info.pkey_port_infos_sent == 16 and sw.routing.info.pkey_blocks_sent == 0
    assert pk[-1].data == {"blocks": 0, "port_infos": 16}
    # each PortInfo is one SMP of one hop on the sweep's clock (20 µs + 0.5 µs per hop), one after another
    disc = [e for e in sw.events if e.phase == "discovery"][-1]
    assert [e.t_us - disc.t_us for e in pk[:-1]] == pytest.approx([20.5 * (i + 1) for i in range(16)])


def test_blocks_of_a_ca_port_then_its_switch_port_then_that_ports_enforcement():
    f = k_ary_fat_tree(4)
    a, b = _guid(f, "node03"), _guid(f, "node12")
    f.meta["partitions"] = to_meta(loads(f"storage=0x8001 : 0x{a:x}=full, 0x{b:x} ;\n", "p"))
    pk = _pk(heavy_sweep(f))
    rows = [(e.kind, narrate(e).split(": ", 1)[1]) for e in pk]
    i = rows.index(("pkey_block", "P_Key table block 0 → node03/mlx5_0 port 1: 0x7fff 0x8001"))
    leaf = f.port("node03/mlx5_0:1").peer
    assert rows[i + 1:i + 3] == [
        ("pkey_block", f"P_Key table block 0 → {leaf.device.name} port {leaf.num}: 0x7fff 0x8001"),
        ("pkey_enforce", f"PortInfo → {leaf.device.name} port {leaf.num}: {ON}")]
    # a limited member: 0x0001 on the CA port and on the switch port facing it
    j = rows.index(("pkey_block", "P_Key table block 0 → node12/mlx5_0 port 1: 0x7fff 0x0001"))
    leaf12 = f.port("node12/mlx5_0:1").peer
    assert rows[j + 1] == ("pkey_block", f"P_Key table block 0 → {leaf12.device.name} port {leaf12.num}: "
                                         "0x7fff 0x0001")
    # a file: every end port is a limited member of the Default partition (0x7fff, not the factory
    # 0xffff), so the 16 CA ports, their 16 switch ports and the 20 switch port 0s get a block, but
    # the SM's own CA port (a full member) and the switch port facing it keep 0xffff
    sm = heavy_sweep(f).routing.subnet.sm_port
    assert f.port_name(sm) == "node01/mlx5_0:1" and not any("→ node01/" in t for _, t in rows)
    assert sum(1 for k, _ in rows if k == "pkey_block") == 16 + 16 + 20 - 2
    assert sum(1 for k, _ in rows if k == "pkey_enforce") == 16


def _overflow(f, host):
    """127 partitions on ``host``: with the Default partition 128 P_Keys, what a ConnectX port
    and (the catalog's assumption) a switch port hold."""
    g = _guid(f, host)
    return to_meta(loads("".join(f"p{i}=0x{0x100 + i:04x} : 0x{g:016x}=full ;\n" for i in range(127)), "p"))


def test_a_full_switch_table_leaves_enforcement_off_and_a_resweep_turns_it_off():
    f = k_ary_fat_tree(4)
    clean = heavy_sweep(f)                              # no partitions: enforcement on everywhere
    f.meta["partitions"] = _overflow(f, "node05")
    leaf = f.port("node05/mlx5_0:1").peer
    why = "its P_Key table is full: 128 entries for the CA port's 128 P_Keys"
    first = _pk(heavy_sweep(f))
    off = [e for e in first if e.kind == "pkey_enforce" and not e.data["enforce"]]
    # out of reset the bits are off already: OpenSM sends no PortInfo, the sweep says why
    assert [narrate(e) for e in off] == [f"P_Key manager (pkey_mgr): {leaf.device.name} port {leaf.num}: "
                                         f"partition enforcement stays off, no PortInfo sent ({why})"]
    assert off[0].data == {"enforce": False, "smp": False, "reason": why}
    assert sum(1 for e in first if e.kind == "pkey_enforce" and e.data["smp"]) == 15
    # re-sweep after the sweep without partitions: that port had enforcement on, now a PortInfo
    # turns it off; the other 15 are on already and send nothing
    again = [e for e in _pk(heavy_sweep(f, previous=clean.routing)) if e.kind == "pkey_enforce"]
    assert [narrate(e) for e in again] == [
        f"P_Key manager (pkey_mgr): PortInfo → {leaf.device.name} port {leaf.num}: partition enforcement off ({why})"]


def test_err_0507_when_the_last_block_overflows_the_enforcement_cap():
    """A switch port reporting PartitionEnforcementCap 8 (not a whole 32-entry block) facing a CA port
    with 10 P_Keys: OpenSM logs ERR 0507 "Clearing Enforcement bit"."""
    f = k_ary_fat_tree(4)
    g = _guid(f, "node02")
    conf = loads("".join(f"p{i}=0x{0x100 + i:04x} : 0x{g:016x}=full ;\n" for i in range(9)), "p")
    r = route(f, "minhop")
    tables = compute_tables(r.subnet, resolve(conf, r.subnet), PKeyCaps(switch_external=8))
    leaf = f.port("node02/mlx5_0:1").peer
    off = [s for s in pkey_smps(r, tables) if s.kind == "pkey_enforce" and not s.enforce]
    assert [(s.port, s.smp, s.text) for s in off] == [
        (leaf.id, False, f"{leaf.device.name} port {leaf.num}: partition enforcement stays off, no PortInfo sent "
                         "(ERR 0507: not enough P_Key entries (8 <= 9) on the switch port; Clearing Enforcement bit)")]
    assert tables.switch_ext[(int(r.subnet.sw_guid[r.subnet.sw_index[leaf.device.id]]), leaf.num)][:8] == \
        tables.ca[g][:8]
    # 8 P_Keys fit: enforcement on
    conf8 = loads("".join(f"p{i}=0x{0x100 + i:04x} : 0x{g:016x}=full ;\n" for i in range(7)), "p")
    tables8 = compute_tables(r.subnet, resolve(conf8, r.subnet), PKeyCaps(switch_external=8))
    assert not [s for s in pkey_smps(r, tables8) if s.kind == "pkey_enforce" and not s.enforce]


def test_enforcement_is_cleared_on_a_switch_port_that_now_faces_a_switch():
    f = k_ary_fat_tree(4)
    before = heavy_sweep(f)
    g = f.copy()
    a, b = g.port("leaf01:1"), g.port("leaf02:1")
    g.remove_cables([a.cable.id, b.cable.id])           # node01 and node03 unplugged,
    g.add_cable(a.id, b.id, 3.0)                        # their leaf ports cabled to each other
    pk = _pk(heavy_sweep(g, previous=before.routing))
    assert [narrate(e) for e in pk] == [
        "P_Key manager (pkey_mgr): PortInfo → leaf01 port 1: partition enforcement off (an inter-switch link)",
        "P_Key manager (pkey_mgr): PortInfo → leaf02 port 1: partition enforcement off (an inter-switch link)",
        "P_Key manager (pkey_mgr): PKEY setup completed - STARTING SM LID CONFIG"]


@pytest.fixture(scope="module")
def live():
    from tests.ib import pkey_oracle
    reason = pkey_oracle.pkeys_available()
    if reason:
        pytest.skip(reason)
    return True


@pytest.mark.oracle
def test_order_matches_opensm_under_ibsim(live, tmp_path):
    """OpenSM 3.3.23's debug log: every P_KeyTable and PortInfo Set of the P_Key manager (attribute
    and modifier) and its "No need to update PortInfo" lines, in order, against ours with ibsim's
    table sizes, on a partitions.conf with a limited member, a merged default and a CA port whose 70
    partitions fill its 64-entry table (its switch port then keeps enforcement off)."""
    from fabricviz.formats.ibnetdiscover import export_ibnetdiscover, sniff
    from fabricviz.formats.ibnetdiscover import loads as net_loads
    from tests.ib import oracle
    text = export_ibnetdiscover(k_ary_fat_tree(4))
    g = net_loads(text, "export.net", dialect=sniff(text))
    r = route(g, "minhop")
    ca = [int(x) for x in r.subnet.ca_guid.tolist()]
    conf = ("Default=0x7fff : ALL=full ;\nstorage=0x0020 : "
            + ", ".join(f"0x{x:016x}=full" for x in ca[:3]) + f", 0x{ca[4]:016x} ;\n"
            + "".join(f"p{i}=0x{0x100 + i:04x} : 0x{ca[3]:016x}=full ;\n" for i in range(70)))
    cf = tmp_path / "partitions.conf"
    cf.write_text(conf)
    oracle.run_opensm_and_query(text, tmp_path / "osm", [], extra_args=("-P", str(cf)), log_flags=0x4B)
    theirs, started = [], False
    for line in (tmp_path / "osm" / "osm.log").read_text().splitlines():
        m = re.search(r"Setting (P_KeyTable|PortInfo) \(0x1[56]\), modifier (0x[0-9a-f]+)", line)
        started = started or "Setting P_KeyTable" in line
        if started and "No need to update PortInfo" in line:
            n = re.search(r"port (\d+) \((\S+)\)", line)
            theirs.append(("unchanged", n.group(2), int(n.group(1))))
        elif started and m:
            theirs.append((m.group(1), int(m.group(2), 16)))
    tables = compute_tables(r.subnet, resolve(loads(conf), r.subnet), IBSIM)
    ours = []
    for s in pkey_smps(r, tables):
        num = int(g.ports_t.num[s.port]) if s.port >= 0 else 0
        if not s.smp:
            ours.append(("unchanged", g.name_of(s.device), num))
        elif s.kind == "pkey_block":
            on_switch = s.port >= 0 and s.device in r.subnet.sw_index
            ours.append(("P_KeyTable", s.block | (num << 16 if on_switch else 0)))
        else:
            ours.append(("PortInfo", num))
    full = g.port(g.port_name(int(r.subnet.ca_ports[3]))).peer        # facing the 70-partition port
    assert ours.count(("unchanged", full.device.name, full.num)) == 1
    # blocks: 4 storage members' CA ports and switch ports (1 + 1 each), the full port's 2 + 2;
    # then 15 PortInfo and the one left unchanged
    assert len(ours) == 4 * 2 + 2 * 2 + 16
    # after the P_Key manager come the LID manager's PortInfo Sets: not ours to compare
    assert theirs[:len(ours)] == ours
