"""The core's modules import one another without circles (issue 37): a circle (budgets ↔ digest
↔ metrics/base ↔ metrics/efficiency, once) hides which module is the lower one, and type-only
imports count, since they tie the modules as much for a reader as for the checker."""

from __future__ import annotations

import grimp


def test_no_import_circle_inside_the_core():
    graph = grimp.build_graph("agenteval_ci")
    core = sorted(m for m in graph.modules if m.startswith("agenteval_ci.core"))
    circles = [
        (module, imported)
        for module in core
        for imported in sorted(graph.find_modules_directly_imported_by(module))
        if imported.startswith("agenteval_ci.core") and graph.chain_exists(importer=imported, imported=module)
    ]
    assert not circles, f"import circles in the core (module, imports): {circles[:10]}"
