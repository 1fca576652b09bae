"""The engine's shape holds: no import cycles, no imports hidden inside functions to dodge one,
and no module too long to read."""

from __future__ import annotations

import ast
from pathlib import Path

ARENA = Path(__file__).resolve().parent.parent / "arena"
ENGINE = ARENA / "engine"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ARENA.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Every arena module and the arena modules it imports (at any depth in the file)."""
    modules = {_module_name(p): p for p in ARENA.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                targets |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def test_no_module_of_arena_takes_part_in_an_import_cycle() -> None:
    graph = _imports()
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            loop = [*path[path.index(name) :], name]
            raise AssertionError("import cycle: " + " -> ".join(loop))
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_the_engine_imports_only_at_module_level() -> None:
    hidden = [
        f"{path.relative_to(ARENA.parent)}:{node.lineno}"
        for path in ENGINE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Import | ast.ImportFrom) and node.col_offset > 0
    ]
    assert hidden == []


def test_no_engine_module_is_over_600_lines() -> None:
    long = {
        str(p.relative_to(ARENA.parent)): n
        for p in ENGINE.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 600
    }
    assert long == {}
