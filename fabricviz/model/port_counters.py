"""Port counters as the diagnostic tools report them, one typed record per port.

The counters are the InfiniBand Performance Management attributes ``PortCounters`` and
``PortCountersExtended`` (IBA vol. 1, chapter 16.1.3; the field names are libibmad's, as
``perfquery`` and ``ibqueryerrors`` print them). ``PortCounters`` fields are narrow and stop
at their maximum ("all ones": they saturate, they do not wrap); the extended ones are 64 bits.
The readers (``fabricviz.formats.perfquery``, ``ibqueryerrors``, ``ibdiagnet_pm``,
``ibdiagnet_csv``) give :class:`PortCounters`; the engine (``fabricviz.check.counters``) matches
them to the design's ports and ranks the links.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

#: PortSelect 255: a node's counters summed over all its ports (``perfquery -a``, ``port ALL``).
ALL_PORTS = 255


class Counter(enum.Enum):
    """A port counter, by its IBA name (the value)."""

    SYMBOL_ERRORS = "SymbolErrorCounter"
    LINK_ERROR_RECOVERY = "LinkErrorRecoveryCounter"
    LINK_DOWNED = "LinkDownedCounter"
    RCV_ERRORS = "PortRcvErrors"
    RCV_REMOTE_PHYSICAL_ERRORS = "PortRcvRemotePhysicalErrors"
    RCV_SWITCH_RELAY_ERRORS = "PortRcvSwitchRelayErrors"
    XMIT_DISCARDS = "PortXmitDiscards"
    XMIT_CONSTRAINT_ERRORS = "PortXmitConstraintErrors"
    RCV_CONSTRAINT_ERRORS = "PortRcvConstraintErrors"
    LOCAL_LINK_INTEGRITY_ERRORS = "LocalLinkIntegrityErrors"
    EXCESSIVE_BUFFER_OVERRUN_ERRORS = "ExcessiveBufferOverrunErrors"
    VL15_DROPPED = "VL15Dropped"
    XMIT_WAIT = "PortXmitWait"
    XMIT_DATA = "PortXmitData"
    RCV_DATA = "PortRcvData"
    XMIT_PKTS = "PortXmitPkts"
    RCV_PKTS = "PortRcvPkts"

    # members are singletons compared by identity: hash them by identity too, in C (Enum's own
    # __hash__ is Python code, and a fabric's sweep hashes counters millions of times)
    __hash__ = object.__hash__


#: Bits of each counter in the (basic) PortCounters attribute (IBA vol. 1 table "PortCounters";
#: libibmad's IB_PC_* field widths): such a counter saturates at 2**bits - 1.
BASIC_BITS: dict[Counter, int] = {
    Counter.SYMBOL_ERRORS: 16, Counter.LINK_ERROR_RECOVERY: 8, Counter.LINK_DOWNED: 8,
    Counter.RCV_ERRORS: 16, Counter.RCV_REMOTE_PHYSICAL_ERRORS: 16, Counter.RCV_SWITCH_RELAY_ERRORS: 16,
    Counter.XMIT_DISCARDS: 16, Counter.XMIT_CONSTRAINT_ERRORS: 8, Counter.RCV_CONSTRAINT_ERRORS: 8,
    Counter.LOCAL_LINK_INTEGRITY_ERRORS: 4, Counter.EXCESSIVE_BUFFER_OVERRUN_ERRORS: 4,
    Counter.VL15_DROPPED: 16, Counter.XMIT_WAIT: 32, Counter.XMIT_DATA: 32, Counter.RCV_DATA: 32,
    Counter.XMIT_PKTS: 32, Counter.RCV_PKTS: 32,
}
#: The largest value any counter can have (the extended ones are 64 bits).
MAX_VALUE = (1 << 64) - 1

BY_NAME: dict[str, Counter] = {c.value: c for c in Counter}


@dataclass(frozen=True)
class PortCounters:
    """The counters one record of a file gives for one port.

    The port is named the way the file names it: a LID (perfquery, ibdiagnet), a port GUID
    and/or node GUID (ibqueryerrors, ibdiagnet), a node description; ``port`` is the port
    number (:data:`ALL_PORTS` for a node's aggregate). ``extended``: the values came from
    64-bit counters (they do not saturate). ``implicit_zero``: counters the record does not
    list were zero or under the tool's threshold (ibqueryerrors lists only the counters
    over it). ``source`` is ``file:line`` of the record."""

    source: str
    port: int
    values: dict[Counter, int] = field(default_factory=dict)
    lid: int | None = None
    port_guid: int | None = None
    node_guid: int | None = None
    node_desc: str | None = None
    extended: bool = False
    implicit_zero: bool = False

    def saturated(self) -> tuple[Counter, ...]:
        """The counters stuck at their maximum (only the basic, narrow ones can be)."""
        if self.extended:
            return ()
        return tuple(c for c, v in self.values.items() if c in BASIC_BITS and v >= (1 << BASIC_BITS[c]) - 1)


@dataclass(frozen=True)
class CounterFile:
    """What a reader gives: the file's format (``perfquery``, ``ibqueryerrors``, ``ibdiagnet-pm``,
    ``ibdiagnet-csv``) and its records in file order."""

    path: str
    format: str
    records: tuple[PortCounters, ...]


__all__ = ["ALL_PORTS", "BASIC_BITS", "BY_NAME", "Counter", "CounterFile", "MAX_VALUE", "PortCounters"]
