"""The tournament file's ``[executor]`` table and ``arena run --executor``: where the games run,
validated with a message naming the field, and not part of what the tournament is."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_tournament_e2e import example, signals_kept, write_tournament
from typer.testing import CliRunner

from arena.cli import app
from arena.runner.config import ConfigError, ExecutorSettings, load_config, scheduler_address

cli = CliRunner()


def tournament(tmp_path: Path, executor: str = "") -> Path:
    file = write_tournament(tmp_path, "t.toml", name="where", output=tmp_path / "out",
                            bots=[example("greedy-py"), example("random-py")])
    if executor:
        file.write_text(file.read_text(encoding="utf-8") + "\n[executor]\n" + executor,
                        encoding="utf-8")
    return file


@pytest.mark.parametrize(("text", "address"), [
    ("tcp://10.0.0.5:8786", "tcp://10.0.0.5:8786"),
    ("dask://scheduler.example:8786", "tcp://scheduler.example:8786"),
    ("127.0.0.1:9000", "tcp://127.0.0.1:9000"),
    ("tcp://[::1]:8786", "tcp://[::1]:8786"),
])
def test_scheduler_addresses_are_read_as_tcp(text: str, address: str) -> None:
    assert scheduler_address(text) == address


@pytest.mark.parametrize("text", ["tcp://host", "tcp://:8786", "http://host:8786",
                                  "tcp://host:0", "tcp://host:65536", "tcp://host:port",
                                  "tcp://ho st:8786", "", "dask://"])
def test_a_malformed_scheduler_address_is_refused_with_the_form_to_give(text: str) -> None:
    with pytest.raises(ValueError, match=r"tcp://HOST:PORT"):
        scheduler_address(text)


def test_the_default_executor_is_local_and_a_dask_table_is_read(tmp_path: Path) -> None:
    assert load_config(tournament(tmp_path)).executor == ExecutorSettings()
    config = load_config(tournament(tmp_path, 'kind = "dask"\naddress = "dask://h:8786"\n'
                                              "ship_bots = false\nwait_for_workers_s = 5\n"))
    assert config.executor == ExecutorSettings("dask", "tcp://h:8786", False, 5)


def test_the_executor_is_not_part_of_the_tournament(tmp_path: Path) -> None:
    """A run may resume on another executor."""
    local = load_config(tournament(tmp_path))
    dask = load_config(tournament(tmp_path, 'kind = "dask"\naddress = "tcp://h:8786"\n'))
    assert local.identity() == dask.identity()


@pytest.mark.parametrize(("table", "field", "words"), [
    ('kind = "ray"\n', "'executor.kind'", ["local, dask", "'ray'"]),
    ('kind = "dask"\n', "'executor.address'", ["required", "tcp://HOST:PORT"]),
    ('kind = "dask"\naddress = "tcp://h"\n', "'executor.address'", ["tcp://HOST:PORT"]),
    ('kind = "dask"\naddress = "tcp://h:1"\nship_bots = "yes"\n', "'executor.ship_bots'",
     ["true or false"]),
    ('kind = "dask"\naddress = "tcp://h:1"\nwait_for_workers_s = -1\n',
     "'executor.wait_for_workers_s'", ["0..86400"]),
    ('address = "tcp://h:1"\n', "'executor'", ["address", 'kind = "dask"']),
    ('kind = "dask"\naddress = "tcp://h:1"\nslots = 3\n', "'executor'", ["unknown", "slots"]),
])
def test_executor_errors_name_the_field(tmp_path: Path, table: str, field: str,
                                        words: list[str]) -> None:
    file = tournament(tmp_path, table)
    with pytest.raises(ConfigError) as caught:
        load_config(file)
    message = str(caught.value)
    assert message.startswith(f"{file}: {field} "), message
    for word in words:
        assert word in message, message


def test_the_executor_option_overrides_the_file(tmp_path: Path) -> None:
    file = tournament(tmp_path, 'kind = "dask"\naddress = "tcp://h:1"\nship_bots = false\n')
    dask = {"kind": "dask", "address": "tcp://other:2"}
    assert load_config(file, {"executor": dask}).executor == ExecutorSettings(
        "dask", "tcp://other:2", False)
    assert load_config(file, {"executor": {"kind": "local"}}).executor == ExecutorSettings()


@pytest.mark.parametrize("value", ["dask://nowhere", "mpi://h:1", "h"])
def test_a_bad_executor_option_is_one_line_before_anything_runs(tmp_path: Path,
                                                                value: str) -> None:
    file = tournament(tmp_path)
    with signals_kept():
        r = cli.invoke(app, ["run", str(file), "--plain", "--executor", value])
    assert r.exit_code == 2, r.output
    assert "--executor must be local or dask://HOST:PORT" in r.output
    assert "Traceback" not in r.output
    assert not (tmp_path / "out").exists()


def test_without_dask_the_cluster_commands_say_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on a machine where arena[cluster] was not installed (the import of distributed
    fails); a local run does not need it."""
    monkeypatch.setitem(sys.modules, "distributed", None)
    file = tournament(tmp_path)
    with signals_kept():
        run = cli.invoke(app, ["run", str(file), "--plain", "--executor", "dask://127.0.0.1:1"])
        worker = cli.invoke(app, ["worker", "tcp://127.0.0.1:1"])
    for r, who in ((run, "the dask executor"), (worker, "arena worker")):
        assert r.exit_code == 2, r.output
        assert f"{who} needs Dask, which is not installed: install arena[cluster]" in r.output
        assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()
    with signals_kept():
        local = cli.invoke(app, ["run", str(file), "--plain", "--executor", "local"])
    assert local.exit_code == 0, local.output
