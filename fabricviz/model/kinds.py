"""Device kinds and how children of a server are named: the leaf constants of the model."""

from __future__ import annotations

SERVER, GPU, NIC, IB_SWITCH, ETH_SWITCH = "server", "gpu", "nic", "ib_switch", "eth_switch"
KINDS: tuple[str, ...] = (SERVER, GPU, NIC, IB_SWITCH, ETH_SWITCH)
KIND_CODE = {k: i for i, k in enumerate(KINDS)}
SWITCH_KINDS = (IB_SWITCH, ETH_SWITCH)
#: A GPU or NIC of a server is named after it: ``node1/gpu0``, ``node1/mlx5_0``.
CHILD_PREFIX = {GPU: "gpu", NIC: "mlx5_"}
#: Names given to devices added without one: ``node1``, ``ibsw3``.
AUTO_PREFIX = {SERVER: "node", GPU: "gpu", NIC: "nic", IB_SWITCH: "ibsw", ETH_SWITCH: "ethsw"}
