"""PyYAML's SafeLoader with limits, apart from readers.py so that PyYAML is imported only
when a YAML file is read (files/readers.py's parse_yaml is the one caller)."""

from __future__ import annotations

from typing import Any

import yaml

from .readers import MAX_DEPTH, MAX_YAML_NODES


class GuardedLoader(yaml.SafeLoader):
    """SafeLoader with bounded nesting and a bounded size after aliases and merge keys
    (`x2: &x2 {<<: [*x1, *x1]}` doubles at every line: 41 lines never finish)."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.YAMLError(f"nested more than {MAX_DEPTH} levels deep at line {mark.line + 1}")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_node(self) -> Any:
        node = super().get_single_node()
        if node is not None:
            _expanded_size(node, {}, set())
        return node


def _expanded_size(node: yaml.Node, sizes: dict[int, int], open_nodes: set[int]) -> int:
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in open_nodes:
        raise yaml.YAMLError("an alias refers to a node that contains it (a recursive structure)")
    open_nodes.add(key)
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, sizes, open_nodes) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, sizes, open_nodes) + _expanded_size(v, sizes, open_nodes) for k, v in node.value)
    open_nodes.discard(key)
    if size > MAX_YAML_NODES:
        raise yaml.YAMLError(f"more than {MAX_YAML_NODES:,} values once aliases and merge keys are expanded")
    sizes[key] = size
    return size
