"""The lean engine path (routes batch by batch, max-min over the paths without the flow × link
matrix, per-flow latency a piece of flows at a time) gives the numbers the one-go code gave: checksums
recorded from it on a 64-host alltoall, with the default batch sizes and with tiny ones (many batches)."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from fabricviz.sim import maxmin as mm
from fabricviz.sim import paths
from fabricviz.sim.compare import run_workload
from fabricviz.sim.maxmin import maxmin, maxmin_paths
from fabricviz.sim.workloads import make_workload

#: (rates · cos k, link utilisation · cos l, flow latency · cos k, finish times · cos k, Σ links · (i mod 97))
#: of ``alltoall:4MB`` (seed 1) on a 3-level radix-8 fat tree of 64 hosts, recorded before the change.
REF = {
    ("ib", "static", "minhop"): (-268.89720656265206, 3.3364454232659786, 11800.900636776592,
                                 0.003154091307127173, 362449470),
    ("ib", "static", "dmodk"): (-1.7412436952359651, 0.8624351115591145, 11800.900636776592,
                                -2.159686287278228e-05, 362447376),
    ("ib", "ecmp", "minhop"): (3.5803098824547295, 2.5257784411577364, 11800.900636776592,
                               -8.036795360283106e-05, 362403184),
    ("ib", "adaptive", "minhop"): (-1.7412436952359651, 0.8624351115591145, 11800.900636776592,
                                   -2.159686287278228e-05, 5038878410),
    ("ib", "spray", "minhop"): (-1.7412436952359651, 0.8624351115591145, 11800.900636776592,
                                -2.159686287278228e-05, 5038878410),
    ("roce", "ecmp", "minhop"): (3.5803098824547295, 2.5257784411577364, 18041.793905243838,
                                 -8.036795360283106e-05, 362403184),
    ("roce", "adaptive", "minhop"): (-1.7412436952359651, 0.8624351115591145, 18041.793905243838,
                                     -2.159686287278228e-05, 5038878410),
    ("roce", "spray", "minhop"): (-1.7412436952359651, 0.8624351115591145, 18041.793905243838,
                                  -2.159686287278228e-05, 5038878410),
}


@pytest.fixture(scope="module")
def designs():
    return {t: fat_tree(levels=3, radix=8, hosts=64, fabric=t) for t in ("ib", "roce")}


def _checksums(res) -> tuple:
    rate, util = res.last.flow_rate_gbps.astype(float), res.last.link_util.astype(float)
    lat, fin = res.last.flow_latency_ns.astype(float), res.completion.finish_s
    w, wl = np.cos(np.arange(len(rate))), np.cos(np.arange(len(util)))
    links = res.routes.links.astype(np.int64)
    return (float(rate @ w), float(util @ wl), float(lat @ w), float(fin @ w),
            int(links @ (np.arange(len(links)) % 97)))


@pytest.mark.parametrize("tiny", [False, True], ids=["default", "tiny-batches"])
@pytest.mark.parametrize("key", list(REF), ids=["-".join(k) for k in REF])
@pytest.mark.slow
def test_alltoall_numbers_are_the_recorded_ones(designs, key, tiny, monkeypatch):
    if tiny:        # hundreds of route batches, latency pieces and water-filling chunks
        monkeypatch.setattr(paths, "BATCH_FLOWS", 300)
        monkeypatch.setattr(paths.Routes.split, "__defaults__", (2000,))
        monkeypatch.setattr(mm, "CHUNK", 1500)
    tech, routing, engine = key
    f = designs[tech]
    res = run_workload(f, make_workload(f, "alltoall:4MB", seed=1), "maxmin", 1e-3, 1, routing, engine)
    got = _checksums(res)
    assert got[4] == REF[key][4]                                   # the same links, in hop order
    assert got[:4] == pytest.approx(REF[key][:4], rel=1e-12, abs=1e-15)
    assert res.routes.links.dtype == np.int32
    assert (len(res.routes.split(2000)) > 1) and res.routes.n_flows == 64 * 63


def test_max_min_over_the_paths_is_max_min_over_their_matrix(designs, monkeypatch):
    monkeypatch.setattr(mm, "CHUNK", 700)                          # several chunks a round
    f = designs["ib"]
    res = run_workload(f, make_workload(f, "permutation:5", seed=2), "maxmin", 1e-3, 1, "ecmp")
    r = res.routes
    assert r.single()
    demand = np.where(np.arange(r.n_flows) % 3 == 0, 40.0, np.inf)
    A = r.incidence()
    a, b = maxmin(A, res.links.gbps, demand), maxmin_paths(r.indptr, r.links, res.links.gbps, demand)
    assert a.rate.tobytes() == b.rate.tobytes() and a.link_load.tobytes() == b.link_load.tobytes()
    assert np.array_equal(a.bottleneck, b.bottleneck) and a.rounds == b.rounds
    run = np.arange(r.n_flows) % 4 != 1                            # fct's re-solve of the running flows
    sub = maxmin(A[run], res.links.gbps, demand[run]).rate
    got = maxmin_paths(r.indptr, r.links, res.links.gbps, demand, rows=run).rate
    assert got[run].tobytes() == sub.tobytes() and not got[~run].any()


def test_a_path_crossing_a_link_twice_is_not_a_single_path(designs):
    r = paths.Routes(np.arange(2), np.ones(2), np.array([0, 3, 5]), np.array([4, 9, 4, 1, 2], np.int32), 2, 10)
    assert not r.single()
    assert paths.Routes(r.flow, r.frac, r.indptr, np.array([4, 9, 3, 1, 2], np.int32), 2, 10).single()
    assert maxmin_paths(np.array([0, 3, 5]), np.array([4, 9, 3, 1, 2]), np.full(10, 10.0)).rate.tolist() == [10.0, 10.0]
