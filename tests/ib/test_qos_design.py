"""QoS options kept in the design, and the QoS step of the SM sweep (SL2VL / VLArbitration SMPs)."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from fabricviz.anim.sweep_timeline import narrate
from fabricviz.formats.native import load_fabric, save_fabric
from fabricviz.formats.opensm_conf import loads
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.qos import compute_qos
from fabricviz.ib.qos_meta import design_qos, from_meta, to_meta
from fabricviz.ib.subnet import discover
from fabricviz.ib.sweep import BANNERS, heavy_sweep
from fabricviz.model import FabricError

CONF = ("qos TRUE\nmax_op_vls 3\nqos_max_vls 8\nqos_high_limit 4\n"
        "qos_vlarb_high 0:8,1:4\nqos_vlarb_low 0:32,1:16,2:8,3:4\n"
        "qos_sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3\n"
        "qos_ca_sl2vl 0,0,1,1,2,2,3,3,0,0,1,1,2,2,3,3\nqos_swe_high_limit 255\n")


def test_round_trip_through_the_design_file(tmp_path):
    opts = loads(CONF, "opensm.conf")
    f = k_ary_fat_tree(4)
    f.meta["qos"] = to_meta(opts)
    save_fabric(f, tmp_path / "q.json")
    back = design_qos(load_fabric(tmp_path / "q.json").meta)
    assert back == opts
    sn = discover(f)
    a, b = compute_qos(sn, opts), compute_qos(sn, back)
    assert a.sl2vl == b.sl2vl and a.ports == b.ports
    assert design_qos({}) is None


@pytest.mark.parametrize("doc, msg", [
    ({"qos": "yes"}, "meta.qos: qos and use_optimized_slvl must be true or false"),
    ({"qos": True, "max_op_vls": 9}, "meta.qos.max_op_vls: 9 is not an integer 1..5"),
    ({"sets": {"swe": {"sl2vl": [0] * 15}}}, "meta.qos.sets.swe.sl2vl: expected 16 VLs, one per SL"),
    ({"sets": {"ca": {"vlarb_low": [[16, 1]]}}}, "meta.qos.sets.ca.vlarb_low[0][0]: 16 is not an integer 0..15"),
    ({"sets": {"ca": {"colour": 1}}}, "meta.qos.sets.ca: unknown key 'colour'"),
    ({"sets": {"router": {}}}, "meta.qos.sets: expected an object with keys among default, ca, sw0, swe, rtr"),
    ({"version": 2}, "meta.qos: version 2 is not 1"),
    ([], "meta.qos: expected an object"),
])
def test_malformed_options_refused_with_the_key(doc, msg):
    with pytest.raises(FabricError) as e:
        from_meta(doc)
    assert str(e.value) == msg


def test_mutated_documents_accepted_or_refused_in_one_line():
    good = to_meta(loads(CONF, "opensm.conf"))
    rng = random.Random(7)
    junk = [None, True, -1, 16, 256, 1.5, "x", [], {}, [[1]], [1, 2, 3]]

    def mutate(d):
        if isinstance(d, dict) and d:
            k = rng.choice(sorted(d))
            d[k] = rng.choice(junk) if rng.random() < 0.4 else mutate(d[k])
        elif isinstance(d, list) and d:
            i = rng.randrange(len(d))
            d[i] = rng.choice(junk) if rng.random() < 0.5 else mutate(d[i])
        return d
    verdicts = {"ok": 0, "refused": 0}
    for _ in range(600):
        doc = mutate(json.loads(json.dumps(good)))
        try:
            from_meta(doc)
            verdicts["ok"] += 1
        except FabricError as e:
            assert "\n" not in str(e) and str(e).startswith("meta.qos")
            verdicts["refused"] += 1
    assert verdicts["refused"] > 200 and verdicts["ok"] > 100       # None values mean "not set": accepted


def test_sweep_sends_sl2vl_and_vlarb_after_the_lfts():
    f = k_ary_fat_tree(4)
    opts = loads(CONF, "opensm.conf")
    sw = heavy_sweep(f, qos=opts)
    qos = [e for e in sw.events if e.kind == "qos_tables"]
    switches, cas = [e for e in qos if not e.ports], [e for e in qos if e.ports]
    assert len(switches) == 20 and len(cas) == 16
    tables = sw.routing.info.qos_tables
    # every SL2VL table and every VLArbitration block counted once
    arb = sum((len(q.vlarb_high) + 31) // 32 + (len(q.vlarb_low) + 31) // 32 for q in tables.ports.values())
    assert sw.routing.info.qos_smps_sent == len(tables.sl2vl) + arb
    assert sum(e.data["smps"] for e in qos) == len(tables.sl2vl) + arb
    assert narrate(cas[0]).startswith("QoS setup (SL2VL, VL arbitration): SL2VL + VLArb → node")
    assert narrate(cas[0]).endswith("4 data VLs, SL→VL 0 0 1 1 2 2 3 3 0 0 1 1 2 2 3 3")   # max_op_vls 3: VL0-3
    phases = [e.phase for e in sw.events]
    last_lft = max(i for i, p in enumerate(phases) if p == "lft")
    unicast = next(i for i, e in enumerate(sw.events) if e.text == BANNERS["unicast"])
    assert last_lft < phases.index("qos") < unicast            # osm_qos_setup, then the banner
    # qos FALSE (OpenSM's default) sends nothing; the design's stored options are used by default
    assert "qos" not in [e.phase for e in heavy_sweep(f).events]
    f.meta["qos"] = to_meta(opts)
    assert len([e for e in heavy_sweep(f).events if e.kind == "qos_tables"]) == 36


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "fabricviz", *args], capture_output=True, text=True)


@pytest.mark.slow
def test_route_stores_the_options_and_uses_them(tmp_path):
    f = k_ary_fat_tree(4)
    save_fabric(f, tmp_path / "d.json")
    (tmp_path / "opensm.conf").write_text(CONF)
    with_file = _cli("route", str(tmp_path / "d.json"), "--qos-config", str(tmp_path / "opensm.conf"),
                     "--dump-tables", str(tmp_path / "a.txt"), "--store-qos", "--json")
    assert with_file.returncode == 0, with_file.stderr
    assert json.loads(with_file.stdout)["vls_used"] == 4
    stored = _cli("route", str(tmp_path / "d.json"), "--dump-tables", str(tmp_path / "b.txt"), "--json")
    assert stored.returncode == 0 and json.loads(stored.stdout)["vls_used"] == 4
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()
    assert design_qos(load_fabric(tmp_path / "d.json").meta) == loads(CONF, "x")
    bad = _cli("route", str(tmp_path / "d.json"), "--store-qos")
    assert bad.returncode == 2 and bad.stderr.strip() == "fabricviz: error: --store-qos needs --qos-config opensm.conf"
