"""Types the routing engines share with the routing front end (a leaf: imports no engine).

:class:`EngineRefused` is what an engine raises when it cannot route a fabric (the front end
then routes with minhop, as OpenSM does); :class:`RoutingInfo` is what an engine reports beside
its LFTs, and what the SM's sweep adds to it (the tables it programmed, the SMPs it sent).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .path_sl import PathSL

if TYPE_CHECKING:
    from .pkeys import PKeyTables
    from .qos import QosTables


class EngineRefused(Exception):
    """A routing engine cannot route this fabric; the message says which rule failed."""


@dataclass
class RoutingInfo:
    """The extras of a routing beyond its LFTs. A field is None when nothing set it (the engine
    that routed has no such number, or the sweep step that fills it has not run)."""

    # up/down engines (updn, ftree): the root switches by name
    roots: list[str] | None = None
    rank: np.ndarray | None = None                 # updn: rank per switch (0 = root)
    # ftree (OpenSM's own numbers)
    ranks: np.ndarray | None = None                # rank per switch
    tree_rank: int | None = None
    leaf_switches: list[str] | None = None
    switch_index: dict[str, str] | None = None     # switch name -> its tuple "r.d.d…"
    max_cn_per_leaf: int | None = None
    ca_order: list[int | None] | None = None       # CN LIDs in routing order (None: a dummy)
    # layered engines (dfsssp, lash) and sssp
    path_sl: PathSL | None = None                  # the SL of every (source, destination) path
    vls_used: int | None = None
    vls_avail: int | None = None
    paths_per_vl: list[int] | None = None          # dfsssp: paths per VL before balancing
    paths_after: list[int] | None = None           # dfsssp: paths per SL after balancing
    vl_split: list[int] | None = None              # dfsssp
    log: list[str] | None = None                   # the engine's OpenSM log lines
    # lash
    start_vl: int | None = None
    vl_min: int | None = None
    lanes_in_layer: list[int] | None = None
    lanes_before_balancing: list[int] | None = None
    rand_calls: int | None = None
    zombies: int | None = None
    zombie_events: int | None = None
    # a routing replayed from an OpenSM dump (:mod:`~fabricviz.formats.opensm_replay`): its file
    dump: str | None = None
    # the front end: (switch, switch LID) pairs without a route
    unrouted_switch_lids: int | None = None
    # the SM's sweep (:mod:`.sweep`)
    lft_blocks_sent: int | None = None
    pkey_tables: PKeyTables | None = None
    pkey_blocks_sent: int | None = None
    pkey_port_infos_sent: int | None = None
    qos_tables: QosTables | None = None
    qos_smps_sent: int | None = None
