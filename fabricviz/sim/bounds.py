"""The documented bounds of run parameters, in one place (issue 28): what the CLI's options, the
GUI's controls and the engines' parsers refuse beyond, chosen from what the engines cost.

- **Durations** (``simulate --duration``, the PFC watchdog's times, the Traffic dock's duration):
  from one fluid tick (:data:`MIN_DURATION_S`, the fluid model's 1 µs step: a shorter run has no
  tick) to :data:`MAX_DURATION_S`. A fluid run costs one tick per microsecond, each tick a pass
  over every link and sub-path: ~0.25 ms a tick on the 16-host demo here (bench/sim.py), so the
  longest run is ~4 minutes there and grows with the design.
- **Size sweeps** (``collective --sizes``, the Collectives dock): at most :data:`MAX_SIZES` sizes
  (the default ``8B:8GB:x2`` is 31); each size is one routed model evaluation per case.
- **Trials** (``whatif --trials``, the What-if dock): at most :data:`MAX_TRIALS` per K; each trial
  re-routes a failed copy of the design (tens of ms on the demo, more on big designs).
"""

from __future__ import annotations

#: The fluid model's time step (:class:`fabricviz.sim.fluid.FluidParams` ``dt_s``): the shortest run.
MIN_DURATION_S = 1e-6
#: The longest run: 1 s of simulated time = 1,000,000 fluid ticks.
MAX_DURATION_S = 1.0
#: Most message sizes in one sweep.
MAX_SIZES = 1000
#: Most random failure sets per K in a what-if run.
MAX_TRIALS = 10_000

__all__ = ["MAX_DURATION_S", "MAX_SIZES", "MAX_TRIALS", "MIN_DURATION_S"]
