"""Every lesson action by name: the runner :func:`~.lessons.run_lesson` calls for a step's action.

The actions of :mod:`.lesson_actions` and those of the modules beside it (VL layers, partitions,
RoCE, collectives, what-if), each ``(run, params) -> (lines, fields)``.
"""

from __future__ import annotations

from .lesson_actions import CORE_RUNNERS, Runner
from .lesson_collective import collective_action
from .lesson_layers import check_loops_action, layers_action, path_lengths_action
from .lesson_partitions import partitions_action, reach_action
from .lesson_roce import headroom_action, pfc_deadlock_action, pfc_run_action, roce_run_action
from .lesson_whatif import whatif_action

ACTION_RUNNERS: dict[str, Runner] = {
    **CORE_RUNNERS,
    "check_loops": check_loops_action, "layers": layers_action, "path_lengths": path_lengths_action,
    "partitions": partitions_action, "reach": reach_action,
    "pfc_deadlock": pfc_deadlock_action, "pfc_run": pfc_run_action, "headroom": headroom_action,
    "roce_run": roce_run_action,
    "collective": collective_action, "whatif": whatif_action,
}
