"""Flowlet adaptive routing over go-back-N, the mechanism piece by piece (fabricviz/sim/flowlets.py,
GoBackNEveryNak in fabricviz/ethernet/lossy.py): exact numbers on hand-made cases."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.ethernet.lossy import GoBackNEveryNak
from fabricviz.generate import fat_tree
from fabricviz.sim import fluid
from fabricviz.sim.engine import roce_fluid, simulate
from fabricviz.sim.flowlet_kernels import waterfill as compiled_waterfill
from fabricviz.sim.flowlets import FlowletParams, Flowlets, reverse_links
from fabricviz.sim.paths import Routes
from fabricviz.sim.waterfill import waterfill
from fabricviz.sim.workloads import Flows, endpoints


def test_every_out_of_sequence_arrival_naks_and_each_nak_rewinds():
    """One flow: a move leaves 3,000 B on the old path; what overtakes is stale and NAKed; the first
    NAK rewinds to what arrived in order and makes everything in flight stale; a later NAK rewinds
    again: the 2,000 B resent since the first are in flight behind the stale bytes and land (the
    receiver takes the first copy of a packet), and the sender's next 2,000 B repeat them —
    duplicates, thrown away without a NAK."""
    g = GoBackNEveryNak(1, ring_ticks=8)
    g.high[:] = 10000.0                                                     # the sender had sent 10,000 B
    g.reorder(np.array([True]), np.array([3000.0]), np.array([5e-6]))
    assert g.recovering[0] and g.good_quota[0] == 3000
    assert g.deliver(np.array([1000.0]))[0] == 1000 and not g.naks[0]       # the old path's, in order
    assert g.deliver(np.array([4000.0]))[0] == 2000 and g.naks[0]           # 2,000 overtook: stale
    g.schedule(2, np.array([0]), np.array([3]))                             # that NAK lands at tick 5
    seq = g.rewind_due(5, 5e-6, np.array([3000.0]), np.array([10000.0]), np.array([4000.0]))
    assert seq[0] == 3000 and not g.recovering[0]                           # back to what arrived
    assert (g.discard[0], g.dup[0], g.behind[0]) == (4000, 0, 0)            # all in flight is stale
    assert g.deliver(np.array([1500.0]))[0] == 0 and g.naks[0]
    g.schedule(6, np.array([0]), np.array([1]))
    seq = g.sent(np.array([3000.0]), np.array([2000.0]))                    # the resend: 3,000 … 5,000
    assert g.rewind_due(6, 6e-6, np.array([3000.0]), seq, np.array([4500.0]))[0] == 5000
    seq = g.rewind_due(7, 7e-6, np.array([3000.0]), np.array([5000.0]), np.array([4500.0]))
    assert seq[0] == 3000 and (g.discard[0], g.behind[0], g.copies[0]) == (2500, 2000, 2000)
    assert g.deliver(np.array([3000.0]))[0] == 500 and g.naks[0]            # 2,500 stale, then 500 land
    seq = g.sent(seq, np.array([2500.0]))                                   # 2,000 copies, then 500 new
    assert (g.dup[0], g.copies[0], g.retransmitted[0]) == (2000, 0, 4500)   # resent below 10,000
    assert g.deliver(np.array([1500.0]))[0] == 1500 and not g.naks[0]       # the rest of the resend
    assert g.deliver(np.array([2500.0]))[0] == 500 and not g.naks[0]        # 2,000 duplicates, 500 new
    assert (g.stale_bytes[0], g.dup_bytes[0], g.discarded[0]) == (6000, 2000, 8000)
    assert g.nak_count[0] == 3 and g.received[0] == 5500


def test_nothing_lands_in_order_past_the_highest_byte_sent():
    """Counted bytes, not numbered ones: whatever the counters say, the receiver's in-order point never
    passes the highest byte the sender has sent — what would is a copy."""
    g = GoBackNEveryNak(1)
    g.high[:] = 4000.0
    assert g.deliver(np.array([3000.0]))[0] == 3000
    assert g.deliver(np.array([2500.0]))[0] == 1000 and g.dup_bytes[0] == 1500 and not g.naks[0]


def test_duplicates_stay_duplicates_at_the_next_reordering():
    """The starvation of issue 30, piece by piece: a flow has 5,000 B of duplicates in flight when it
    reorders again. They are copies of bytes that arrived — behind the receiver's sequence number —
    so they never NAK, neither while the reordering's NAK is on its way nor after the rewind; only
    what overtook is stale. (Before, they became stale at the rewind: every arrival NAKed and each
    NAK rewound the sender, so a flow reordering every ~100 µs on paused paths never landed a byte.)"""
    g = GoBackNEveryNak(1, ring_ticks=8)
    g.high[:] = 20000.0
    g.dup[:] = 5000.0
    g.reorder(np.array([True]), np.array([8000.0]), np.array([3e-6]))
    assert g.good_quota[0] == 3000                                          # 8,000 on the old path, 5,000 copies
    assert g.deliver(np.array([3000.0]))[0] == 3000 and not g.naks[0]
    assert g.deliver(np.array([2000.0]))[0] == 0 and not g.naks[0]          # copies: no NAK
    seq = g.rewind_due(3, 3e-6, np.array([3000.0]), np.array([20000.0]), np.array([7000.0]))
    assert seq[0] == 3000 and (g.discard[0], g.dup[0]) == (4000, 3000)      # 3,000 copies + 4,000 stale
    assert g.deliver(np.array([7000.0]))[0] == 0 and g.naks[0]
    assert (g.stale_bytes[0], g.dup_bytes[0]) == (4000, 5000)


def test_counters_never_describe_more_than_is_in_flight():
    g = GoBackNEveryNak(2)
    g.good_quota[:] = [500.0, 0.0]
    g.discard[:] = [700.0, 300.0]
    g.dup[:] = [400.0, 900.0]
    g.rewind_due(0, 0.0, np.zeros(2), np.zeros(2), np.array([1000.0, 0.0]))
    # stale bytes go first, duplicates last: a duplicate dropped from the count would land as new
    assert list(g.good_quota) == [500, 0] and list(g.discard) == [100, 0] and list(g.dup) == [400, 0]


def _two_paths() -> Routes:
    """One flow, two sub-paths: NIC link 0, then 1 → 3 (path A) or 2 → 4 (path B)."""
    return Routes(flow=np.array([0, 0]), frac=np.array([0.5, 0.5]), indptr=np.array([0, 3, 6]),
                  links=np.array([0, 1, 3, 0, 2, 4]), n_flows=1, n_links=5)


def test_a_gap_moves_the_flow_to_the_lower_grade_and_the_move_reorders():
    r = _two_paths()
    rate = np.full(5, 12.5e9)                                       # 100 Gb/s
    prm = FlowletParams(gap_s=3e-6, move_chance=1.0, seed=0, mtu_bytes=9000.0)
    fl = Flowlets(r, np.array([0, 3]), 1e-6, rate, np.full(5, 135e3), prm)
    fl.cur[:] = 0                                                   # on path A
    q = np.zeros(5)
    q[1] = 60e3                                                     # A's spine uplink: grade 3 (≥ 27 KB)
    serve = np.zeros(6)
    held = np.zeros(6)
    serve[0] = 12.5e3                                               # a tick's worth reaches the ToR
    assert not fl.tick(1e-6, serve, held, q)[0].any()               # first bytes: no gap
    quiet = np.zeros(6)
    for k in range(2, 6):                                           # paused: nothing for 4 µs
        assert not fl.tick(k * 1e-6, quiet, held, q)[0].any()
    held[1] = 60e3                                                  # A still holds 60 KB at its uplink
    reorder, ahead, nak_at = fl.tick(6e-6, serve, held, q)
    assert fl.cur[0] == 1 and fl.moves[0] == 1                      # moved to B (grade 0)
    # B's first byte is at the ToR: 2 more hops (2 µs, empty queues), before A's 60 KB (4.8 µs + 2
    # hops) is through; its NAK comes back a tick per hop
    assert reorder[0] and ahead[0] == 60e3 and nak_at[0] == 6e-6 + 2e-6 + 3e-6
    assert fl.boundaries[1] == 1 and fl.reorders[0] == 1
    w = fl.weights()
    assert list(w) == [0.0, 1.0]


def test_a_move_takes_the_bytes_before_the_deciding_switch_along():
    """Re-routed at the ToR (hop 1), the bytes still in the NIC queue (entry 0 of path A) go the new
    way (entry 3, path B's NIC entry); those past the ToR stay on A and count as ahead."""
    r = _two_paths()
    prm = FlowletParams(gap_s=3e-6, move_chance=1.0, seed=0, mtu_bytes=9000.0)
    fl = Flowlets(r, np.array([0, 3]), 1e-6, np.full(5, 12.5e9), np.full(5, 135e3), prm)
    fl.cur[:] = 0
    q_link = np.zeros(5)
    q_link[1] = 60e3
    serve = np.zeros(6)
    serve[0] = 12.5e3
    fl.tick(1e-6, serve, np.zeros(6), q_link)
    for k in range(2, 6):
        fl.tick(k * 1e-6, np.zeros(6), np.zeros(6), q_link)
    q, arrive = np.zeros(6), np.zeros(6)
    q[0], arrive[0], q[1], arrive[2] = 8e3, 1e3, 60e3, 2e3
    reorder, ahead, _ = fl.tick(6e-6, serve, q + arrive, q_link, (q, arrive))
    assert fl.cur[0] == 1 and list(q) == [0, 60e3, 0, 8e3, 0, 0] and list(arrive) == [0, 0, 2e3, 1e3, 0, 0]
    assert reorder[0] and ahead[0] == 62e3


def test_no_move_without_a_strictly_lower_grade_nor_without_a_gap():
    r = _two_paths()
    prm = FlowletParams(gap_s=3e-6, move_chance=1.0, seed=0, mtu_bytes=9000.0)
    fl = Flowlets(r, np.array([0, 3]), 1e-6, np.full(5, 12.5e9), np.full(5, 135e3), prm)
    fl.cur[:] = 0
    q = np.zeros(5)
    q[1], q[2] = 30e3, 40e3                                         # both grade 3: no better egress
    serve = np.zeros(6)
    serve[0] = 12.5e3
    for k in range(1, 12):                                          # steady arrivals: no gap either
        fl.tick(k * 1e-6, serve if k in (1, 6, 11) else np.zeros(6), np.zeros(6), q)
    assert fl.cur[0] == 0 and fl.moves[0] == 0 and fl.boundaries[1] == 2


def test_a_nak_sends_the_sender_back_to_the_ack_it_carried():
    """htsim's RoceSrc::processNack sets _highest_sent to the NAK's ack: what landed while the NAK was
    on its way (here 1,000 B) is sent again, as duplicates, with what is in flight behind."""
    g = GoBackNEveryNak(1, ring_ticks=8)
    g.high[:] = 10000.0
    assert g.deliver(np.array([3000.0]))[0] == 3000                      # in order: the ack is 3,000
    g.schedule(0, np.array([0]), np.array([2]))                         # a NAK leaves with it
    assert g.deliver(np.array([1000.0]))[0] == 1000                      # 1,000 more land meanwhile
    seq = g.rewind_due(2, 2e-6, np.array([4000.0]), np.array([10000.0]), np.array([6000.0]))
    assert seq[0] == 3000 and g.copies[0] == 1000 + 6000                 # back to 3,000, not 4,000
    seq = g.sent(seq, np.array([1500.0]))
    assert g.dup[0] == 1500 and g.retransmitted[0] == 1500


def test_a_nak_waits_in_the_switch_queues_on_its_way_back_but_not_in_the_receivers_nic():
    """Links 5–9 are 0–4 the other way. Path A (0, 1, 3): its NAK leaves the receiver's NIC (8, the
    reverse of 3: htsim's host queue serves NAKs first) and waits behind the data queued at 6 and 5
    (switch egresses: one FIFO for data and control): 3 hops + 1 µs + 2 µs."""
    prm = FlowletParams(gap_s=3e-6, move_chance=1.0, seed=0, mtu_bytes=9000.0)
    fl = Flowlets(_two_paths(), np.array([0, 3]), 1e-6, np.full(10, 12.5e9), np.full(10, 135e3), prm,
                  np.array([5, 6, 7, 8, 9, 0, 1, 2, 3, 4]))
    q = np.zeros(10)
    q[5], q[6], q[8] = 12.5e3, 25e3, 125e3
    assert fl.back_s(q, np.array([0]))[0] == pytest.approx(6e-6, abs=1e-18)
    fl.cur[:] = 0
    assert fl.back_ticks(q, np.array([0]))[0] == 6
    assert list(reverse_links(np.array([10, 11, 12, -1]), np.array([11, 10, 13, -1]))) == [1, 0, -1, -1]


def test_a_flowlet_tick_over_the_live_entries_gives_every_figure_of_a_tick_over_all():
    """Radix-4 3-level tree, two permutations of 1 MB with flowlets over go-back-N: the run that ticks
    only the live sub-paths' entries (fabricviz/sim/fluid_live.py) and the one over every entry agree
    to the byte, frames included; the compiled waterfill agrees with numpy's on random groups."""
    f = fat_tree(levels=3, radix=4, fabric="roce", speed="100GbE", switch="SN4700")
    f.set_meta("roce", {"mtu": 9000, "pfc": {"xoff": 144000, "xon": 99000}})
    hosts = endpoints(f)
    rng = np.random.default_rng(3)
    dst = np.concatenate([np.roll(hosts, 1 + int(rng.integers(len(hosts) - 1))) for _ in range(2)])
    flows = Flows(np.concatenate([hosts, hosts]), dst, np.full(len(dst), 1e6))
    out = []
    for live in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            if not live:
                mp.setattr(fluid, "LiveEntries", lambda *a: None)
            r = simulate(f, flows, "adaptive", "fluid", 5e-3, fluid=roce_fluid(f, cc="none"), transport="roce-gbn",
                         stop_when_done=True, seed=2).fluid
        out.append((r.finish_s, r.delivered_bytes, r.retransmitted_bytes, r.discarded_bytes, r.max_queue_bytes,
                    np.array([fr.link_util for fr in r.frames]), np.array([fr.link_queue for fr in r.frames]), np.array([fr.link_paused for fr in r.frames])))
    assert np.isfinite(out[0][0]).all() and out[0][2].sum() > 0        # every flow done, and resends
    for a, b in zip(*out, strict=True):
        assert np.array_equal(a, b)
    gid = rng.integers(0, 7, 400)
    demand = np.where(rng.random(400) < 0.3, 0.0, rng.random(400) * 1e4)
    cap = rng.random(7) * 5e4
    assert np.array_equal(waterfill(gid, demand, cap, 7), compiled_waterfill(gid, demand, cap, 7))
