"""Traffic, congestion and latency engines (no Qt): pure functions of (fabric, flows, params, seed).

* :mod:`.links` — directed link ids (cable c → 2c a→b, 2c+1 b→a; then PCIe pairs) and their figures;
* :mod:`.workloads` / :mod:`.flows_csv` — ring all-reduce, all-to-all, permutation, shift, incast, CSV;
* :mod:`.paths` — static (D-mod-k min-hop), ECMP, adaptive/spray routes; ``PathProvider`` / ``lft_paths``;
* :mod:`.maxmin` — exact max-min fair share over a sparse flow × link matrix;
* :mod:`.fluid` — time-stepped queues with PFC/credits, ECN and DCQCN (:mod:`fabricviz.ethernet`);
* :mod:`.latency` — serialization + propagation + switch + queueing, per link and per path;
* :mod:`.frames` — immutable float32 per-tick snapshots; :mod:`.engine` — ``simulate(...)``.
* :mod:`.reach` — which hosts a run can reach (the rest are left out, with the reason);
* :mod:`.run` — ``run_traffic(fabric, spec, model, routing, engine, duration_s, seed)``: one run as the GUI runs it;
* :mod:`.units` / :mod:`.summary` — durations as typed, parameter errors in words, a run's summary as text.
"""
