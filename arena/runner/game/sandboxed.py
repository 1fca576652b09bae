"""What runs in a bot's sandbox, as seen from the runner: the sandbox's init, every process
below it (in PID namespaces nested in the sandbox's too), and which of them the bot started.

The runner reads ``/proc``: the bwrap process it started has one child in another PID
namespace, bwrap's init, and everything the bot starts, however it forks, stays below that init
(an orphan goes to it). :class:`~arena.runner.game.processes.BotProcess` kills the init to end a
sandbox, and ``check-bot`` counts what the bot left behind.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: The bot's command's pid inside its sandbox (1 is bwrap's init, which forks it first).
BOT_PID_INSIDE = 2


def pid_namespace(pid: int) -> str | None:
    """The PID namespace of the process ``pid`` (as ``pid:[inode]``), or None if it is gone."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def sandbox_init(bwrap_pid: int) -> int | None:
    """The pid (as seen here) of bwrap's init inside the sandbox started by the bwrap process
    ``bwrap_pid``: its child in another PID namespace; None if there is none (yet, or any
    more)."""
    try:
        children = Path(f"/proc/{bwrap_pid}/task/{bwrap_pid}/children").read_text().split()
    except OSError:
        return None
    outside = pid_namespace(bwrap_pid)
    for child in map(int, children):
        ns = pid_namespace(child)
        if ns is not None and ns != outside:
            return child
    return None


def _running(pid: int) -> bool:
    """True if the process ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:][:1] not in ("Z", "X")


def process_tree(pid: int) -> list[int]:
    """``pid`` and every running process below it (the children of each of its threads, and
    theirs), as far as they can be read. Below a sandbox's init this is everything in the
    sandbox, in PID namespaces nested in it too: an orphan goes to the init."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        if not _running(p):
            continue
        found.append(p)
        try:
            tasks = list(Path(f"/proc/{p}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
    return found


def sandbox_processes(bwrap_pid: int) -> list[int]:
    """Every running process in the sandbox started by the bwrap process ``bwrap_pid`` (its
    init first), as seen here; empty if it has none (yet, or any more)."""
    init = sandbox_init(bwrap_pid)
    return process_tree(init) if init is not None else []


def _nspid(pid: int) -> list[int]:
    """The pid of ``pid`` in each PID namespace it is in, outermost first (empty if gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return []
    for line in status.splitlines():
        if line.startswith("NSpid:"):
            return [int(p) for p in line.split()[1:]]
    return []


def started_by_the_bot(bwrap_pid: int) -> list[int] | None:
    """The running processes of the sandbox started by ``bwrap_pid`` other than its init and
    the bot's command (:data:`BOT_PID_INSIDE` in the sandbox's namespace): what the bot
    started, in namespaces nested in the sandbox's too. None while the bot's command is not
    running (not yet, or no more: the sandbox is then ending the rest)."""
    tree = sandbox_processes(bwrap_pid)
    if not tree:
        return None
    depth = len(_nspid(tree[0]))
    others = [p for p in tree[1:] if _nspid(p)[depth - 1:] != [BOT_PID_INSIDE]]
    return others if len(others) < len(tree) - 1 else None


def still_running(pids: Iterable[int]) -> list[int]:
    """Those of ``pids`` still running (a check moments after they were seen: a pid is not
    reused that fast)."""
    return [p for p in pids if _running(p)]
