"""docs/protocol.md stays true to the protocol layer and the runner, and every page under docs/
stays well-formed markdown: one name for the request id everywhere, every message field in its
table, the manifest fields and command placeholders the runner really accepts, the flood limit,
the games' own pages linked instead of the source tree, and tables whose rows all have their
header's number of cells."""

from __future__ import annotations

import dataclasses
import inspect
import re
import time
import tomllib
from pathlib import Path

import pytest

from arena.engine import get_game
from arena.protocol.messages import BOT_MESSAGES, REFEREE_MESSAGES
from arena.protocol.server import FLOOD_LIMIT
from arena.runner.game.botlog import BotLog
from arena.runner.game.manifest import BotManifest, Limits, ManifestError
from arena.runner.game.processes import BotProcess
from arena.runner.game.sandbox import Sandbox, sandbox_problem

DOCS = Path(__file__).resolve().parents[1] / "docs"
PROTOCOL = DOCS / "protocol.md"


@pytest.fixture(scope="module")
def page() -> str:
    return PROTOCOL.read_text(encoding="utf-8")


def _cells(line: str) -> list[str]:
    """The cells of a table row, as GitHub's markdown splits them: at every pipe not escaped as
    ``\\|`` (a pipe inside backticks splits a cell too)."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _outside_code(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line outside fenced code blocks."""
    lines: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def _tables(text: str) -> list[list[tuple[int, str]]]:
    """Every table: runs of consecutive lines (outside code) that start with a pipe."""
    tables: list[list[tuple[int, str]]] = []
    previous = -1
    for number, line in _outside_code(text):
        if line.lstrip().startswith("|"):
            if number == previous + 1 and tables:
                tables[-1].append((number, line))
            else:
                tables.append([(number, line)])
            previous = number
    return tables


def _section(page: str, heading: str) -> str:
    """From the heading line that starts with ``heading`` to the next heading of any level."""
    match = re.search(rf"^{re.escape(heading)}.*?(?=^#+ |\Z)", page,
                      flags=re.DOTALL | re.MULTILINE)
    assert match, f"no section {heading!r}"
    return match.group(0)


# --- markdown ------------------------------------------------------------------------------------


@pytest.mark.parametrize("doc", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_every_table_row_has_its_headers_number_of_cells(doc: Path) -> None:
    tables = _tables(doc.read_text(encoding="utf-8"))
    assert tables
    for table in tables:
        (first, header), *rows = table
        width = len(_cells(header))
        assert rows and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", rows[0][1].strip()), \
            f"{doc.name}:{first}: a table's second line must be its rule"
        for number, line in table:
            assert len(_cells(line)) == width, (
                f"{doc.name}:{number}: {len(_cells(line))} cells, the header has {width}")


@pytest.mark.parametrize("doc", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_tables_stand_at_the_left_margin(doc: Path) -> None:
    """A table indented inside a list item is not a table to every renderer."""
    for table in _tables(doc.read_text(encoding="utf-8")):
        for number, line in table:
            assert line.startswith("|"), f"{doc.name}:{number}: an indented table row"


# --- messages ------------------------------------------------------------------------------------


def test_the_session_diagram_names_request_id(page: str) -> None:
    blocks = re.findall(r"^```\w*\n(.*?)^```\s*$", page, flags=re.DOTALL | re.MULTILINE)
    diagram = next(block for block in blocks if "hello {" in block)
    assert re.search(r"(?<![\w])id(?![\w])", diagram) is None, "a bare 'id' in the diagram"
    assert "request {request_id, ...}" in diagram
    assert "action {request_id, index}" in diagram
    for mention in re.findall(r"\b(?:request|action) \{[^}]*\}", page):
        assert "request_id" in mention, mention


def test_every_message_field_has_its_row(page: str) -> None:
    schemas = {**{t: set(f) for t, f in REFEREE_MESSAGES.items()}}
    for mtype, fields in BOT_MESSAGES.items():
        schemas[mtype] = schemas.get(mtype, set()) | set(fields)
    messages = page.split("\n## Messages\n", 1)[1].split("\n## ", 1)[0]
    for mtype, fields in schemas.items():
        heading = next(line for line in messages.splitlines()
                       if line.startswith("### ") and re.search(rf"\b{mtype}\b", line))
        section = _section(messages, heading)
        fields_table = _tables(section)[0][2:]  # the first table, below its header and rule
        rows = {_cells(line)[0] for _, line in fields_table}
        assert rows == {f"`{f}`" for f in fields | {"type", "protocol"}}, mtype
    assert "| `id` |" not in page


def test_the_flood_limit_is_the_servers(page: str) -> None:
    row = next(line for line in page.splitlines() if line.startswith("| flood |"))
    assert _cells(row)[1] == f"{FLOOD_LIMIT} messages"
    assert "`pong`s" in row and "request or a ping" in row


def test_error_codes_the_referee_sends_are_listed(page: str) -> None:
    row = _cells(next(line for line in _section(page, "### error").splitlines()
                      if line.startswith("| `code` |")))
    for code in ("bad_token", "bad_hello", "protocol_mismatch", "protocol_error",
                 "illegal_action", "timeout", "crash"):
        assert f"`{code}`" in row[2], code


def test_the_games_have_their_own_pages(page: str) -> None:
    """The spec points bot authors at docs/, never into the source tree."""
    assert "RULES.md" not in page and "arena/engine" not in page
    for game in ("stoneage", "agricola"):
        assert f"({game}.md)" in page
        assert (DOCS / f"{game}.md").is_file()


# --- the manifest ------------------------------------------------------------------------------


def _manifest_rows(page: str) -> dict[str, bool]:
    """The manifest table: field -> required."""
    section = _section(page, "## The bot's folder and manifest")
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = _cells(line)
            rows[cells[0].strip("`")] = cells[1] == "yes"
    return rows


def test_the_manifest_fields_are_the_runners(page: str, tmp_path: Path) -> None:
    rows = _manifest_rows(page)
    (tmp_path / "lib").mkdir()
    values = {"name": "my-bot", "version": "1.0", "language": "c", "command": ["./my-bot"],
              "description": "text", "needs": ["lib"], "build": ["make"],
              "limits": {"open_files": 64}}
    assert set(rows) == set(values)
    BotManifest.from_dict(values, tmp_path, "bot.toml")
    for field, required in rows.items():
        less = {k: v for k, v in values.items() if k != field}
        if required:
            with pytest.raises(ManifestError, match=field):
                BotManifest.from_dict(less, tmp_path, "bot.toml")
        else:
            BotManifest.from_dict(less, tmp_path, "bot.toml")
    with pytest.raises(ManifestError, match="unknown"):
        BotManifest.from_dict({**values, "entry": "x"}, tmp_path, "bot.toml")
    limits = next(line for line in page.splitlines() if line.startswith("| `limits` |"))
    for field in dataclasses.fields(Limits):
        assert f"`{field.name}`" in limits, field.name


def test_the_command_placeholders_are_the_runners(page: str, tmp_path: Path) -> None:
    section = _section(page, "## The bot's folder and manifest")
    bullet = next(p for p in section.split("\n- ") if p.startswith("**Placeholders.**"))
    documented = set(re.findall(r"`\{(\w+)\}`", bullet))
    assert documented == {"python", "node"}
    command = [f"{{{name}}}" for name in sorted(documented)] + ["{other}", "x-{python}"]
    manifest = BotManifest.from_dict(
        {"name": "b", "version": "1", "language": "c", "command": command}, tmp_path, "bot.toml")
    argv = manifest.argv()
    for placeholder, value in zip(command[:-2], argv, strict=False):
        assert value != placeholder and "{" not in value, placeholder
    assert argv[-2] == "{other}"  # nothing else is replaced
    assert not argv[-1].endswith("{python}")  # wherever it appears


# --- what a bot's author asks ---------------------------------------------------------------------


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_packages_a_python_bot_may_count_on_are_arenas_own_and_import_in_the_sandbox(
    page: str, tmp_path: Path,
) -> None:
    """The manifest section lists the packages `{python}` imports: exactly the ones Arena is
    installed with (pyproject.toml), each importable by a sandboxed bot under the name given."""
    section = _section(page, "## The bot's folder and manifest")
    bullet = _flat(next(p for p in section.split("\n- ")
                        if p.startswith("**What `{python}` imports.**")))
    listing = bullet.split("installed with:", 1)[1].split(", in the versions", 1)[0]
    named = re.findall(r"`([\w.-]+)`(?: \(imported as `(\w+)`\))?", listing)
    pyproject = tomllib.loads((DOCS.parent / "pyproject.toml").read_text(encoding="utf-8"))
    required = {re.match(r"[\w.-]+", d).group(0).lower()  # type: ignore[union-attr]
                for d in pyproject["project"]["dependencies"]}
    assert {name for name, _ in named} == required

    problem = sandbox_problem()
    if problem is not None:
        pytest.skip(f"no sandbox here: {problem}")
    modules = [module or name for name, module in named] + ["arena.protocol.client"]
    folder = tmp_path / "importer"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "importer"\nversion = "1"\nlanguage = "python"\n'
                                     'command = ["{python}", "bot.py"]\n', encoding="utf-8")
    (folder / "bot.py").write_text(
        "import importlib, time\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print('imported every one', flush=True)\n"
        "time.sleep(60)\n", encoding="utf-8")
    (tmp_path / "endpoint").mkdir()
    log = BotLog(tmp_path / "importer.log", 1 << 20)
    bot = BotProcess(BotManifest.load(folder), {}, log, sandbox=Sandbox(tmp_path / "endpoint"))
    try:
        deadline = time.monotonic() + 30
        while "imported every one" not in log.path.read_text() and time.monotonic() < deadline:
            assert bot.alive(), log.path.read_text()
            time.sleep(0.05)
    finally:
        bot.kill()
        log.close()
    assert "imported every one" in log.path.read_text(), log.path.read_text()


def test_check_bot_plays_stone_age_unless_its_game_is_given(page: str) -> None:
    from arena.cli.game import check_bot

    section = _flat(_section(page, "## Checking a bot"))
    assert "The game is Stone Age unless `--game` names another" in section
    assert inspect.signature(check_bot).parameters["game"].default == "stoneage"
    for game in re.findall(r"--game (\w+)", section):
        assert get_game(game).name == game


def test_the_error_message_tells_a_bot_what_to_do_after_it(page: str) -> None:
    section = _flat(_section(page, "### error"))
    assert "A bot that receives `error` need do nothing more" in section
    assert "the referee kills its process group right away whatever it does" in section
