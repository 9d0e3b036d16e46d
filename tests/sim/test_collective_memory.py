"""All-to-all's n(n−1) transfers run NIC to NIC (fabricviz.sim.collective_nic): two hops fewer per
flow, the same rows as the plain GPU-to-GPU run to 1e-12, on InfiniBand and RoCE."""

from __future__ import annotations

import pytest

from fabricviz.generate import fat_tree, rail_optimized
from fabricviz.sim.collective import Solver, collective, parse_sizes
from fabricviz.sim.collective_plan import plan

SIZES = parse_sizes("8B:1GB:x32")


@pytest.mark.parametrize("fabric", ["ib", "roce"])
@pytest.mark.parametrize("build", [lambda t: fat_tree(levels=2, radix=8, fabric=t),
                                   lambda t: rail_optimized(1, fabric=t, nodes_per_unit=4)], ids=["ft32", "rail4x8"])
def test_nic_to_nic_rows_equal_the_plain_gpu_to_gpu_run(build, fabric):
    f = build(fabric)
    lean, plain = Solver(f), Solver(f, nic_to_nic=False)
    for op, algo in (("alltoall", "ring"), ("allreduce", "tree"), ("broadcast", "ring")):
        a = collective(f, op, SIZES, algo, solver=lean).rows
        b = collective(f, op, SIZES, algo, solver=plain).rows
        for x, y in zip(a, b, strict=True):
            assert x.time_us == pytest.approx(y.time_us, rel=1e-12, abs=0)
            assert x.busbw == pytest.approx(y.busbw, rel=1e-12, abs=0)
    step = plan(f, "alltoall", "ring", collective(f, "alltoall", [8.0], solver=lean).ranks)[0]
    ra, rb = lean.solve(step).run.routes, plain.solve(step).run.routes
    net = 32 * 31 - (0 if len(set(f.devices_t.parent[step.src].tolist())) == 32 else 32 * 7)   # DGX: NVLink
    assert ra.n_flows == rb.n_flows == net
    assert len(rb.links) - len(ra.links) == 2 * net              # the two PCIe hops of every flow
