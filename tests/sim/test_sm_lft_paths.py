"""InfiniBand static paths in the simulator are the subnet manager's LFT routes."""

import numpy as np
import pytest

from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.routing import route as sm_route
from fabricviz.ib.trace import trace
from fabricviz.sim.links import link_table
from fabricviz.sim.paths import route, sm_paths
from fabricviz.sim.workloads import Flows


@pytest.mark.parametrize("engine", ["minhop", "updn"])
def test_flow_paths_follow_the_lfts(engine):
    f = k_ary_fat_tree(4)
    r = sm_route(f, engine)
    nics = [d for d in f.devices("nic")]
    src = np.array([n.id for n in nics])          # flows run between NIC (or GPU) devices
    dst = np.roll(src, 5)
    flows = Flows(src, dst)
    links = link_table(f)
    routes = route(f, links, flows, "static", provider=sm_paths(r))
    for i in range(len(flows)):
        hops = routes.path(i)
        switches = [f.name_of(int(links.src_dev[link])) for link in hops[1:]]
        t = trace(r, f.name_of(int(src[i])), f.name_of(int(dst[i])))
        assert t.ok
        assert switches == [h.switch for h in t.hops]
        # the egress ports match the LFT's choice at every switch
        out_ports = [int(f.ports_t.num[int(links.src_port[link])]) for link in hops[1:]]
        assert out_ports == [h.out_port for h in t.hops]
