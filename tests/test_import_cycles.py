"""No import cycles in fabricviz: the package's import graph (grimp, the graph import-linter
checks its contracts on) has no strongly connected component of two or more modules.

Every import counts, also one inside a function (so a lazy import cannot hide a cycle); imports
under ``if TYPE_CHECKING:`` do not (they never run). A failure names each cycle, import by import
with file lines, so the fix (a shared leaf module, or a public name moved) is plain.
"""

from __future__ import annotations

import grimp
import networkx as nx

PACKAGE = "fabricviz"


def _graph() -> tuple[grimp.ImportGraph, nx.DiGraph]:
    g = grimp.build_graph(PACKAGE, cache_dir=None, exclude_type_checking_imports=True)
    dg = nx.DiGraph()
    dg.add_nodes_from(g.modules)
    for m in g.modules:
        dg.add_edges_from((m, imported) for imported in g.find_modules_directly_imported_by(m))
    return g, dg


def _describe(g: grimp.ImportGraph, cycle: list[tuple[str, str]]) -> str:
    lines = [" -> ".join([a for a, _ in cycle] + [cycle[0][0]])]
    for a, b in cycle:
        for d in g.get_import_details(importer=a, imported=b)[:1]:
            lines.append(f"    {a}:{d['line_number']}: {d['line_contents']}")
    return "\n".join(lines)


def import_cycles() -> list[str]:
    """One cycle of each strongly connected component of the import graph, described."""
    g, dg = _graph()
    out = []
    for component in nx.strongly_connected_components(dg):
        if len(component) > 1:
            out.append(_describe(g, nx.find_cycle(dg.subgraph(component))))
    return sorted(out)


def test_the_graph_sees_imports_inside_functions():
    """The check is not blind to lazy imports: cli.py loads the ui inside a function."""
    g, dg = _graph()
    assert dg.has_edge("fabricviz.cli", "fabricviz.ui.app")
    assert len(g.modules) > 200


def test_no_import_cycles():
    cycles = import_cycles()
    assert not cycles, f"{len(cycles)} import cycle(s) in {PACKAGE}:\n" + "\n".join(cycles)
