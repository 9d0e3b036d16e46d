"""Link technologies: InfiniBand speed × width and Ethernet speeds.

A port's technology is a :class:`LinkRate`: InfiniBand ``4xNDR`` (4 lanes of
NDR, 400 Gb/s of data) or Ethernet ``400GbE``. Two ends of a cable negotiate to
the lower speed and the narrower width, as real links do (an EDR port cabled to
a QDR port comes up QDR). InfiniBand and Ethernet never link.

Rates per lane follow the IBTA generations (data rate after line coding):
SDR 2, DDR 4, QDR 8, FDR10 10, FDR 13.64, EDR 25, HDR 50, NDR 100, XDR 200 Gb/s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .errors import FabricError
from .numbers import is_digits

IB = "ib"
ETH = "eth"
TECHS = (IB, ETH)
#: Codes of the ``tech`` column of the port and cable tables (0: the port has no link technology).
TECH_NONE_CODE = 0
TECH_IB_CODE = 1
TECH_ETH_CODE = 2

#: InfiniBand generations, slowest first, with the data rate of one lane (Gb/s).
IB_SPEEDS: tuple[str, ...] = ("SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR")
IB_LANE_GBPS: dict[str, float] = {
    "SDR": 2.0, "DDR": 4.0, "QDR": 8.0, "FDR10": 10.0, "FDR": 13.64,
    "EDR": 25.0, "HDR": 50.0, "NDR": 100.0, "XDR": 200.0,
}
IB_WIDTHS: tuple[int, ...] = (1, 2, 4, 8, 12)
#: Marketing names of 2x links (``ibstat`` prints "200 Gb/sec (2X NDR)").
IB_ALIASES: dict[str, tuple[str, int]] = {"HDR100": ("HDR", 2), "NDR200": ("NDR", 2), "XDR400": ("XDR", 2)}

#: Ethernet speeds in Gb/s, slowest first.
ETH_SPEEDS: tuple[int, ...] = (1, 10, 25, 40, 50, 100, 200, 400, 800, 1600)

_IB_RE = re.compile(r"^\s*(?:(\d+)\s*[xX]\s*)?([A-Za-z]+\d*)\s*$")
_ETH_RE = re.compile(r"^\s*(\d+)\s*(?:G|GbE|GBE|Gbe|gbe|GE|Gb/s|G/s)?\s*$")


@dataclass(frozen=True, order=False)
class LinkRate:
    """One port's or one link's technology: ``tech`` ib|eth, ``speed``, ``width``.

    For InfiniBand ``speed`` is a generation name (``"NDR"``) and ``width`` the
    lane count; for Ethernet ``speed`` is the rate in Gb/s as a string
    (``"400"``) and ``width`` is 1.
    """

    tech: str
    speed: str
    width: int = 1

    # ---- parsing and printing -------------------------------------------------
    @staticmethod
    def parse(text: str) -> LinkRate:
        """Parse ``4xNDR``, ``NDR`` (=4x), ``HDR100``, ``1xSDR``, ``400GbE``, ``800G``."""
        s = str(text).strip()
        low = s.lower()
        if low.endswith(("gbe", "ge")) or (low.endswith("g") and is_digits(low[:-1])):
            m = _ETH_RE.match(s)
            if m:
                gbps = int(m.group(1))
                if gbps in ETH_SPEEDS:
                    return LinkRate(ETH, str(gbps), 1)
            raise FabricError(f"unknown Ethernet speed {text!r} (known: "
                              + ", ".join(f"{g}GbE" for g in ETH_SPEEDS) + ")")
        up = s.upper()
        if up in IB_ALIASES:
            speed, width = IB_ALIASES[up]
            return LinkRate(IB, speed, width)
        m = _IB_RE.match(s)
        if m:
            width = int(m.group(1)) if m.group(1) else 4
            speed = m.group(2).upper()
            if speed in IB_LANE_GBPS and width in IB_WIDTHS:
                return LinkRate(IB, speed, width)
        raise FabricError(f"unknown link rate {text!r} (use e.g. 4xNDR, 2xHDR, HDR100, 400GbE)")

    def __str__(self) -> str:
        if self.tech == ETH:
            return f"{self.speed}GbE"
        return f"{self.width}x{self.speed}"

    @property
    def label(self) -> str:
        """Human label with the data rate, e.g. ``4xNDR (400 Gb/s)``."""
        return f"{self} ({format_gbps(self.gbps)})"

    # ---- numbers ----------------------------------------------------------------
    @property
    def gbps(self) -> float:
        """Data rate in Gb/s (after line coding)."""
        if self.tech == ETH:
            return float(self.speed)
        return IB_LANE_GBPS[self.speed] * self.width

    @property
    def speed_rank(self) -> int:
        """Position of the speed in its technology's list (higher is faster)."""
        if self.tech == ETH:
            return ETH_SPEEDS.index(int(self.speed))
        return IB_SPEEDS.index(self.speed)

    # ---- negotiation ---------------------------------------------------------------
    def negotiate(self, other: LinkRate) -> LinkRate:
        """The rate two connected ends come up at: lower speed, narrower width.

        Raises :class:`FabricError` when the technologies differ.
        """
        if self.tech != other.tech:
            raise FabricError(f"cannot link {tech_name(self.tech)} ({self}) to "
                              f"{tech_name(other.tech)} ({other})")
        speed = self if self.speed_rank <= other.speed_rank else other
        return LinkRate(self.tech, speed.speed, min(self.width, other.width))

    # ---- compact codes for numpy columns --------------------------------------------
    def encode(self) -> tuple[int, int, int]:
        """(tech code TECH_IB_CODE|TECH_ETH_CODE, speed rank, width) for the model's port arrays."""
        return (TECH_IB_CODE if self.tech == IB else TECH_ETH_CODE, self.speed_rank, self.width)

    @staticmethod
    def decode(tech_code: int, speed_rank: int, width: int) -> LinkRate | None:
        """Inverse of :meth:`encode`; ``None`` for tech code 0 (no link)."""
        if tech_code == TECH_IB_CODE:
            return LinkRate(IB, IB_SPEEDS[speed_rank], int(width))
        if tech_code == TECH_ETH_CODE:
            return LinkRate(ETH, str(ETH_SPEEDS[speed_rank]), 1)
        return None


def tech_name(tech: str) -> str:
    """``InfiniBand`` or ``Ethernet``."""
    return "InfiniBand" if tech == IB else "Ethernet"


def rates_gbps(tech: np.ndarray, speed: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Data rate (Gb/s) of links from the model's (tech code, speed rank, width) columns; 0 for no link."""
    ib = np.array([IB_LANE_GBPS[s] for s in IB_SPEEDS])
    eth = np.array(ETH_SPEEDS, float)
    sp = np.asarray(speed).astype(np.int64)
    return np.where(tech == TECH_IB_CODE, ib[np.clip(sp, 0, len(ib) - 1)] * width,
                    np.where(tech == TECH_ETH_CODE, eth[np.clip(sp, 0, len(eth) - 1)], 0.0))


def format_gbps(gbps: float) -> str:
    """``400 Gb/s``, ``54.56 Gb/s``, ``1.6 Tb/s``."""
    if gbps >= 1000:
        return f"{gbps / 1000:g} Tb/s"
    return f"{round(gbps, 2):g} Gb/s"
