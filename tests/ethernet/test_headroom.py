"""PFC headroom per port: every term of the IEEE worst case and of the NVIDIA rule of thumb.

Worked by hand (c = 299,792,458 m/s; 1e9 / c = 3.3356410 ns/m):

* one-way delay per metre: DAC 3.3356410 / 0.70 = 4.7652014 ns/m; SMF 3.3356410 × 1.4676
  = 4.8953867 ns/m.
* 400G fixed IEEE terms: receiver and sender max frame (9216 + 20) = 9,236 B each; pause
  672 BT / 8 = 84 B; interface delay 122,880 BT at 100G kept as time (1.2288 µs) → 491,520 BT
  at 400G = 61,440 B; response delay 463,360 BT = 57,920 B. Sum 137,916 B.
* cable: 3 m DAC 2 × 3 × 4.7652014 ns × 400 Gb/s = 11,436.48 bit = 1,429.56 B → total
  139,345.56 → 139,346 B. 100 m SMF 2 × 100 × 4.8953867 × 400 = 391,630.9 bit = 48,953.87 B
  → total 186,869.87 → 186,870 B.
* MTU 1500: frames 1,520 B → fixed 122,484 B; 3 m DAC 123,914 B; 100 m SMF 171,438 B.
* NVIDIA rule: 2 × MTU + 3,840 + 130 × (m / 100) × Gb/s. MTU 9216: 22,272 + 1,560 (3 m)
  = 23,832 B; + 52,000 (100 m) = 74,272 B. MTU 1500: 6,840 + 1,560 = 8,400 B; 58,840 B.
* congestion.md §1.1's examples: IEEE 100G, 100 m at 5 ns/m, MTU 9216 = 573,056 BT =
  71,632 B; NVIDIA 100G, 100 m = 35,272 B.
"""

import numpy as np
import pytest

from fabricviz.ethernet.headroom import (
    IEEE_TERMS,
    NS_PER_M,
    NVIDIA_TERMS,
    ieee_terms,
    interface_delay_bt,
    nvidia_terms,
    part_medium,
)
from fabricviz.ethernet.lossless import lossless_plan
from fabricviz.model.catalog import Catalog, Part
from fabricviz.model.fabric import Fabric

DAC3 = {"id": "T-400G-DAC3", "kind": "cable", "name": "test 400GbE passive copper, 3 m",
        "cable_type": "dac", "tech": "eth", "max_rate": "400GbE", "reach_m": 3, "lengths_m": [3]}


def two_links(mtu=None):
    """SN4700 leaf – spine: port 1 a 3 m DAC, port 2 a 100 m 400G-DR4 (single-mode)."""
    f = Fabric(Catalog.default().with_parts([Part.from_dict(DAC3, "t")]))
    f.add_device("eth_switch", "SN4700", name="leaf")
    f.add_device("eth_switch", "SN4700", name="spine")
    f.add_cable("leaf:1", "spine:1", 3.0, part="T-400G-DAC3")
    f.add_cable("leaf:2", "spine:2", 100.0, part="400G-DR4")
    if mtu:
        f.meta["roce"] = {"mtu": mtu}
    return f


def test_media_delays_per_metre():
    assert NS_PER_M["dac"] == pytest.approx(4.7652014, abs=1e-7)
    assert NS_PER_M["smf"] == pytest.approx(4.8953867, abs=1e-7)
    assert NS_PER_M["mmf"] == pytest.approx(4.9434199, abs=1e-7)
    cat = Catalog.default()
    media = {pid: part_medium(cat.get(pid).cable_type, pid, cat.get(pid).name, cat.get(pid).reach_m)
             for pid in ("400G-DAC", "400G-AOC", "400G-SR8", "400G-DR4", "800G-DR8", "800G-SR8")}
    assert media == {"400G-DAC": "dac", "400G-AOC": "mmf", "400G-SR8": "mmf", "400G-DR4": "smf",
                     "800G-DR8": "smf", "800G-SR8": "mmf"}


def test_400g_dac_vs_smf_every_ieee_term():
    f = two_links()
    plan = lossless_plan(f)
    dac, smf = f.port_id("leaf:1"), f.port_id("leaf:2")
    assert (plan.medium[dac], plan.medium[smf]) == ("dac", "smf")
    t = plan.terms(dac)
    assert list(t) == list(IEEE_TERMS)
    fixed = {"receiver_max_frame": 9236.0, "pause_frame": 84.0, "interface_delay": 61440.0,
             "response_delay": 57920.0, "sender_max_frame": 9236.0}
    assert {k: v for k, v in t.items() if k != "cable_propagation"} == pytest.approx(fixed)
    assert t["cable_propagation"] == pytest.approx(1429.56, abs=0.01)
    assert plan.terms(smf)["cable_propagation"] == pytest.approx(48953.87, abs=0.01)
    assert plan.headroom_bytes[dac] == 139_346 and plan.headroom_bytes[smf] == 186_870
    # the spine's ends see the same cables
    assert plan.headroom_bytes[f.port_id("spine:2")] == 186_870
    assert plan.cable_m[smf] == 100.0 and plan.gbps[smf] == 400.0


def test_mtu_1500_vs_9216():
    f = two_links(mtu=1500)
    plan = lossless_plan(f)                                   # the design's meta["roce"]
    dac, smf = f.port_id("leaf:1"), f.port_id("leaf:2")
    assert plan.mtu == 1500
    assert plan.terms(dac)["receiver_max_frame"] == 1520.0
    assert (plan.headroom_bytes[dac], plan.headroom_bytes[smf]) == (123_914, 171_438)
    big = lossless_plan(f, mtu=9216)                          # an explicit MTU wins
    assert (big.headroom_bytes[dac], big.headroom_bytes[smf]) == (139_346, 186_870)
    assert big.headroom_bytes[smf] - plan.headroom_bytes[smf] == 2 * (9216 - 1500)


def test_nvidia_rule_of_thumb_same_ports():
    f = two_links()
    dac, smf = f.port_id("leaf:1"), f.port_id("leaf:2")
    plan = lossless_plan(f, method="nvidia")
    assert list(plan.terms(dac)) == list(NVIDIA_TERMS)
    assert plan.terms(smf) == {"sender_mtu": 9216.0, "receiver_mtu": 9216.0, "fixed": 3840.0,
                               "cable_propagation": pytest.approx(52000.0)}
    assert (plan.headroom_bytes[dac], plan.headroom_bytes[smf]) == (23_832, 74_272)
    small = lossless_plan(f, method="nvidia", mtu=1500)
    assert (small.headroom_bytes[dac], small.headroom_bytes[smf]) == (8_400, 58_840)


def test_reference_worked_examples():
    t = ieee_terms(np.array([100.0]), np.array([0.0]), np.array(["smf"]), 9216)
    fixed_bits = 8 * sum(float(v[0]) for v in t.values())
    assert fixed_bits + 2 * 50_000 == 573_056                  # 2 × 100 m × 5 ns/m × 100G
    assert fixed_bits / 8 + 12_500 == 71_632
    n = nvidia_terms(np.array([100.0]), np.array([100.0]), 9216)
    assert sum(float(v[0]) for v in n.values()) == pytest.approx(35_272)


def test_interface_delay_table_and_above_100g():
    bt = interface_delay_bt(np.array([10.0, 25.0, 40.0, 100.0, 200.0, 400.0, 800.0]))
    np.testing.assert_allclose(bt, [8192, 6144, 24576, 122880, 245760, 491520, 983040])


def test_plan_arrays_cover_only_lossless_switch_ports():
    f = two_links()
    f.add_device("eth_switch", "SN4700", name="lonely")       # no cable: not lossless
    plan = lossless_plan(f)
    n = f.ports_t.n
    for a in (plan.headroom_bytes, plan.xoff_bytes, plan.xon_bytes, plan.ecn_kmin_bytes,
              plan.ecn_kmax_bytes, plan.ecn_pmax):
        assert a.shape == (n,)
    assert plan.ports.tolist() == sorted(f.port_id(x) for x in ("leaf:1", "leaf:2", "spine:1", "spine:2"))
    assert np.count_nonzero(plan.headroom_bytes) == 4
    assert plan.terms(f.port_id("lonely:1"))["pause_frame"] == 0.0
    assert plan.method == "ieee" and plan.priorities == (3,)


@pytest.mark.parametrize("kw, fragment", [
    ({"mtu": 100}, "mtu 100"), ({"method": "cisco"}, "method 'cisco'"),
    ({"priorities": (3, 9)}, "priority 9"), ({"priorities": (3, 3)}, "each at most once"),
])
def test_bad_settings_are_refused(kw, fragment):
    with pytest.raises(ValueError, match=fragment):
        lossless_plan(two_links(), **kw)
