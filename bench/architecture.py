"""The package's shape, measured: the longest classes and modules, the import
graph's cycles, and the modules one Claude league episode passes through.

    .venv/bin/python bench/architecture.py [--top 5]

Import graph: every `import` and `from ... import` in `python/coworld`, at module
level, inside functions and under `if TYPE_CHECKING:` alike; `from .. import X`
is an edge to the package's `__init__` (X is a name defined there). The implicit
edge from a module to the packages it sits in (Python runs them first) is not
drawn: every package that re-exports its modules would be a cycle. A cycle is a
strongly connected component of more than one module.

Episode path: a league of one Claude policy against `random` on connect-four,
one episode per seat order, answered in process (the request itself, the
`anthropic` SDK's part, is replaced by a canned legal move, as
`bench/llm_throughput.py --stub-sdk` does). A first league warms every import;
the second is traced (`sys.setprofile` on every thread) while its backend's
`map_episodes` runs: from the first episode's dispatch to the last one's result,
stored (the run's setup, the start-up check and the exports are not counted). A
module counts when one of its functions runs.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "coworld"


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (packages by their `__init__`)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `name` imports, however and wherever it does."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from a import b` imports the module a.b when there is one, else a name of a
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target:
                found.add(target)
    found.discard(name)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    sys.setrecursionlimit(10_000)

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    compiled = {"coworld._core"}  # the Rust core: a module of its own, importing none of ours
    known = set(mods) | compiled
    graph = {name: imports_of(name, path, known) for name, path in mods.items()}
    return {**graph, **{name: set() for name in compiled}}


def private_imports() -> list[str]:
    """`from x import _name` across modules of the package (a private name used
    outside its module)."""
    out = []
    mods = modules()
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (
                node.level or (node.module or "").startswith("coworld")
            ):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        if alias.name == "_core":  # the compiled core: a module, not a name
                            continue
                        out.append(
                            f"{name}: from {'.' * node.level}{node.module or ''} "
                            f"import {alias.name}"
                        )
    return out


def sizes() -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(lines, module) and (lines, module.Class) of the package."""
    mods, classes = [], []
    for name, path in modules().items():
        text = path.read_text()
        mods.append((len(text.splitlines()), name))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                assert node.end_lineno is not None
                classes.append((node.end_lineno - start + 1, f"{name}.{node.name}"))
    return sorted(mods, reverse=True), sorted(classes, reverse=True)


def episode_path() -> list[str]:
    """The package's modules whose functions run while a one-episode-per-seat-order
    Claude league plays (see the module doc)."""
    sys.path.insert(0, str(ROOT))
    from bench.llm_throughput import stub_sdk

    from coworld.league import LeagueRun, parse_league

    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-architecture")
    stub_sdk(0.0)
    seen: set[str] = set()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            name = frame.f_globals.get("__name__", "")
            if name.startswith("coworld"):
                seen.add(name)

    def league(tmp: str, traced: bool) -> None:
        Path(tmp, "p.md").write_text("---\nname: house\nmodel: claude-haiku-4-5\n---\nWin.\n")
        config = parse_league(
            {
                "name": "path",
                "games": ["connect-four"],
                "policies": ["random", "p.md"],
                "episodes": 1,
                "replays": 0,
                "out": str(Path(tmp, "out")),
            },
            base_dir=Path(tmp),
        )
        run = LeagueRun(config, progress=False)
        if traced:
            play = run.backend.map_episodes

            def map_episodes(*args: Any, **kwargs: Any) -> Iterator[Any]:
                threading.setprofile(profile)
                sys.setprofile(profile)
                try:
                    yield from play(*args, **kwargs)
                finally:
                    sys.setprofile(None)
                    threading.setprofile(None)  # type: ignore[arg-type]

            run.backend.map_episodes = map_episodes  # type: ignore[method-assign]
        run.run()

    for traced in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            league(tmp, traced)
    return sorted(seen)


def _lines(rows: Iterator[str] | list[str]) -> str:
    return "\n".join(f"  {r}" for r in rows) or "  none"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--no-trace", action="store_true", help="skip the episode path")
    args = ap.parse_args()
    mods, classes = sizes()
    print("longest modules:")
    print(_lines(f"{n:5d}  {m}" for n, m in mods[: args.top]))
    print("longest classes:")
    print(_lines(f"{n:5d}  {c}" for n, c in classes[: args.top]))
    for layer in ("coworld.league", "coworld.seats"):
        lm = [r for r in mods if r[1].startswith(layer)]
        lc = [r for r in classes if r[1].startswith(layer)]
        print(
            f"{layer}: longest module {lm[0][0]} ({lm[0][1]}), "
            f"longest class {lc[0][0]} ({lc[0][1]})"
        )
    found = cycles(import_graph())
    print(f"import cycles: {len(found)}")
    print(_lines(["{" + ", ".join(c) + "}" for c in found]))
    private = private_imports()
    print(f"private names imported across modules: {len(private)}")
    print(_lines(private))
    if not args.no_trace:
        path = episode_path()
        print(f"modules one Claude league episode passes through: {len(path)}")
        print(_lines(path))


if __name__ == "__main__":
    main()
