"""The package's shape: layers that read top-down, no import circle, no oversized module, and
a command line that starts without the library.

Imports are read from the source (every ``import`` statement, function-level and
``TYPE_CHECKING`` ones included: a circle hidden inside a function is still a circle); what the
command line imports as it starts is read from a fresh process's ``sys.modules``.
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from collections.abc import Mapping, Set
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "arena"
#: The longest module allowed in the package (tests are not counted).
MAX_LINES = 500
#: Modules allowed past :data:`MAX_LINES`, each with its reason (none now; a module that
#: grows past it is split by what it holds, or named here with why it cannot be).
LONG_MODULES: dict[str, str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``name`` imports: ``from a.b import c`` counts as an import
    of ``a.b.c`` when that is a module, else of ``a.b``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known:
                    out.add(sub)
                elif target in known:
                    out.add(target)
    out.discard(name)
    return out


@functools.cache
def _graph() -> dict[str, frozenset[str]]:
    """Every module's imports of the package, read once per test process (the tests only
    read it)."""
    modules = _modules()
    known = set(modules)
    return {name: frozenset(_imports(name, path, known)) for name, path in modules.items()}


def _cycles(graph: Mapping[str, Set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
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
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_circle_and_nothing_else() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_reader_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from arena.engine import api\n    import arena.seeds\n")
    known = {"arena.engine", "arena.engine.api", "arena.seeds", "x"}
    assert _imports("x", source, known) == {"arena.engine.api", "arena.seeds"}


def test_no_module_of_the_package_imports_itself_in_a_circle() -> None:
    assert _cycles(_graph()) == []


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


@pytest.mark.parametrize(
    ("layer", "may_import"),
    [
        # Rules engines: no I/O, no protocol, no runner.
        ("arena.engine", set()),
        # The protocol knows nothing of rules or of how games are run (it may read the
        # package's version).
        ("arena.protocol", {"arena"}),
    ],
)
def test_the_layers_read_top_down(layer: str, may_import: set[str]) -> None:
    """A layer imports its own modules and nothing above it."""
    wrong = sorted(
        f"{name} -> {target}"
        for name, targets in _graph().items()
        if _within(name, layer)
        for target in targets
        if not _within(target, layer) and target not in may_import
    )
    assert not wrong, wrong


#: The house's floors, lowest first: a module imports modules of its own floor and the floors
#: below, never above. One refereed game (``arena.runner.game``) knows nothing of tournaments,
#: leagues or the cluster, so a game is the same wherever and however it is run; many games
#: (``arena.runner.play``) know nothing of the cluster, whose executor is handed in; the
#: cluster knows nothing of leagues; and the statistics sit beside one game, reading results.
FLOORS: list[tuple[str, ...]] = [
    ("arena.engine", "arena.protocol", "arena.blas"),
    ("arena.results", "arena.seeds"),
    ("arena.runner.game", "arena.stats"),
    ("arena.runner.play",),
    ("arena.runner.cluster",),
    ("arena.league",),
    ("arena.report",),
    ("arena.bench",),
    ("arena.cli", "arena.__main__"),
]


def _floor(name: str) -> int | None:
    for level, rooms in enumerate(FLOORS):
        if any(_within(name, room) for room in rooms):
            return level
    return None


def test_every_module_lives_on_a_floor() -> None:
    """Only the package's own ``__init__`` files stand outside the floors."""
    homeless = sorted(name for name in _modules()
                      if _floor(name) is None and name not in ("arena", "arena.runner"))
    assert homeless == []


def test_no_import_runs_back_up_the_floors() -> None:
    """The import graph read top-down: nothing imports a module of a floor above its own (a
    game record once imported the schedule to build its outcome; a tournament imported the
    cluster to make its executor)."""
    graph = _graph()
    wrong = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        for target in targets
        if (mine := _floor(name)) is not None and (theirs := _floor(target)) is not None
        and theirs > mine
    )
    assert not wrong, wrong


def test_one_game_and_the_statistics_do_not_know_each_other() -> None:
    """Two rooms of one floor: a refereed game does not compute statistics, and the
    statistics read finished results, not the referee."""
    wrong = sorted(
        f"{name} -> {target}"
        for name, targets in _graph().items()
        for target in targets
        if (_within(name, "arena.runner.game") and _within(target, "arena.stats"))
        or (_within(name, "arena.stats") and _within(target, "arena.runner"))
    )
    assert not wrong, wrong


def test_the_statistics_import_only_results_and_what_a_game_is() -> None:
    """The statistics read games as results: they import the results, the engine and the
    protocol's terminations (and :mod:`arena.blas`, NumPy's threads' setting), never the runner
    or the league (which import them), so the statistics and the runner cannot come to depend on
    each other."""
    wrong = sorted(
        f"{name} -> {target}"
        for name, targets in _graph().items() if _within(name, "arena.stats")
        for target in targets
        if not any(_within(target, ok) for ok in (
            "arena.stats", "arena.results", "arena.engine", "arena.protocol.messages",
            "arena.blas"))
    )
    assert not wrong, wrong


#: Engine modules allowed imports inside functions, each with its reason; no other (a lazy
#: import is named here with why it is not on a hot path and closes no circle).
LAZY_ENGINE_IMPORTS: dict[str, str] = {
    "arena.engine.agricola.game": "card mode's modules, imported when a card game is made, "
    "loaded or determinized: the Family game and `arena games` do without them",
}


def test_the_engine_imports_only_at_module_level() -> None:
    """An import inside a function in the engine is a cost on the hot path and usually a
    circle in disguise."""
    hidden = [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
        for name, path in _modules().items()
        if name.startswith("arena.engine") and name not in LAZY_ENGINE_IMPORTS
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Import | ast.ImportFrom) and node.col_offset > 0
    ]
    assert hidden == []
    lazy = {name for name in LAZY_ENGINE_IMPORTS
            if any(isinstance(node, ast.Import | ast.ImportFrom) and node.col_offset > 0
                   for node in ast.walk(ast.parse(_modules()[name].read_text("utf-8"))))}
    assert lazy == set(LAZY_ENGINE_IMPORTS)  # an exception no longer needed is removed


def test_a_family_game_does_without_the_card_modules() -> None:
    code = ("import sys\nfrom arena.engine import get_game\ng = get_game('agricola')\n"
            "s = g.new_state(2, seed=1)\ng.state_from_dict(s.to_dict())\n"
            "print(sorted(m for m in sys.modules if '.agricola.cards' in m))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_no_module_is_over_the_length_limit() -> None:
    """Only the modules of :data:`LONG_MODULES` are past :data:`MAX_LINES`, and each of them
    is (an exception no longer needed is removed)."""
    long = {
        name
        for name, path in _modules().items()
        if len(path.read_text(encoding="utf-8").splitlines()) > MAX_LINES
    }
    assert long == set(LONG_MODULES), sorted(long ^ set(LONG_MODULES))


#: What the command line must not import before a command needs it: the numerical and wire
#: libraries, the statistics, the sandbox and the tournament files' parser (with the schedules
#: and the stop rules behind it), Rich's live view, Dask, and the web server and asyncio of
#: ``arena serve``. Every ``arena`` process, a test's or a user's ``arena --help``, would pay
#: for them.
NOT_AT_START = ("numpy", "zmq", "trueskill", "distributed", "rich.live", "arena.stats",
                "arena.runner.game.sandbox", "arena.runner.play.config", "tornado", "asyncio")
#: What the child prints: after ``import arena.cli.main``, and after each command, the modules
#: loaded by then (a command that imported more would show it in its own and later steps).
_STARTS = """
import contextlib, json, sys
steps = {"import arena.cli.main": None, "arena --help": ["--help"], "arena run --help": ["run",
         "--help"], "arena play --help": ["play", "--help"], "arena bench --help": ["bench",
         "--help"], "arena league --help": ["league", "--help"], "arena games": ["games"]}
loaded = {}
for step, args in steps.items():
    if args is None:
        from arena.cli.main import app
    else:
        with contextlib.redirect_stdout(sys.stderr), contextlib.suppress(SystemExit):
            app(args, prog_name="arena")
    loaded[step] = sorted(sys.modules)
print(json.dumps(loaded))
"""


#: Nor what the help does not need: Rich's Markdown, its tracebacks and the parser and
#: highlighter behind them, which Typer's help formatter imports and Arena's help never uses
#: (arena.cli.common.HelpGroup).
NOT_IN_HELP = ("rich.markdown", "rich.traceback", "rich.syntax", "markdown_it", "pygments")


def test_arena_help_in_a_fresh_interpreter_imports_none_of_the_heavy_modules() -> None:
    """``python -m arena --help`` as a user runs it: the help is printed, rich (Typer's
    formatter) and none of :data:`NOT_AT_START`."""
    code = ("import runpy, sys, json\n"
            "sys.argv = ['arena', '--help']\n"
            "try:\n    runpy.run_module('arena', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "sys.stderr.write(json.dumps(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    loaded = json.loads(done.stderr)
    assert "Commands" in done.stdout and "check-bot" in done.stdout
    assert "typer.rich_utils" in loaded  # the help was Typer's rich one
    heavy = (*NOT_AT_START, *NOT_IN_HELP)
    assert [m for m in loaded if any(_within(m, h) for h in heavy)] == []


def test_the_help_formatters_stand_ins_are_the_real_classes_once_used() -> None:
    """After the help, Markdown and tracebacks still work (their modules are imported then),
    and a later import of their modules gets the real ones."""
    code = """
import contextlib, io, sys
from arena.cli.main import app
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    app(["--help"], prog_name="arena")
assert "rich.markdown" not in sys.modules and "rich.traceback" not in sys.modules
from typer import rich_utils
try:
    raise ValueError("shown")
except ValueError as exc:
    tb = rich_utils.Traceback.from_exception(type(exc), exc, exc.__traceback__)
md = rich_utils.Markdown("*x*")
import rich.markdown, rich.traceback
assert type(md) is rich.markdown.Markdown and type(tb) is rich.traceback.Traceback
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr


def test_the_command_line_starts_without_the_library() -> None:
    """``arena --help``, the commands' help and ``arena games`` import none of
    :data:`NOT_AT_START` nor :data:`NOT_IN_HELP`: the commands import what they use when they
    run."""
    done = subprocess.run([sys.executable, "-c", _STARTS], capture_output=True, text=True,
                          check=True, timeout=60)
    loaded = json.loads(done.stdout)
    assert "arena.cli.stats" in loaded["import arena.cli.main"]  # every command group is read
    assert "stoneage" in done.stderr  # and the commands ran
    heavy = {step: [m for m in modules
                    if any(_within(m, h) for h in (*NOT_AT_START, *NOT_IN_HELP))]
             for step, modules in loaded.items()}
    assert heavy == {step: [] for step in loaded}, heavy
