"""A seeded storm of model calls, valid and invalid: every refusal is a FabricError that
changes nothing (signature and native bytes), and nothing else is ever raised."""

from __future__ import annotations

import random

import numpy as np
import pytest

from fabricviz.formats.native import dumps, loads
from fabricviz.model import Fabric, FabricError

CALLS = 4500
INF, NAN = float("inf"), float("nan")
# (values a valid call takes, values only an invalid call takes)
PARTS = (("QM9700", "SN4700", "CX7-1P", "CX6-HDR", "H100-SXM5"), ("NDR-DAC", "NOPE", None, ""))
SERVERS = (("NODE-1G-NDR", "NODE-1G-HDR", "DGX-H100"), ("QM9700", "NOPE", ""))
KINDS = (("gpu", "nic", "ib_switch", "eth_switch", "server"), ("bogus", ""))
MODES = ((None, None, None), ("4xNDR", "400GbE", "2xNDR", "4xHDR", "bogus", "800GbE", "1xSDR"))
NUMBERS = ((0.0, 12.5, -300.0, 3.0e38), (INF, -INF, NAN, 1e39, "x"))
TIERS = ((-1, 0, 2, 9), (128, -129, 1000, 2.5))
GUIDS = ((0x248A070300000100, 0x248A070300000200, 1 << 62), (0, -1, 2 ** 64, 2 ** 64 - 1, 2 ** 70))
LENGTHS = ((1.0, 2.0, 3.0), (30.0, 0.0, -1.0, INF, NAN, 1e39))
RATES = (("4xNDR", "2xNDR", "4xHDR", "400GbE", "100GbE", "2xHDR"), ("bogus", "", "1xSDR", "800GbE"))


def start() -> Fabric:
    f = Fabric(name="storm")
    f.add_device("ib_switch", "QM9700", name="ib1", tier=1)
    f.add_device("eth_switch", "SN4700", name="eth1", tier=1)
    f.add_device("server", "NODE-1G-NDR", name="h1")
    f.add_device("server", "NODE-1G-NDR", name="h2", mode="400GbE")
    f.add_device("server", "DGX-H100", name="dgx1")
    f.add_cable("h1/mlx5_0:1", "ib1:1", 2.0)
    f.add_cable("h2/mlx5_0:1", "eth1:1", 2.0)
    f.add_cable("dgx1/mlx5_3:1", "ib1:2", 3.0)
    return f


class ModelStorm:
    def __init__(self, f: Fabric, rng: random.Random) -> None:
        self.f, self.rng = f, rng
        self.removed = []
        self.snaps = []
        self.n = 0

    def any(self, seq):
        return self.rng.choice(seq)

    def dev(self):
        ids = self.f.device_ids().tolist()
        r = self.rng.random()
        if not ids or r < 0.05:
            return self.any((10 ** 6, -1, "nobody"))
        d = self.any(ids)
        return self.f.name_of(d) if r < 0.3 else d

    def port(self):
        pt = self.f.ports_t
        r = self.rng.random()
        if not pt.n or r < 0.05:
            return self.any((10 ** 6, -1, "ib1:999", "nobody:1", "ib1"))
        alive = np.flatnonzero(self.f.devices_t.alive[pt.device])
        if not len(alive):
            return -1
        p = int(self.any(alive.tolist()))
        return self.f.port_name(p) if r < 0.3 else p

    def port_id(self):
        p = self.port()
        try:
            return self.f.port_id(p)
        except FabricError:
            return 10 ** 6

    def cable(self):
        ids = self.f.cable_ids().tolist()
        return self.any(ids) if ids and self.rng.random() > 0.05 else self.any((10 ** 6, -1))

    def name(self):
        self.n += 1
        taken = self.f.name_of(int(self.any(self.f.device_ids().tolist()))) if len(self.f) else "x"
        return self.any((f"n{self.n}", f"n{self.n}", taken, "", "  ", "a\tb", 'q"', taken + "/gpu0",
                         "h1/gpu7", " h9 "))

    def pick(self, values):
        """A value of a valid call (most calls), or any, invalid ones included."""
        good, bad = values
        return self.rng.choice(good if self.ok else good + bad)

    def cable_ends(self, ids: bool = False):
        """Two free ports that can take a cable (valid calls), else any two ports."""
        pt = self.f.ports_t
        other = self.port_id if ids else self.port
        alive = np.flatnonzero(self.f.devices_t.alive[pt.device] & (pt.cable < 0) & (pt.tech > 0))
        if not self.ok or not len(alive):
            return other(), other()
        a = int(self.rng.choice(alive.tolist()))
        same = alive[(pt.tech[alive] == pt.tech[a]) & (pt.device[alive] != pt.device[a])]
        return a, int(self.rng.choice(same.tolist())) if len(same) else other()

    def call(self):
        """One random call: (label, function)."""
        f, a, v = self.f, self.any, self.pick
        self.ok = self.rng.random() < 0.6
        op = a(("add_device", "add_device", "add_device", "add_servers", "add_devices", "add_cable",
                "add_cable", "add_cables", "rename", "move", "set_positions", "set_guid", "set_port_guid",
                "bind", "set_tier", "set_port_state", "set_port_rate", "set_cable", "remove_devices",
                "remove_cables", "restore", "restore", "snapshot", "put_back"))
        if op == "add_device":
            kind = v(KINDS)
            part = v(SERVERS) if kind == "server" and self.ok else v(PARTS)
            if self.ok and kind != "server":
                part = {"gpu": "H100-SXM5", "nic": "CX7-1P", "ib_switch": "QM9700", "eth_switch": "SN4700"}[kind]
            guid = v(((None,) * 3 + GUIDS[0], GUIDS[1])) if kind == "ib_switch" else None
            kw = dict(kind=kind, part=part, name=a((None, None, self.name())), x=v(NUMBERS),
                      y=v(((0.0, 5.0), (NAN,))), tier=v(TIERS), mode=v(MODES), guid=guid)
            return f"add_device({kw})", lambda: f.add_device(**kw)
        if op == "add_servers":
            names = v(((None, [self.name(), self.name()]), (["s", "s"],)))
            xs = v((([1.0, 2.0],), ([INF, 1.0], [1.0, 2.0, 3.0])))
            args = (v(SERVERS), names, xs, 0.0)
            kw = dict(mode=v(MODES), tier=v(TIERS))
            return f"add_servers{args} {kw}", lambda: f.add_servers(*args, **kw)
        if op == "add_devices":
            kind = v((("gpu", "nic", "ib_switch", "eth_switch"), ("server", "bogus")))
            part = {"gpu": "H100-SXM5", "nic": "CX7-1P", "ib_switch": "QM9700", "eth_switch": "SN4700"
                    }.get(kind) if self.ok else v(PARTS)
            args = (kind, v(((1, 3), (-1, 0))), part)
            kw = dict(xs=v(((0.0, [1.0, 2.0, 3.0]), (NAN,))), tier=v(TIERS), mode=v(MODES),
                      guids=v(((None,), (np.array([5, 6, 7], np.uint64),))))
            return f"add_devices{args} {kw}", lambda: f.add_devices(*args, **kw)
        if op == "add_cable":
            args = (*self.cable_ends(), v(LENGTHS))
            kw = dict(ctype=v(((None, None, "aoc"), ("dac", "transceiver", "rope"))),
                      part=v(((None,), ("NDR-DAC", "400G-AOC", "QM9700", "NOPE"))))
            return f"add_cable{args} {kw}", lambda: f.add_cable(*args, **kw)
        if op == "add_cables":
            (p1, q1), (p2, q2) = self.cable_ends(True), self.cable_ends(True)
            pa, pb = np.array([p1, p2]), np.array([q1, q2][: a((1, 2, 2))])
            return f"add_cables({pa}, {pb})", lambda: f.add_cables(pa, pb, v(((1.0, [1.0, 2.0]), (NAN,))))
        if op == "rename":
            args = (self.dev(), self.name())
            return f"rename{args}", lambda: f.rename(*args)
        if op == "move":
            ids, dx = [self.dev(), self.dev()], v(((1.5, -20.0), NUMBERS[1] + (1e38, 3.0e38)))
            return f"move({ids}, {dx})", lambda: f.move(ids, dx, 0.0)
        if op == "set_positions":
            ids = np.array([d for d in (self.dev(), self.dev()) if isinstance(d, int)], np.int64)
            xs = np.array([v(NUMBERS[:1] + (NUMBERS[1][:-1],))] * len(ids))
            return f"set_positions({ids}, {xs})", lambda: f.set_positions(ids, xs, np.zeros(len(ids)))
        if op == "set_guid":
            taken = int(f.devices_t.guid[int(a(f.device_ids().tolist()))]) if len(f) else 5
            d = self.dev()
            if self.ok and len(f.device_ids(["ib_switch", "nic"])):
                d = int(a(f.device_ids(["ib_switch", "nic"]).tolist()))
            args = (d, v((GUIDS[0] + (self.rng.getrandbits(56) << 4,) * 3, GUIDS[1] + (taken,))))
            return f"set_guid{args}", lambda: f.set_guid(*args)
        if op == "set_port_guid":
            args = (self.port(), v(GUIDS))
            return f"set_port_guid{args}", lambda: f.guids.set_port_guid(*args)
        if op == "bind":
            args = (self.dev(), a((None, self.dev())))
            return f"bind{args}", lambda: f.bind(*args)
        if op == "set_tier":
            ids = np.array([d for d in (self.dev(),) if isinstance(d, int)], np.int64)
            tier = v(TIERS)
            return f"set_tier({ids}, {tier})", lambda: f.set_tier(ids, tier)
        if op == "set_port_state":
            args = (self.port(), v((("down", "init", "armed", "active", "disabled"), ("melted", ""))))
            return f"set_port_state{args}", lambda: f.set_port_state(*args)
        if op == "set_port_rate":
            args = (self.port(), v(RATES))
            return f"set_port_rate{args}", lambda: f.set_port_rate(*args)
        if op == "set_cable":
            args = (self.cable(),)
            kw = dict(length_m=v(((None, 0.5, 2.0, 4.0), (50.0, -1.0, INF, NAN, 1e39))),
                      ctype=v(((None, None, "aoc"), ("dac", "transceiver", "rope"))),
                      part=v(((None,), ("NDR-DAC", "400G-AOC", "NOPE"))))
            return f"set_cable{args} {kw}", lambda: f.set_cable(*args, **kw)
        if op == "remove_devices":
            ids = [self.dev() for _ in range(a((1, 2)))]
            return f"remove_devices({ids})", lambda: self.removed.append(f.remove_devices(ids))
        if op == "remove_cables":
            ids = [self.cable()]
            return f"remove_cables({ids})", lambda: self.removed.append(f.remove_cables(ids))
        if op == "snapshot":
            d = self.dev()

            def snap():
                dev = f.device(d)
                self.snaps.append(f.rows.snapshot([d], dev.port_ids, [p.cable.id for p in dev.ports if p.cable]))
            return f"snapshot({d})", snap
        if op == "put_back":
            if not self.snaps:
                return "put_back(nothing)", lambda: None
            k = self.rng.randrange(len(self.snaps))
            return f"put_back(#{k})", lambda: f.rows.put_back(self.snaps[k])
        if not self.removed:
            return "restore(nothing)", lambda: None
        k = self.rng.randrange(len(self.removed))
        return f"restore(#{k})", lambda: f.restore(self.removed[k])


def raw_state(f: Fabric) -> tuple:
    """Every row of every table (dead ones too), the names and the counters, as bytes."""
    cols = tuple(t.column(c).tobytes() for t in (f.devices_t, f.ports_t, f.cables_t)
                 for c in sorted(t._cols))
    return cols, tuple(f.names.own), tuple(sorted(f.names.by_name.items())), tuple(f.parts.ids), \
        tuple(sorted(f.names.auto.items())), f.guids.next


def storm(seed: int, calls: int) -> dict[str, int]:
    """Run ``calls`` random calls on a fresh small fabric; raise AssertionError on a broken rule."""
    rng = random.Random(seed)
    f = start()
    s = ModelStorm(f, rng)
    seen = {"accepted": 0, "refused": 0}
    for i in range(calls):
        label, fn = s.call()
        full = i % 5 == 0       # the raw rows every call; signature and native bytes every 5th
        raw = raw_state(f)
        sig, text = (f.signature(), dumps(f)) if full else (None, None)
        try:
            fn()
        except FabricError as exc:
            seen["refused"] += 1
            msg = str(exc)
            assert msg and "\n" not in msg, f"seed {seed} call {i} {label}: message {msg!r}"
            assert raw_state(f) == raw, f"seed {seed} call {i} {label}: refused ({msg}) but changed the model"
            if full:
                assert f.signature() == sig and dumps(f) == text, \
                    f"seed {seed} call {i} {label}: refused ({msg}) but changed the design"
            continue
        seen["accepted"] += 1
        if i % 23 == 0:         # an accepted design always saves, and loads back to the same bytes
            text = dumps(f)
            assert dumps(loads(text)) == text, f"seed {seed} call {i} {label}: save/load differs"
        if not 5 <= len(f) <= 120:        # keep the design small and not empty: start again
            f = start()
            s = ModelStorm(f, rng)
    return seen


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.slow
def test_every_refused_model_call_changes_nothing_and_is_a_fabric_error(seed):
    seen = storm(seed, CALLS // 3)
    # the storm reaches both outcomes in quantity
    assert seen["accepted"] > 150 and seen["refused"] > 300, seen


def test_add_server_with_a_bogus_mode_leaves_nothing_behind():
    f = start()
    sig, n = f.signature(), f.devices_t.n
    with pytest.raises(FabricError, match=r"^CX7-1P: mode 'bogus': unknown link rate 'bogus'"):
        f.add_device("server", "NODE-1G-NDR", mode="bogus")
    assert f.signature() == sig and f.devices_t.n == n and f.find("node1") is None


@pytest.mark.parametrize("call, message", [
    (lambda f: f.add_device("ib_switch", "QM9700", tier=1000),
     "new ib_switch: tier 1000 must be a whole number from -1 to 127"),
    (lambda f: f.add_device("ib_switch", "QM9700", name="sw", x=INF), "sw: x inf must be a finite number"),
    (lambda f: f.add_device("ib_switch", "QM9700", name="sw", guid=2 ** 64),
     "sw: GUID 18446744073709551616 must be a whole number from 0 to 18446744073709551615"),
    (lambda f: f.set_guid(f.find("ib1"), -1), "ib1: GUID -1 must be a non-zero 64-bit value"),
    (lambda f: f.move([f.find("ib1")], 1e39, 0), "move of ib1: dx 1e+39 must be a finite number within ±3.4e+38"),
    (lambda f: f.move([f.find("ib1")], 3.0e38, 0), "ib1: x 6e+38 must be a finite number within ±3.4e+38"),
    (lambda f: f.set_positions(np.array([f.find("eth1")]), np.array([NAN]), np.array([0.0])),
     "layout: x nan must be a finite number"),
    (lambda f: f.set_tier(np.array([f.find("ib1")]), 300), "ib1: tier 300 must be a whole number from -1 to 127"),
    (lambda f: f.set_cable(0, length_m=1e39),
     "h1/mlx5_0:1 – ib1:1: cable length 1e+39 must be a finite number within ±3.4e+38"),
    (lambda f: f.set_port_rate(f.port_id("h1/mlx5_0:1"), "400GbE"),
     "h1/mlx5_0:1: cannot run at 400GbE: it is cabled to ib1:1 (4xNDR)"),
    (lambda f: f.set_port_rate(f.port_id("h1/mlx5_0:1"), "bogus"),
     "h1/mlx5_0:1: unknown link rate 'bogus' (use e.g. 4xNDR, 2xHDR, HDR100, 400GbE)"),
    (lambda f: f.set_port_state(10 ** 6, "down"), "no port with id 1000000"),
])
def test_values_that_do_not_fit_the_columns_are_refused_naming_the_device(call, message):
    f = start()
    f.set_positions(np.array([f.find("ib1")]), np.array([3.0e38]), np.array([0.0]))
    sig = f.signature()
    with pytest.raises(FabricError) as exc:
        call(f)
    assert str(exc.value).startswith(message), str(exc.value)
    assert f.signature() == sig


def test_removing_a_nic_and_restoring_it_brings_back_the_gpu_binding_and_port_states():
    f = start()
    f.set_port_state(f.port_id("ib1:1"), "active")
    text = dumps(f)
    r = f.remove_devices([f.find("h1/mlx5_0")])
    assert f.device("h1/gpu0").nic is None and f.port("ib1:1").state == "down"
    f.restore(r)
    assert f.device("h1/gpu0").nic.name == "h1/mlx5_0" and f.port("ib1:1").state == "active"
    assert dumps(f) == text


def test_exact_rows_put_back_a_derived_child_name_and_a_zero_guid():
    f = start()
    text = dumps(f)
    nic = f.find("h2/mlx5_0")
    f.remove_cables([f.port("h2/mlx5_0:1").cable.id])
    text = dumps(f)
    before = f.rows.snapshot([nic], f.device(nic).port_ids)
    f.rename(nic, "fast0")
    f.set_port_rate(f.port_id("fast0:1"), "4xNDR")
    f.set_guid(nic, 0x248A070300ABCD00)
    assert f.rows.rows_problem(before) is None and not f.rows.same_rows(before)
    f.rows.put_back(before)
    assert dumps(f) == text and f.device(nic).guid == 0 and f.names.own[nic] is None
    assert f.rows.same_rows(before)


def test_a_stale_restore_is_refused_before_anything_changes():
    f = start()
    r = f.remove_devices([f.find("h1")])
    f.add_device("ib_switch", "QM9700", name="h1/gpu0")      # takes a restored child's derived name
    sig = f.signature()
    with pytest.raises(FabricError, match="^cannot restore: name 'h1/gpu0' is now used by another device$"):
        f.restore(r)
    assert f.signature() == sig


def test_a_nic_turning_infiniband_gets_guids_and_turning_ethernet_drops_them():
    f = start()
    nic = f.find("h2/mlx5_0")
    f.remove_cables([f.port("h2/mlx5_0:1").cable.id])
    assert f.device(nic).guid == 0
    f.set_port_rate(f.port_id(nic, 1), "4xNDR")
    g = f.device(nic).guid
    assert g != 0 and f.port(f.port_id(nic, 1)).guid == g + 1
    text = dumps(f)
    assert dumps(loads(text)) == text
    f.set_port_rate(f.port_id(nic, 1), "400GbE")
    assert f.device(nic).guid == 0 and f.port(f.port_id(nic, 1)).guid == 0
    assert dumps(loads(dumps(f))) == dumps(f)
