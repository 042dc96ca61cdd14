"""A throwaway PostgreSQL server for tests: initdb in a temporary folder, started on a free
loopback port (as the `postgres` user when the tests run as root: initdb refuses root), one
fresh database per test. Skips with a clear message when the server binaries are absent."""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

BIN_GLOB = "/usr/lib/postgresql/*/bin"


def server_bin() -> Path | None:
    found = sorted(glob.glob(BIN_GLOB), key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0)
    for path in reversed(found):
        if (Path(path) / "initdb").exists():
            return Path(path)
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, bin_dir: Path):
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="icetable-pg-"))
        self.data, self.port, self.count = self.root / "data", free_port(), 0
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(self.root, "postgres")
        self.run("initdb", "-D", str(self.data), "-U", "icetable", "--auth=trust", "-E", "UTF8", "--no-sync")
        self.run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-w", "-t", "60", "-o",
                 f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                 f"-c max_connections=300", "start")

    def run(self, tool: str, *args: str) -> None:
        subprocess.run(self.as_user + [str(self.bin / tool), *args], check=True, cwd=self.root,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def url(self, name: str = "postgres") -> str:
        return f"postgresql://icetable@127.0.0.1:{self.port}/{name}"

    def new_database(self) -> str:
        import psycopg
        self.count += 1
        name = f"icetable_test_{self.count}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        try:
            self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_cluster():
    bin_dir = server_bin()
    if bin_dir is None:
        pytest.skip(f"PostgreSQL server binaries not found ({BIN_GLOB}/initdb or initdb on PATH): "
                    "install Debian's postgresql package to run the PostgreSQL store tests")
    pytest.importorskip("psycopg", reason="the psycopg driver is not installed")
    cluster = Cluster(bin_dir)
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg_cluster) -> str:
    """A fresh, empty database on the test server."""
    return pg_cluster.new_database()
