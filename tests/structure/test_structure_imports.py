"""The import graph of the project's packages: no cycle, and no library
module importing a command module (or the command line itself).

Read from the source with `ast`, so it holds for every import, also the ones
inside functions (a lazy import is still a dependency).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = ("engine", "vision", "review", "app", "sample_videos")
PACKAGES = LIBRARIES + ("mafvar",)
COMMAND_LINE = ("mafvar.cli", "mafvar.commands", "mafvar.__main__")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            out[_module_name(path)] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The project module `name` is, or the nearest enclosing one; None outside the project."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import mod` imports the module pkg.mod when there is one
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        for t in targets:
            hit = _resolve(t, modules)
            if hit is not None and hit != module:
                out.add(hit)
    return out


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {m: imports_of(m, p, modules) for m, p in modules.items()}


def _is_command(module: str) -> bool:
    return any(module == c or module.startswith(c + ".") for c in COMMAND_LINE)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path [a, b, ..., a], or None."""
    state: dict[str, int] = {}   # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_the_graph_is_read():
    graph = import_graph()
    # a few edges every version of the project has: the walk sees imports
    assert "engine.replay" in graph["engine.timeline"]
    assert "mafvar.errors" in graph["mafvar.commands.protocol"]
    assert any(m.startswith("mafvar.commands.") for m in graph["mafvar.cli"])


def test_no_library_imports_the_command_line():
    graph = import_graph()
    wrong = sorted(f"{m} imports {n}" for m, deps in graph.items()
                   if m.split(".")[0] in LIBRARIES for n in deps if _is_command(n))
    assert wrong == []


def test_no_import_cycle():
    assert find_cycle(import_graph()) is None


def test_the_error_module_imports_nothing():
    tree = ast.parse((ROOT / "mafvar" / "errors.py").read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]


def test_a_cycle_is_found():
    # the finder itself must be able to fail
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
