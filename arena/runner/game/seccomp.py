"""The system-call filter of a bot's sandbox, compiled by libseccomp and handed to bwrap.

The filter allows everything but what reaches kernel code no game needs and that has been the
way out of sandboxes like this one:

- **new user namespaces** (``unshare`` or ``clone`` with ``CLONE_NEWUSER``): inside one, a bot
  holds every capability over namespaces of its own, which opens kernel code an unprivileged
  process never reaches otherwise; the usual road to a local privilege escalation. ``clone3``,
  whose flags sit in memory where a filter cannot read them, answers "not implemented", and
  the C library then falls back to ``clone``.
- **kernel-wide facilities**: the kernel's key rings (``add_key``, ``keyctl``,
  ``request_key``), ``bpf``, ``perf_event_open`` and ``userfaultfd``.

Each is refused with ``EPERM`` (``ENOSYS`` for ``clone3``), so a bot gets an error, not a kill.
libseccomp (Debian package ``libseccomp2``, the library Flatpak and systemd build their
filters with) is called through ctypes: the filter is compiled once per process, and each
sandbox gets it on a pipe (bwrap ``--seccomp FD``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import tempfile

#: unshare/clone flag of a new user namespace.
CLONE_NEWUSER = 0x10000000
#: System calls refused outright.
REFUSED = ("add_key", "keyctl", "request_key", "bpf", "perf_event_open", "userfaultfd")

_ACT_ALLOW = 0x7FFF0000
_ACT_ERRNO = 0x00050000
_CMP_MASKED_EQ = 7


class _ArgCmp(ctypes.Structure):
    """libseccomp's ``struct scmp_arg_cmp``."""

    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


class SeccompError(RuntimeError):
    """The filter cannot be built here (no libseccomp, or it refused)."""


def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp")
    if name is None:
        raise SeccompError("libseccomp is not installed (Debian/Ubuntu: apt-get install "
                           "libseccomp2); it builds the sandbox's system-call filter")
    lib = ctypes.CDLL(name, use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.POINTER(_ArgCmp)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


@functools.cache
def filter_program() -> bytes:
    """The compiled filter (classic BPF, for this machine's architecture). Raises
    :class:`SeccompError` if it cannot be built."""
    lib = _library()
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        raise SeccompError("libseccomp could not start a filter")
    try:
        def rule(name: str, err: int, flags: int | None = None) -> None:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:
                return  # not a system call on this architecture
            if flags is None:
                done = lib.seccomp_rule_add_array(ctx, _ACT_ERRNO | err, number, 0, None)
            else:
                cmp = _ArgCmp(0, _CMP_MASKED_EQ, flags, flags)
                done = lib.seccomp_rule_add_array(ctx, _ACT_ERRNO | err, number, 1,
                                                  ctypes.byref(cmp))
            if done != 0:
                raise SeccompError(f"libseccomp refused the rule for {name}: "
                                   f"{os.strerror(-done)}")

        rule("unshare", errno.EPERM, CLONE_NEWUSER)
        rule("clone", errno.EPERM, CLONE_NEWUSER)
        rule("clone3", errno.ENOSYS)
        for name in REFUSED:
            rule(name, errno.EPERM)
        with tempfile.TemporaryFile() as out:
            if lib.seccomp_export_bpf(ctx, out.fileno()) != 0:
                raise SeccompError("libseccomp could not write the filter")
            out.seek(0)
            return out.read()
    finally:
        lib.seccomp_release(ctx)


def filter_fd() -> int:
    """A pipe's read end holding :func:`filter_program`, for bwrap ``--seccomp FD`` (pass it
    to the child, close it after the start)."""
    program = filter_program()
    read, write = os.pipe()
    try:
        os.write(write, program)  # a few hundred bytes: the pipe holds them
    finally:
        os.close(write)
    return read
