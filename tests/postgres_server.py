"""A throwaway PostgreSQL server for tests: ``initdb`` + ``pg_ctl`` in a temporary folder,
listening only on a unix socket there (no TCP port), trust authentication, stopped and removed
afterwards. As root (CI) the server runs as the ``postgres`` user (or ``nobody``): PostgreSQL
refuses to run as root.

:func:`start` returns ``(url, stop)`` or raises :class:`Unavailable` saying why not.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, List, Optional, Tuple


class Unavailable(RuntimeError):
    """No PostgreSQL server can be started here; the message says why."""


def _binary(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise Unavailable(f"{name} not found (install Debian's 'postgresql' package; .ci/run does)")
    return found


def _free_port() -> int:
    with socket.socket() as s:  # the port only names the unix socket file; nothing listens on TCP
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_user() -> Tuple[List[str], Optional[pwd.struct_passwd]]:
    if os.geteuid() != 0:
        return [], None
    for name in ("postgres", "nobody"):
        try:
            user = pwd.getpwnam(name)
        except KeyError:
            continue
        return ["runuser", "-u", name, "--"], user
    raise Unavailable("running as root and no 'postgres' or 'nobody' user to run the server as")


def start() -> Tuple[str, Callable[[], None]]:
    """Start a server; returns its SQLAlchemy URL (psycopg2, unix socket) and a stop function."""
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    prefix, user = _as_user()
    root = Path(tempfile.mkdtemp(prefix="pgtest-"))
    if user is not None:
        os.chown(root, user.pw_uid, user.pw_gid)
    data, port = root / "data", _free_port()

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120)

    done = run(initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "--no-sync")
    if done.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        raise Unavailable(f"initdb failed: {done.stderr.strip()[-300:]}")
    options = f"-c listen_addresses='' -c unix_socket_directories={root} -p {port} -c fsync=off"
    done = run(pg_ctl, "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start")
    if done.returncode != 0:
        log = (root / "log").read_text() if (root / "log").exists() else done.stderr
        shutil.rmtree(root, ignore_errors=True)
        raise Unavailable(f"pg_ctl start failed: {log.strip()[-300:]}")

    def stop() -> None:
        run(pg_ctl, "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(root, ignore_errors=True)

    return f"postgresql+psycopg2://postgres@/postgres?host={root}&port={port}", stop
