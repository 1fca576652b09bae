"""A cluster that speaks mutual TLS, end to end: certificates made here with the openssl
command line (a CA of the cluster's own, and a certificate it signed for the scheduler, the
worker and the organiser), a real `dask scheduler` listening on tls://, an `arena worker` with
its certificate and a tournament run over it; and, as an attacker would try it, connections
without a certificate the CA signed, which are all refused."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the cluster tests need Dask: pip install "
                                          "-e '.[dev,cluster]' (./test installs it)")

from distributed import Client
from distributed.comm import connect
from distributed.security import Security
from test_cluster import LocalCluster
from test_executor_config import certificates, needs_openssl
from test_tournament_e2e import (
    EXAMPLES,
    Runs,
    assert_schedule_played_once,
    read_journal,
    runs,
    schedule_of,
    wait_until,
    write_tournament,
)

__all__ = ["runs"]


def with_executor(file: Path, address: str, cert: str = "") -> Path:
    """``file`` with an [executor] on ``address``; its security, unless ``cert`` is "", the
    cluster's CA and ``cert``'s files in the folder ``tls`` beside it."""
    security = (f'security = {{ ca = "tls/ca.pem", cert = "tls/{cert}.pem", '
                f'key = "tls/{cert}.key" }}\n') if cert else ""
    other = file.with_name(f"{file.stem}-{cert or address.split(':')[0]}.toml")
    other.write_text(file.read_text(encoding="utf-8") + '\n[executor]\nkind = "dask"\n'
                     f'address = "{address}"\n{security}', encoding="utf-8")
    return other


def security(certs: Path, name: str) -> Security:
    """A Dask client's TLS with ``name``'s certificate (and the cluster's CA, no secret)."""
    return Security(tls_ca_file=str(certs / "ca.pem"), tls_client_cert=str(certs / f"{name}.pem"),
                    tls_client_key=str(certs / f"{name}.key"), require_encryption=True)


def dask_configuration(certs: Path) -> dict[str, str]:
    """The organiser's certificate in Dask's configuration (its environment variables)."""
    prefix = "DASK_DISTRIBUTED__COMM__TLS__"
    return {f"{prefix}CA_FILE": str(certs / "ca.pem"),
            f"{prefix}CLIENT__CERT": str(certs / "organiser.pem"),
            f"{prefix}CLIENT__KEY": str(certs / "organiser.key")}


def refused(address: str, certs: Path) -> list[str]:
    """How each outsider's connection to the scheduler at ``address`` ended: a Dask client
    with a certificate of its own, and a bare TLS connection that shows no certificate and
    checks none, then asks who the scheduler is."""
    endings = []
    try:
        Client(address, security=security(certs, "rogue"), timeout="5s",
               set_as_default=False).close()
        endings.append("a client with its own certificate connected")
    except OSError as exc:
        endings.append(f"refused: {exc}")

    async def bare() -> None:
        anything = ssl.create_default_context()
        anything.check_hostname = False
        anything.verify_mode = ssl.CERT_NONE
        comm = await connect(address, timeout="5s", ssl_context=anything)
        await comm.write({"op": "identity"})
        endings.append(f"a connection without a certificate was answered: {await comm.read()}")

    try:
        asyncio.run(bare())
    except OSError as exc:
        endings.append(f"refused: {exc}")
    return endings


@needs_openssl
def test_a_tournament_runs_over_mutual_tls_and_no_one_without_a_signed_certificate_gets_in(
    tmp_path: Path, runs: Runs
) -> None:
    """The worker's certificate from its options, the organiser's from the file's
    [executor] security, kept when --executor dask://... names the scheduler (then tls://),
    or from Dask's configuration: the games are played and recorded as on any cluster. The
    rogue certificate gets neither a worker nor a run in, nor does a run without TLS, each
    said in one line; a Dask client with the rogue certificate, or a bare connection with
    none, is refused, and the scheduler knows no worker but the one with a signed
    certificate."""
    certs = certificates(tmp_path / "tls")
    cluster = LocalCluster(tmp_path / "c")
    try:
        cluster.start_scheduler("--protocol", "tls", "--tls-ca-file", str(certs / "ca.pem"),
                                "--tls-cert", str(certs / "scheduler.pem"),
                                "--tls-key", str(certs / "scheduler.key"))
        assert cluster.address.startswith("tls://"), cluster.address
        rogue_worker = cluster.start_worker("rogue", options=(
            "--tls-ca-file", str(certs / "ca.pem"), "--tls-cert", str(certs / "rogue.pem"),
            "--tls-key", str(certs / "rogue.key")))
        cluster.start_worker("w0", options=(
            "--tls-ca-file", str(certs / "ca.pem"), "--tls-cert", str(certs / "worker.pem"),
            "--tls-key", str(certs / "worker.key")))
        cluster.wait_serving("w0")

        base = write_tournament(tmp_path, "t.toml", name="tls", output=tmp_path / "out",
                                bots=[EXAMPLES / "greedy-py", EXAMPLES / "random-py"])
        good = with_executor(base, cluster.address, "organiser")
        port = cluster.address.rsplit(":", 1)[1]
        run = runs.start(good, "--executor", f"dask://127.0.0.1:{port}")  # keeps security
        outsider = runs.start(with_executor(base, cluster.address, "rogue"), "-o",
                              str(tmp_path / "rogue-out"))
        plain = runs.start(with_executor(base, f"tcp://127.0.0.1:{port}"), "-o",
                           str(tmp_path / "plain-out"))
        configured = runs.start(with_executor(base, cluster.address), "-o",
                                str(tmp_path / "configured-out"), env=dask_configuration(certs))
        runs.finish(run, outsider, plain, configured)
        for done, out in ((run, "out"), (configured, "configured-out")):
            assert done.rc == 0 and "2/2 games, complete" in done.stdout, done.text
            assert_schedule_played_once(read_journal(tmp_path / out), schedule_of(good))

        for attempt, words in ((outsider, ": the TLS handshake failed ("),
                               (plain, ": it closed the connection (")):
            lines = attempt.stderr.strip().splitlines()
            assert attempt.rc == 2 and len(lines) == 1 and words in lines[0], attempt.text
        assert not (tmp_path / "rogue-out").exists() and not (tmp_path / "plain-out").exists()
        assert rogue_worker.wait(30) == 2
        said = cluster.log("rogue").strip().splitlines()[-1]
        assert said.startswith("error: cannot connect to the Dask scheduler at tls://"), said
        assert ": the TLS handshake failed (" in said

        assert [e.split(":", 1)[0] for e in refused(cluster.address, certs)] == ["refused"] * 2
        with Client(cluster.address, security=security(certs, "organiser"),
                    set_as_default=False, timeout="10s") as client:
            workers = client.scheduler_info(n_workers=-1)["workers"].values()
        assert [w["name"] for w in workers] == ["w0"]
        wait_until("the workers' bots have stopped", lambda: not cluster.bots(), 10)
        cluster.stop()
    finally:
        cluster.kill_everything()
