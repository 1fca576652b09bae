"""The tournament file's ``[executor]`` table and ``arena run --executor``: where the games run,
validated with a message naming the field, and not part of what the tournament is."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_tournament_e2e import example, signals_kept, write_tournament
from typer.testing import CliRunner

from arena.cli.main import app
from arena.runner.play.config import (
    ConfigError,
    ExecutorSettings,
    TLSFiles,
    load_config,
    scheduler_address,
)
from arena.runner.play.settings import Overrides

cli = CliRunner()
needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None,
                                   reason="the certificates are made with openssl")
#: An elliptic-curve key: made in milliseconds, where RSA takes a good part of a second.
NEW_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]


def openssl(folder: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)


def certificates(folder: Path) -> Path:
    """In ``folder``: a cluster's CA (``ca.pem``), a key and a certificate it signed for
    each of ``scheduler``, ``worker`` and ``organiser`` (``NAME.key``, ``NAME.pem``), and
    ``rogue``'s, self-signed: an outsider's, which no one of the cluster signed."""
    folder.mkdir(parents=True)
    openssl(folder, "req", "-x509", *NEW_KEY, "-days", "2", "-subj", "/CN=arena-test-ca",
            "-keyout", "ca.key", "-out", "ca.pem")
    for name in ("scheduler", "worker", "organiser"):
        openssl(folder, "req", *NEW_KEY, "-subj", f"/CN={name}", "-keyout", f"{name}.key",
                "-out", f"{name}.csr")
        openssl(folder, "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey",
                "ca.key", "-CAcreateserial", "-days", "2", "-out", f"{name}.pem")
    openssl(folder, "req", "-x509", *NEW_KEY, "-days", "2", "-subj", "/CN=rogue",
            "-keyout", "rogue.key", "-out", "rogue.pem")
    return folder


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
    assert load_config(file, Overrides(executor="tcp://other:2")).executor == ExecutorSettings(
        "dask", "tcp://other:2", False)
    assert load_config(file, Overrides(executor="local")).executor == ExecutorSettings()


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


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return certificates(tmp_path_factory.mktemp("tls") / "tls")


def with_security(tmp_path: Path, certs: Path, security: str,
                  address: str = "dask://h:8786") -> Path:
    """A tournament file in ``tmp_path`` on a Dask cluster, ``security`` its security, with
    the certificates beside it in ``tls``."""
    if not (tmp_path / "tls").exists():
        (tmp_path / "tls").symlink_to(certs)
    return tournament(tmp_path, f'kind = "dask"\naddress = "{address}"\nsecurity = {security}\n')


@needs_openssl
def test_security_names_files_relative_to_the_file_and_makes_dask_addresses_tls(
    tmp_path: Path, certs: Path
) -> None:
    file = with_security(tmp_path, certs, '{ ca = "tls/ca.pem", cert = "tls/organiser.pem", '
                                          'key = "tls/organiser.key" }')
    executor = load_config(file).executor
    assert executor.address == "tls://h:8786"
    assert executor.security == TLSFiles(str(tmp_path / "tls" / "ca.pem"),
                                         str(tmp_path / "tls" / "organiser.pem"),
                                         str(tmp_path / "tls" / "organiser.key"))
    # --executor dask://... keeps the file's security; local drops it.
    other = load_config(file, Overrides(executor="dask://o:1"))
    assert other.executor.address == "tls://o:1" and other.executor.security is not None
    assert load_config(file, Overrides(executor="local")).executor == ExecutorSettings()
    assert scheduler_address("tls://h:8786") == "tls://h:8786"


@needs_openssl
@pytest.mark.parametrize(("security", "field", "words"), [
    ('"tls"', "'executor.security'", ["must be a table", "ca = ..., cert = ..., key = ..."]),
    ('{ ca = "tls/ca.pem", cert = "tls/organiser.pem" }', "'executor.security'",
     ["missing: key"]),
    ('{ ca = "tls/ca.pem", cert = "tls/organiser.pem", key = "tls/organiser.key", pin = 1 }',
     "'executor.security'", ["unknown: pin"]),
    ('{ ca = "tls/ca.pem", cert = "tls/organiser.pem", key = 3 }', "'executor.security.key'",
     ["must be the path of a PEM file"]),
    ('{ ca = "tls/nope.pem", cert = "tls/organiser.pem", key = "tls/organiser.key" }',
     "'executor.security.ca'", ["tls/nope.pem: No such file or directory"]),
    ('{ ca = "tls/ca.key", cert = "tls/organiser.pem", key = "tls/organiser.key" }',
     "'executor.security.ca'", ["tls/ca.key holds no PEM certificate"]),
    ('{ ca = "tls/ca.pem", cert = "tls/organiser.pem", key = "tls/worker.key" }',
     "'executor.security.cert'", ["not a PEM certificate and the private key that matches it"]),
    ('{ ca = "tls/ca.pem", cert = "tls/organiser.pem", key = "tls/locked.key" }',
     "'executor.security.key'", ["is encrypted", "without a passphrase"]),
])
def test_security_errors_name_the_field_and_the_file(
    tmp_path: Path, certs: Path, security: str, field: str, words: list[str]
) -> None:
    if not (certs / "locked.key").exists():
        openssl(certs, "pkey", "-in", "organiser.key", "-aes256", "-passout", "pass:secret",
                "-out", "locked.key")
    file = with_security(tmp_path, certs, security)
    with pytest.raises(ConfigError) as caught:
        load_config(file)
    message = str(caught.value)
    assert message.startswith(f"{file}: {field} ") and "\n" not in message, message
    for word in words:
        assert word in message, message


@needs_openssl
def test_security_needs_an_encrypted_address_and_a_league_reads_it_too(
    tmp_path: Path, certs: Path
) -> None:
    from arena.league.config import load_league

    good = '{ ca = "tls/ca.pem", cert = "tls/organiser.pem", key = "tls/organiser.key" }'
    file = with_security(tmp_path, certs, good, address="tcp://h:8786")
    with pytest.raises(ConfigError, match=r"'executor.address' 'tcp://h:8786' is unencrypted"):
        load_config(file)
    league = tmp_path / "league"
    league.mkdir()
    (league / "tls").symlink_to(certs)
    (league / "league.toml").write_text('game = "stoneage"\nplayers = 2\n[executor]\n'
                                        f'kind = "dask"\naddress = "h:1"\nsecurity = {good}\n',
                                        encoding="utf-8")
    executor = load_league(league, Overrides(executor="dask://o:2")).executor
    assert executor.address == "tls://o:2"
    assert executor.security is not None and executor.security.ca == str(league / "tls/ca.pem")


def test_a_worker_without_its_certificates_is_refused_in_one_line(tmp_path: Path) -> None:
    with signals_kept():
        some = cli.invoke(app, ["worker", "tls://127.0.0.1:1", "--tls-cert", "w.pem"])
        none = cli.invoke(app, ["worker", "tls://127.0.0.1:1"])
        missing = cli.invoke(app, ["worker", "dask://127.0.0.1:1", "--tls-ca-file",
                                   str(tmp_path / "ca.pem"), "--tls-cert", "w.pem",
                                   "--tls-key", "w.key"])
    for r, words in ((some, "--tls-ca-file, --tls-cert, --tls-key go together: --tls-ca-file, "
                            "--tls-key missing"),
                     (none, "the Dask scheduler at tls://127.0.0.1:1 speaks TLS, and this "
                            "machine has no certificate for it: give --tls-ca-file"),
                     (missing, f"--tls-ca-file: {tmp_path / 'ca.pem'}: No such file")):
        assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
        assert words in r.output, r.output
