"""``fabricviz generate nvl72``: NVL72 racks (NVLink domains) on a rail-optimised leaf/spine sized by
the superpod rule (fabricviz/generate/nvl72.py module doc). The plan is checked number for number,
the built fabric is counted from its graph, and the CLI runs end to end on the file it wrote."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fabricviz.check.info import fabric_info
from fabricviz.cli import main
from fabricviz.formats.native import load_fabric
from fabricviz.generate.nvl72 import nvl72, plan_nvl72
from fabricviz.model.fabric import KIND_CODE, NIC
from fabricviz.model.nvlink import nvlink_domains, nvlink_map

# system, racks, radix -> units, leaves, uplinks per leaf, spines, groups, leaf-spine parallel, cables
PLANS = [
    ("gb200", 1, 64, (1, 4, 18, 2, 1, 9, 72, 72)),
    ("gb200", 2, 64, (2, 8, 18, 3, 1, 6, 144, 144)),
    ("gb200", 8, 64, (8, 32, 18, 9, 1, 2, 576, 576)),
    ("gb200", 16, 64, (16, 64, 18, 18, 1, 1, 1152, 1152)),
    ("gb200", 17, 64, (17, 68, 18, 36, 2, 1, 1224, 1224)),       # spine groups: rail r → group r mod 2
    ("gb200", 64, 64, (64, 256, 18, 72, 4, 1, 4608, 4608)),
    ("gb300", 4, 144, (1, 4, 72, 2, 1, 36, 288, 288)),           # Q3400: a unit is 4 racks
    ("gb300", 5, 144, (2, 8, 72, 4, 1, 18, 360, 576)),           # the second unit's leaves built whole
    ("gb300", 32, 144, (8, 32, 72, 18, 1, 4, 2304, 2304)),       # ⌈2304/144⌉ = 16 → 18, a divisor of 72
]


@pytest.mark.parametrize(("system", "racks", "radix", "want"), PLANS,
                         ids=[f"{s}-{r}r" for s, r, _, _ in PLANS])
def test_plan(system, racks, radix, want):
    p = plan_nvl72(system, racks, radix)
    assert (p.units, p.leaves, p.uplinks, p.spines, p.groups, p.leaf_parallel, p.cables["node-leaf"],
            p.cables["leaf-spine"]) == want
    assert p.gpus == 72 * racks and p.trays == 18 * racks


@pytest.mark.parametrize(("system", "racks", "fabric"), [("gb200", 2, "ib"), ("gb200", 8, "ib"),
                                                       ("gb300", 5, "ib"), ("gb200", 2, "roce")])
def test_built_fabric_is_the_plan(system, racks, fabric):
    f = nvl72(racks, system, fabric)
    p = plan_nvl72(system, racks, f.catalog.get(f.meta["params"]["switch"]).ports)
    info = fabric_info(f)
    sw = {tier: sum(v for k, v in kinds.items() if k.endswith("switch")) for tier, kinds in info["tiers"].items()}
    assert (info["counts"]["server"], info["counts"]["gpu"], sw["leaf"], sw["spine"]) == \
        (p.trays, p.gpus, p.leaves, p.spines)
    assert info["cables_by_tier"] == {"hosts-leaf": p.cables["node-leaf"], "leaf-spine": p.cables["leaf-spine"]}
    doms = nvlink_domains(f)
    assert [d.name for d in doms] == [f"rack{r + 1:02d}" for r in range(racks)]
    assert all(d.explicit and d.n_gpus == 72 and len(d.servers) == 18 for d in doms)


def _peer(f, p: int) -> int:
    """The port at the other end of port ``p``'s cable (-1: none)."""
    c = int(f.ports_t.cable[p])
    if c < 0:
        return -1
    a, b = int(f.cables_t.port_a[c]), int(f.cables_t.port_b[c])
    return b if a == p else a


def test_tray_nic_r_goes_to_rail_r_of_its_unit_and_uplinks_follow_the_tray_ports():
    f = nvl72(2, "gb200")
    t = f.devices_t
    for rack in (1, 2):
        for ct in (1, 18):
            tray = f.find(f"rack{rack:02d}-ct{ct:02d}")
            nics = [int(k) for k in f.children_ids(tray) if t.kind[k] == KIND_CODE[NIC]]
            nics.sort(key=lambda k: int(t.local[k]))
            peers = [f.port_name(_peer(f, int(t.first_port[k]))) for k in nics]
            assert peers == [f"su{rack}-rail{r}:{ct}" for r in range(4)]
    # su1-rail0: trays on 1-18, uplinks on 19-36 (6 to each of 3 spines), 37-64 free
    leaf = f.find("su1-rail0")
    used = [p for p in range(1, 65) if _peer(f, f.port_id(leaf, p)) >= 0]
    assert used == list(range(1, 37))


def test_partitions_are_whole_trays_and_split_nvlink():
    f = nvl72(1, "gb200", partition=36)
    assert f.meta["nvlink_partitions"] == [{"domain": "rack01", "gpus": list(range(0, 36))},
                                           {"domain": "rack01", "gpus": list(range(36, 72))}]
    m = nvlink_map(f)
    (d,) = m.domains
    assert sorted(np.unique(m.group[d.gpus]).tolist()) == [0, 1]
    assert (m.group[d.gpus[:36]] == 0).all() and (m.group[d.gpus[36:]] == 1).all()


@pytest.mark.parametrize(("args", "words"), [
    (["--racks", "65"], "--racks 65: 65 GB200 NVL72 racks on 64-port switches cannot be sized (no even spread "
                        "of the leaf uplinks); at most 64 racks"),
    (["--racks", "0"], "--racks 0: must be at least 1"),
    (["--racks", "1", "--partition", "5"], "--partition 5: GPUs per NVLink partition: a multiple of 4 (whole "
                                           "compute trays) that divides 72"),
])
def test_refusals_are_one_line_naming_the_flag(tmp_path, capsys, args, words):
    out = tmp_path / "x.json"
    assert main(["generate", "nvl72", *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"fabricviz: error: {words}"] and not out.exists()


def test_cli_end_to_end(tmp_path, capsys):
    """generate → info --json → bom → route → collective on the file written."""
    path = tmp_path / "nvl72.json"
    assert main(["generate", "nvl72", "--racks", "2", "-o", str(path)]) == 0
    assert capsys.readouterr().out.strip().endswith(
        "gb200-nvl72-2r: 36 servers, 144 GPUs, 144 NICs, 11 switches, 288 cables")
    assert main(["info", "--json", str(path)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["generator"] == "nvl72" and info["cables_by_tier"] == {"hosts-leaf": 144, "leaf-spine": 144}
    assert info["tiers"]["leaf"] == {"ib_switch": 8} and info["tiers"]["spine"] == {"ib_switch": 3}
    assert main(["bom", "--json", str(path)]) == 0
    bom = json.loads(capsys.readouterr().out)["lines"]
    counts = {x["part"]: x["count"] for x in bom if x["category"] in ("server", "switch", "nvlink")}
    assert counts == {"GB200-TRAY": 36, "QM9700": 11, "NVL5-SWITCH-TRAY": 18}    # 9 switch trays per rack
    assert main(["route", "--engine", "ftree", str(path)]) == 0
    assert "11 switches, 144 CA ports, 155 LIDs" in capsys.readouterr().out
    assert main(["collective", str(path), "--op", "allreduce", "--algo", "ring", "--sizes", "1GiB", "--json"]) == 0
    run = json.loads(capsys.readouterr().out)
    assert (run["gpus"], run["servers"], run["channels"]) == (144, 2, 72)
    assert round(run["rows"][0]["busbw_GBps"], 2) == 629.98        # NVLink-bound: 18 links × 50 GB/s per GPU
    f = load_fabric(path)
    assert [d.name for d in nvlink_domains(f)] == ["rack01", "rack02"]


@pytest.mark.parametrize(("system", "racks"), [("gb200", 8), ("gb300", 8)])
def test_layout_keeps_every_rack_and_unit_apart(system, racks):
    """Each unit (its leaves and its racks' trays) and each rack's trays in a rectangle of its own:
    the canvas draws a collapsed rack over its trays' rectangle and a unit's box round the unit."""
    from fabricviz.generate.geometry import device_rects
    f = nvl72(racks, system)

    def box(names):
        r = device_rects(f, np.array([f.find(n) for n in names]))
        return r[0].min(), r[1].min(), r[2].max(), r[3].max()

    def apart(boxes):
        return all(a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
                   for i, a in enumerate(boxes) for b in boxes[i + 1:])
    trays = {d.name: [f.name_of(int(s)) for s in d.servers] for d in nvlink_domains(f)}
    assert apart([box(v) for v in trays.values()])
    per = f.meta["plan"]["racks_per_unit"]
    names = list(trays)
    units = [[f"su{u + 1}-rail{r}" for r in range(4)] + sum((trays[n] for n in names[u * per:(u + 1) * per]), [])
             for u in range(f.meta["plan"]["units"])]
    assert apart([box(u) for u in units])
