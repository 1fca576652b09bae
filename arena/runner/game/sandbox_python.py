"""``{python}``, the interpreter that runs the arena, as a sandboxed bot sees it: at neutral
paths under :data:`INSIDE_ARENA`, so that nothing inside names where it lives on the host
(:mod:`arena.runner.game.sandbox` mounts what :func:`python_view` lists)."""

from __future__ import annotations

import functools
import os
import platform
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

#: Where ``{python}`` appears: its virtual environment (``python``: made again of its
#: ``pyvenv.cfg``, its program and its packages), the installation it was made from (``base``,
#: unless it is under /usr, where it is already) and the ``arena`` package (``lib``).
INSIDE_ARENA = "/arena"


@dataclass(frozen=True)
class PythonView:
    """How ``{python}`` appears inside, under :data:`INSIDE_ARENA` (:func:`python_view`)."""

    #: The interpreter's path inside.
    program: str
    #: (host folder, where it appears), read-only.
    binds: tuple[tuple[str, str], ...] = ()
    #: (path inside, text) of each file written for it.
    files: tuple[tuple[str, str], ...] = ()
    #: (target, path inside) of each link made for it.
    links: tuple[tuple[str, str], ...] = ()
    #: Variables its environment gets.
    env: tuple[tuple[str, str], ...] = ()


@functools.cache
def python_view() -> PythonView:
    """``{python}`` (this interpreter) inside the sandbox, at neutral paths: the installation
    it was made from at ``/arena/base`` (if outside /usr, with ``LD_LIBRARY_PATH`` pointing to
    its library when the interpreter links to it by an absolute path); a virtual environment
    made again at ``/arena/python`` of a ``pyvenv.cfg``, its programs (links to the base's, its
    ``bin`` first on ``PATH``) and its site-packages only (not its scripts, which name its
    host path); and the ``arena`` package, unless it is installed in those, at ``/arena/lib``
    (``PYTHONPATH``: an editable install points into the source tree, and binding only the
    package keeps the rest of that tree out of sight)."""
    import arena

    base = Path(os.path.realpath(sys.base_prefix))
    moved = not base.is_relative_to("/usr")
    base_inside = Path(INSIDE_ARENA, "base")

    def inside(path: Path) -> str:
        return str(base_inside / path.relative_to(base)) if moved and path.is_relative_to(base) \
            else str(path)

    binds = [(str(base), str(base_inside))] if moved else []
    files, links, env = [], [], {}
    program = inside(Path(os.path.realpath(sys.executable)))
    libdir = Path(os.path.realpath(sysconfig.get_config_var("LIBDIR") or "/"))
    if moved and sysconfig.get_config_var("Py_ENABLE_SHARED") and libdir.is_relative_to(base):
        env["LD_LIBRARY_PATH"] = inside(libdir)
    held = [base] if moved else [Path("/usr")]
    if sys.prefix != sys.base_prefix:
        venv, venv_inside = Path(sys.prefix), Path(INSIDE_ARENA, "python")
        for lib in dict.fromkeys(Path(sysconfig.get_path(k)) for k in ("purelib", "platlib")):
            if lib.is_relative_to(venv) and lib.is_dir():
                binds.append((str(lib), str(venv_inside / lib.relative_to(venv))))
                held.append(lib.resolve())
        files.append((str(venv_inside / "pyvenv.cfg"), _pyvenv_cfg(venv, Path(program).parent)))
        major, minor = sys.version_info[:2]
        links += [(program, str(venv_inside / "bin" / name))
                  for name in ("python", f"python{major}", f"python{major}.{minor}")]
        program = links[0][1]
    package = Path(arena.__file__).resolve().parent
    if not any(package.is_relative_to(h) for h in held):
        binds.append((str(package), f"{INSIDE_ARENA}/lib/arena"))
        env["PYTHONPATH"] = f"{INSIDE_ARENA}/lib"
    return PythonView(program, tuple(binds), tuple(files), tuple(links), tuple(env.items()))


def _pyvenv_cfg(venv: Path, home: Path) -> str:
    """The virtual environment's ``pyvenv.cfg`` as the sandbox shows it: its base's folder
    inside, and whether it sees the base's packages (the host's says where it was made)."""
    try:
        text = (venv / "pyvenv.cfg").read_text(encoding="utf-8")
    except OSError:
        text = ""
    system = any(line.replace(" ", "").lower() == "include-system-site-packages=true"
                 for line in text.splitlines())
    return (f"home = {home}\ninclude-system-site-packages = {str(system).lower()}\n"
            f"version = {platform.python_version()}\n")
