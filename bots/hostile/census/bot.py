"""A census of the host: before its hello, log everything the bot can learn from inside its
sandbox of the machine and of the runner that started it, then play random legal moves.

Each finding is one line of its log, ``hostile[census]: WHAT VALUE``: ``init-cmdline``,
``cmdline``, ``cwd`` and ``exe`` (its sandbox's first process and itself), ``mountinfo`` (one
line per mount), ``passwd``, ``group`` and ``hosts`` (one line per entry), ``hostname``,
``uname``, ``boot-id``, ``loadavg``, ``peer`` (the pid, uid and gid of the endpoint socket's
other end, by SO_PEERCRED), ``id`` (its own ids), ``env`` (one line per variable; its token's
value left out), ``python`` (where its interpreter says it lives) and ``listing`` (every folder
it can list down to three levels below ``/``, outside the system's trees), then
``census done``.
"""

from __future__ import annotations

import os
import socket
import struct
import sys
from collections.abc import Iterator

from arena.protocol.client import run
from arena.protocol.reference_bot import RandomBot

#: Trees the listing does not enter: the kernel's views, devices and the system's programs.
SYSTEM = ("/proc", "/sys", "/dev", "/usr")
#: How far below / the listing goes.
DEPTH = 3


def report(what: str, *values: object) -> None:
    print(" ".join(["hostile[census]:", what, *map(str, values)]), file=sys.stderr, flush=True)


def text(path: str) -> str:
    """The file's text, or why it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError as exc:
        return f"unreadable ({exc.strerror})"


def words(path: str) -> str:
    """A NUL-separated file (a command line) as words."""
    return " ".join(text(path).rstrip("\0").split("\0"))


def peer() -> str:
    """The other end of the endpoint's unix socket, by SO_PEERCRED."""
    endpoint = os.environ.get("ARENA_ENDPOINT", "")
    if not endpoint.startswith("ipc://"):
        return f"none (the endpoint is {endpoint})"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        try:
            s.connect(endpoint[len("ipc://"):])
        except OSError as exc:
            return f"unknown ({exc.strerror})"
        pid, uid, gid = struct.unpack("3i", s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                         struct.calcsize("3i")))
    return f"pid={pid} uid={uid} gid={gid}"


def listings(top: str = "/", depth: int = DEPTH) -> Iterator[tuple[str, list[str]]]:
    """(folder, its names) for every folder it can list from ``top`` down to ``depth`` levels
    below it, not into :data:`SYSTEM` or links."""
    try:
        names = sorted(os.listdir(top))
    except OSError:
        return
    yield top, names
    if depth == 0:
        return
    for name in names:
        path = os.path.join(top, name)
        if path not in SYSTEM and os.path.isdir(path) and not os.path.islink(path):
            yield from listings(path, depth - 1)


def census() -> None:
    report("init-cmdline", words("/proc/1/cmdline"))
    report("cmdline", words("/proc/self/cmdline"))
    report("cwd", os.getcwd())
    report("exe", os.readlink("/proc/self/exe"))
    for line in text("/proc/self/mountinfo").splitlines():
        report("mountinfo", line)
    for name in ("passwd", "group", "hosts"):
        for line in text(f"/etc/{name}").splitlines():
            report(name, line)
    report("hostname", socket.gethostname())
    report("uname", *os.uname())
    report("boot-id", text("/proc/sys/kernel/random/boot_id").strip())
    report("loadavg", text("/proc/loadavg").strip())
    report("peer", peer())
    report("id", f"uid={os.getuid()} gid={os.getgid()} groups={os.getgroups()}")
    for key, value in sorted(os.environ.items()):
        report("env", f"{key}={'(its token)' if key == 'ARENA_TOKEN' else value}")
    report("python", f"executable={sys.executable} prefix={sys.prefix} "
                     f"base_prefix={sys.base_prefix} path={':'.join(sys.path)}")
    for folder, names in listings():
        report("listing", f"{folder}:", *names)
    report("census", "done")


if __name__ == "__main__":
    census()
    run(RandomBot("hostile-census", "1.0"))
