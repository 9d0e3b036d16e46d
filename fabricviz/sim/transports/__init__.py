"""Transports that spray every packet and trim (EQDS, NDP) and HPCC over lossless ECMP, as
flow-level mechanisms with htsim's constants (:mod:`.params`, :mod:`.trimming`, :mod:`.model`)."""

from .params import NEW_TRANSPORTS, ROUTING

__all__ = ["NEW_TRANSPORTS", "ROUTING"]
