"""The device kinds of a design and their codes in the device table (a leaf of the model)."""

from __future__ import annotations

SERVER, GPU, NIC, IB_SWITCH, ETH_SWITCH = "server", "gpu", "nic", "ib_switch", "eth_switch"
KINDS: tuple[str, ...] = (SERVER, GPU, NIC, IB_SWITCH, ETH_SWITCH)
KIND_CODE = {k: i for i, k in enumerate(KINDS)}
