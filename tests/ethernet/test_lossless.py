"""Buffer budgets per switch, XOFF/XON/ECN per port, the lint rule, `fabricviz headroom`, catalog.

Worked by hand (see test_headroom.py for the per-port terms):

* SN4700 buffer 64 MiB = 67,108,864 B; reserves 8 queues × 4,096 B = 32,768 B per cabled port.
* leaf with a 3 m DAC (139,346 B) and a 100 m SMF (186,870 B), priority 3 only: headroom
  326,216 B, reserved 65,536 B, shared 67,108,864 − 326,216 − 65,536 = 66,717,112 B. With
  priorities 3 and 4 the headroom doubles: 652,432 B, shared 66,390,896 B.
  XOFF = min(1.25 × Kmax(400G) = 4,000,000, α/(1+α) × shared = 33,358,556) = 4,000,000 B;
  XON = XOFF − 2 × 9216 = 3,981,568 B; ECN at 400G: Kmin 800,000 B, Kmax 3,200,000 B, Pmax 0.2.
* 10 km single-mode runs at 400G: cable term 2 × 10,000 m × 4.8953867 ns/m × 400 Gb/s / 8
  = 4,895,386.66 B, headroom 137,916 + that = 5,033,303 B a port. On an SN4700:
  10 runs: 50,333,030 + 327,680 = 50,660,710 B = 75.5 % (fits, no finding);
  11 runs: 55,366,333 + 360,448 = 55,726,781 B = 83.0 % (fits, lint warning);
  14 runs: 70,466,242 + 458,752 = 70,924,994 B, over by 3,816,130 B (lint error, CLI exit 1).
"""

import json
import math

import pytest

from fabricviz.check.lint import RULES, lint
from fabricviz.cli import main
from fabricviz.ethernet.buffers import ALPHA, budget
from fabricviz.ethernet.lossless import lossless_plan
from fabricviz.ethernet.roce_meta import RoceSettings, check_roce, roce_settings, to_meta
from fabricviz.formats.native import save_fabric
from fabricviz.model import CatalogError
from fabricviz.model.catalog import Catalog, Part
from fabricviz.model.fabric import Fabric

DAC3 = {"id": "T-400G-DAC3", "kind": "cable", "name": "test 400GbE passive copper, 3 m",
        "cable_type": "dac", "tech": "eth", "max_rate": "400GbE", "reach_m": 3, "lengths_m": [3]}
LR4 = {"id": "T-400G-LR4", "kind": "cable", "name": "test 400GbE LR4 transceivers + single-mode fibre",
       "cable_type": "transceiver", "tech": "eth", "max_rate": "400GbE", "reach_m": 10000,
       "lengths_m": [10000]}
MIB64 = 64 * 2**20


def catalog():
    return Catalog.default().with_parts([Part.from_dict(DAC3, "t"), Part.from_dict(LR4, "t")])


def two_links():
    f = Fabric(catalog())
    f.add_device("eth_switch", "SN4700", name="leaf")
    f.add_device("eth_switch", "SN4700", name="spine")
    f.add_cable("leaf:1", "spine:1", 3.0, part="T-400G-DAC3")
    f.add_cable("leaf:2", "spine:2", 100.0, part="400G-DR4")
    return f


def long_runs(n):
    """Two SN4700 joined by ``n`` 10 km single-mode links (a DCI pair)."""
    f = Fabric(catalog(), name=f"dci{n}")
    f.add_device("eth_switch", "SN4700", name="siteA")
    f.add_device("eth_switch", "SN4700", name="siteB")
    for i in range(1, n + 1):
        f.add_cable(f"siteA:{i}", f"siteB:{i}", 10000.0, part="T-400G-LR4")
    return f


# ---------------------------------------------------------------- budgets and thresholds
def test_switch_budget_and_thresholds():
    f = two_links()
    plan = lossless_plan(f)
    leaf = f.find("leaf")
    b = plan.switches[leaf]
    assert (b.buffer_bytes, b.estimated, b.part, b.ports) == (MIB64, False, "SN4700", 2)
    assert (b.headroom_total, b.reserved, b.shared_pool) == (326_216, 65_536, 66_717_112)
    assert (b.alpha, b.dynamic_th, b.fits) == (1.0, 0, True)
    assert b.use == pytest.approx(391_752 / MIB64)
    p = f.port_id("leaf:2")
    assert (plan.xoff_bytes[p], plan.xon_bytes[p]) == (4_000_000, 3_981_568)
    assert (plan.ecn_kmin_bytes[p], plan.ecn_kmax_bytes[p], plan.ecn_pmax[p]) == (800e3, 3200e3, 0.2)
    two = lossless_plan(f, priorities=(4, 3))
    assert two.priorities == (3, 4)
    assert (two.switches[leaf].headroom_total, two.switches[leaf].shared_pool) == (652_432, 66_390_896)


def test_ecn_override_from_meta():
    f = two_links()
    f.meta["roce"] = {"ecn": {"kmin": 150_000, "kmax": 1_500_000, "pmax": 0.1}}
    plan = lossless_plan(f)
    p = f.port_id("spine:1")
    assert (plan.ecn_kmin_bytes[p], plan.ecn_kmax_bytes[p], plan.ecn_pmax[p]) == (150e3, 1.5e6, 0.1)
    assert plan.xoff_bytes[p] == 1_875_000                    # 1.25 × Kmax


def test_overflowing_switch_with_many_long_optics():
    f = long_runs(14)
    plan = lossless_plan(f)
    b = plan.switches[f.find("siteA")]
    assert plan.headroom_bytes[f.port_id("siteA:1")] == 5_033_303
    assert plan.terms(f.port_id("siteA:1"))["cable_propagation"] == pytest.approx(4_895_386.66, abs=0.01)
    assert (b.headroom_total, b.reserved, b.shared_pool, b.fits) == (70_466_242, 458_752, -3_816_130, False)
    assert plan.overflowing == [f.find("siteA"), f.find("siteB")]
    assert plan.xoff_bytes[f.port_id("siteA:1")] == 0.0       # nothing shared left to pause at


def test_unknown_buffer_always_fits():
    b = budget(0.0, False, [1e9], 1)
    assert math.isnan(b.buffer_bytes) and b.estimated and b.fits and math.isnan(b.use)
    assert b.alpha == ALPHA == 1.0


# ---------------------------------------------------------------- lint
def test_lint_rule_error_warning_and_quiet():
    assert RULES["roce-headroom"].severity == "error"
    quiet = lint(long_runs(10), rules=["roce-headroom"])
    assert quiet.findings == []
    warn = lint(long_runs(11), rules=["roce-headroom"]).findings
    assert [(x.severity, x.where) for x in warn] == [("warning", "siteA"), ("warning", "siteB")]
    assert "take 83 % of the 64.0 MiB buffer of SN4700" in warn[0].message
    err = lint(long_runs(14), rules=["roce-headroom"]).findings
    assert [x.severity for x in err] == ["error", "error"]
    assert "exceed the 64.0 MiB buffer of SN4700 by 3.6 MiB" in err[0].message
    assert len(err[0].ports) == 14 and err[0].devices == (long_runs(14).find("siteA"),)


def test_lint_bad_roce_meta_is_a_warning():
    f = two_links()
    f.meta["roce"] = {"mtu": 20000}
    (x,) = lint(f, rules=["roce-headroom"]).findings
    assert (x.severity, x.where) == ("warning", "meta.roce") and "mtu 20000" in x.message


# ---------------------------------------------------------------- CLI
def run(args, capsys):
    rc = main(args)
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_json_and_exit_codes(tmp_path, capsys):
    ok, bad = tmp_path / "ok.json", tmp_path / "bad.json"
    save_fabric(two_links(), ok)
    save_fabric(long_runs(14), bad)
    rc, out, err = run(["headroom", str(ok), "--json"], capsys)
    assert (rc, err) == (0, "")
    doc = json.loads(out)
    assert (doc["mtu"], doc["method"], doc["priorities"]) == (9216, "ieee", [3])
    row = next(r for r in doc["ports"] if r["port"] == "leaf:2")
    assert {k: row[k] for k in ("switch", "speed_gbps", "cable_m", "cable_type", "medium",
                                "headroom_bytes", "headroom_nvidia_bytes")} == {
        "switch": "leaf", "speed_gbps": 400.0, "cable_m": 100.0, "cable_type": "transceiver",
        "medium": "smf", "headroom_bytes": 186_870, "headroom_nvidia_bytes": 74_272}
    assert sum(row["terms"].values()) == pytest.approx(186_869.87, abs=0.01)
    sw = next(s for s in doc["switches"] if s["switch"] == "leaf")
    assert {k: sw[k] for k in ("buffer_bytes", "estimated", "headroom_total", "reserved", "shared_pool",
                               "alpha", "fits")} == {
        "buffer_bytes": MIB64, "estimated": False, "headroom_total": 326_216, "reserved": 65_536,
        "shared_pool": 66_717_112, "alpha": 1.0, "fits": True}
    rc, out, _ = run(["headroom", str(ok), "--method", "nvidia", "--mtu", "1500", "--json"], capsys)
    row = next(r for r in json.loads(out)["ports"] if r["port"] == "leaf:2")
    assert (rc, row["headroom_bytes"], row["headroom_ieee_bytes"]) == (0, 58_840, 171_438)
    rc, out, _ = run(["headroom", str(bad)], capsys)
    assert rc == 1
    assert "headroom does not fit the buffer of: siteA, siteB" in out
    assert "5,033,303" in out and "NO" in out


@pytest.mark.parametrize("extra, fragment", [
    (["--mtu", "100"], "mtu 100: a whole number of bytes, 1500 … 9216"),
    (["--priorities", "3,x"], "--priorities '3,x'"),
    (["--priorities", "8"], "priority 8: an 802.1p priority 0 … 7"),
    (["--method", "cisco"], "argument --method: invalid choice"),
])
def test_cli_bad_arguments_one_line(tmp_path, capsys, extra, fragment):
    ok = tmp_path / "ok.json"
    save_fabric(two_links(), ok)
    rc, out, err = run(["headroom", str(ok), *extra], capsys)
    assert (rc, out) == (2, "") and err.count("\n") == 1 and fragment in err


def test_cli_refuses_an_infiniband_design(tmp_path, capsys):
    f = Fabric()
    f.add_device("ib_switch", "QM9700", name="ib1")
    f.add_device("ib_switch", "QM9700", name="ib2")
    f.add_cable("ib1:1", "ib2:1", 1.0)
    path = tmp_path / "ib.json"
    save_fabric(f, path)
    rc, out, err = run(["headroom", str(path)], capsys)
    assert (rc, out) == (2, "")
    assert err == f"fabricviz: error: {path}: not a RoCE design (no cabled Ethernet switch port)\n"


# ---------------------------------------------------------------- catalog fields and meta
def test_catalog_buffer_fields():
    cat = Catalog.default()
    got = {p.id: (p.buffer_bytes, p.buffer_estimated) for p in cat.by_kind("eth_switch")}
    assert got == {"SN2700": (16 * 2**20, True), "SN3700": (42 * 2**20, False), "SN4700": (MIB64, False), "SN5400": (160 * 2**20, True),
                   "SN5600": (160 * 2**20, True)}
    assert all(p.buffer_source for p in cat.by_kind("eth_switch"))
    assert cat.get("QM9700").buffer_bytes == 0
    d = cat.get("SN5600").to_dict()
    assert (d["buffer_bytes"], "buffer_estimated" not in d) == (160 * 2**20, True)   # default True
    assert Part.from_dict(cat.get("SN4700").to_dict(), "x").buffer_estimated is False
    sw = {"id": "X", "kind": "eth_switch", "name": "x", "ports": 4, "port": "400GbE"}
    with pytest.raises(CatalogError, match="buffer_bytes: must be a non-negative number"):
        Part.from_dict({**sw, "buffer_bytes": -1}, "p")
    with pytest.raises(CatalogError, match="buffer_bytes: unknown field for a ib_switch part"):
        Part.from_dict({"id": "Y", "kind": "ib_switch", "name": "y", "ports": 4, "port": "4xNDR",
                        "buffer_bytes": 1}, "p")


def test_roce_meta_defaults_overrides_and_refusals():
    assert check_roce(None) == RoceSettings(9216, (3,), "ieee", "nvidia", {})
    s = roce_settings({"roce": {"mtu": 4200, "priorities": [4, 3], "method": "nvidia", "dcqcn": "paper"}},
                      mtu=9000)
    assert (s.mtu, s.priorities, s.method, s.dcqcn) == (9000, (3, 4), "nvidia", "paper")
    assert check_roce(to_meta(s)) == s
    for bad, fragment in [({"mtu": 9216.5}, "mtu 9216.5"), ({"dcqcn": "x"}, "dcqcn preset 'x'"),
                          ({"colour": 1}, "unknown key 'colour'"), ({"ecn": {"kmin": 5, "kmax": 1}}, "kmin 5"),
                          ({"ecn": {"pmax": 2}}, "pmax 2"), ([], "an object")]:
        with pytest.raises(ValueError, match=fragment):
            check_roce(bad)


def test_headroom_is_sized_at_the_links_rate_not_the_ports_top_speed():
    """An SN5600 (800G ports) cabled to a 400G NIC fills its headroom at 400G: the plan takes the
    cable's negotiated rate, as the simulator does, not the switch port's top speed."""
    import numpy as np

    from fabricviz.ethernet.headroom import headroom_terms
    from fabricviz.ethernet.lossless import lossless_plan
    from fabricviz.model import Fabric
    from fabricviz.model.tech import rates_gbps
    f = Fabric(name="one-link")
    f.add_device("eth_switch", "SN5600", name="sw")
    f.add_device("nic", "CX7-1P", name="nic", mode="400GbE")
    sw_port = "sw:1"
    f.add_cable(sw_port, "nic:1", 3.0)
    plan = lossless_plan(f)
    pt, ct = f.ports_t, f.cables_t
    p = f.port(sw_port).id
    assert plan.lossless[p]
    link = float(rates_gbps(ct.tech[[pt.cable[p]]], ct.speed[[pt.cable[p]]], ct.width[[pt.cable[p]]])[0])
    top = float(rates_gbps(pt.tech[[p]], pt.speed[[p]], pt.width[[p]])[0])
    assert (link, top) == (400.0, 800.0) and plan.gbps[p] == link
    want = headroom_terms("ieee", np.array([link]), np.array([3.0]), np.array([str(plan.medium[p])]), plan.mtu)
    assert plan.headroom_bytes[p] == np.ceil(sum(float(v[0]) for v in want.values()))
