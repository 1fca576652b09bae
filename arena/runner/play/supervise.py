"""A process that starts bots, under a supervisor, so that none of its bots outlives it.

A bot process gets a parent-death signal, and a sandboxed bot's bwrap passes one on to its
sandbox's init (``--die-with-parent``), but bwrap's init asks for its own only once it has set
the sandbox up: a process that starts bots and is SIGKILLed while a sandbox is being set up
leaves that sandbox running, its init adopted by the system's. So :func:`supervise` forks the
work into a child and stays as its parent, a child subreaper (``PR_SET_CHILD_SUBREAPER``):

- the child SIGKILLed (or dying any other way): whatever it started and left behind is
  handed to the supervisor, which kills it all, then exits;
- the supervisor SIGKILLed: the child gets SIGTERM as its parent-death signal, and sees its
  lifeline (a pipe only the supervisor holds open) close, and stops as on SIGTERM, killing
  its bots itself; it is SIGKILLed should it not manage within :data:`GRACE_S`. (SIGKILL as
  the parent-death signal would end it before it killed its bots, and left sandboxes being
  set up running.)

The supervisor passes SIGINT and SIGTERM on to the child.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
#: How long the child may take to stop once its supervisor is gone.
GRACE_S = 30.0
#: How long the supervisor keeps killing what the child left.
REAP_S = 10.0
#: The signals the supervisor passes on to the child.
FORWARDED = {signal.SIGINT, signal.SIGTERM}


def _prctl(option: int, value: int) -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def supervise(work: Callable[[], int]) -> int:
    """Run ``work`` in a forked child under this process (see the module's doc) and return
    its exit status (128 + the signal's number if a signal ended it). Call it before any
    thread is started."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    lifeline_r, lifeline_w = os.pipe()
    parent = os.getpid()
    # SIGINT and SIGTERM wait until each side is ready for them: a handler that raised in the
    # child while the fork's own clean-up ran there printed a traceback and left it half made.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)
    pid = os.fork()
    if pid == 0:  # the child
        os.close(lifeline_w)
        _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the supervisor died before the line above
            os._exit(1)
        threading.Thread(target=_watch, args=(lifeline_r,), daemon=True).start()
        code = 1
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            code = work()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    os.close(lifeline_r)
    for sig in FORWARDED:
        signal.signal(sig, lambda signum, frame: _send(pid, signum))
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    _reap()
    os.close(lifeline_w)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _send(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signum)


def _watch(lifeline: int) -> None:
    """In the child: when the supervisor is gone, stop as on SIGTERM; then, if still here
    after :data:`GRACE_S`, die."""
    with contextlib.suppress(OSError):
        while os.read(lifeline, 1):
            pass
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(GRACE_S)
    os.kill(os.getpid(), signal.SIGKILL)


def _children() -> list[int]:
    me = str(os.getpid())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat[stat.rfind(")") + 2:].split()[1] == me:
            found.append(int(entry.name))
    return found


def _reap() -> None:
    """Kill (and wait for) every process handed to this subreaper. A sandbox's init killed,
    the kernel kills everything inside its sandbox."""
    deadline = time.monotonic() + REAP_S
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        left = _children()
        if not left:
            return
        for pid in left:
            _send(pid, signal.SIGKILL)
        time.sleep(0.02)
