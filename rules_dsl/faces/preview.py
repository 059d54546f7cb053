"""`rules preview`: the website rebuilt on every save, and the open page refreshed.

A designer edits a rule and wants to see its page. sphinx-autobuild (pinned in the
`preview` extra) watches the project and the books folder, runs the same incremental
Sphinx build as `scripts/main.sh`, serves the result and tells the open page to reload
when the build is done, so a saved edit shows up within one incremental rebuild.

Two things are ours: which folders are watched (the books folder, wherever
`RULES_DSL_BOOKS` points, and the project's docs/), and which are not: the pages the
extension generates into `docs/books/` (watching them would rebuild again after every
build) and the build's own output.  Warnings do not stop a preview build (a half-edited
book still shows its other pages); `rules check` and the test suite stay strict.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ..errors import RulesError


class PreviewError(RulesError):
    """The preview cannot start (no project here, or sphinx-autobuild is not installed)."""


def preview_argv(project: Path, out: Path, books: Path, port: int, host: str = "127.0.0.1",
                 open_browser: bool = False) -> list:
    """The sphinx-autobuild command line for a project folder (one with conf.py)."""
    project, out, books = Path(project).resolve(), Path(out).resolve(), Path(books).resolve()
    doctrees = out.with_name(out.name + ".doctrees")
    generated = project / "docs" / "books"
    argv = [sys.executable, "-m", "sphinx_autobuild", str(project), str(out),
            "-d", str(doctrees), "-n", "-j", "auto",
            "--watch", str(books), "--ignore", str(generated),
            "--ignore", str(doctrees), "--re-ignore", r"(__pycache__|\.pyc$|~$|\.swp$|\.sw.$|#)",
            "--port", str(port), "--host", host]
    if open_browser:
        argv.append("--open-browser")
    return argv


def books_folder() -> Path:
    """The books the site shows: the same folder as every other command (RULES_DSL_BOOKS or rulebooks/)."""
    from ..paths import books_dir
    return Path(books_dir())


def run(project: str | None, port: int, host: str, open_browser: bool) -> int:
    """Start the preview server in the foreground; Ctrl-C stops it."""
    import importlib.util

    project_dir = Path(project or ".").resolve()
    if not (project_dir / "conf.py").is_file():
        raise PreviewError(f"no conf.py in {project_dir}: run `rules preview` in the project folder "
                           "(the one with conf.py and docs/) or pass --project DIR")
    if importlib.util.find_spec("sphinx_autobuild") is None:
        raise PreviewError("rules preview needs sphinx-autobuild: pip install -e '.[preview]' "
                           "(or pip install sphinx-autobuild==2025.8.25)")
    books = books_folder()
    env = dict(os.environ, RULES_DSL_BOOKS=str(books))
    out = project_dir / "_build" / "html"
    sys.stderr.write(f"rules preview: watching {books} and {project_dir / 'docs'}; "
                     f"open http://{host}:{port}/docs/index.html (Ctrl-C stops)\n")
    return _serve(preview_argv(project_dir, out, books, port, host, open_browser), str(project_dir), env)


def _serve(argv: list, cwd: str, env: dict) -> int:
    """Run the server in its own process group until it ends or we are stopped (Ctrl-C, SIGTERM,
    SIGHUP); then stop the whole group.  sphinx-autobuild's server does not always exit on
    SIGINT or SIGTERM (it waits for its watcher and open page connections), and a server left
    behind would hold the port: after a grace period the group is killed."""
    import signal

    def stop(signum, frame):
        raise KeyboardInterrupt
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    proc = subprocess.Popen(argv, cwd=cwd, env=env, start_new_session=True)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        for sig, grace in ((signal.SIGINT, 3), (signal.SIGKILL, 5)):
            try:
                os.killpg(proc.pid, sig)
                proc.wait(timeout=grace)
                break
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue
        try:
            os.killpg(proc.pid, signal.SIGKILL)   # the server's own children, if any outlived it
        except ProcessLookupError:
            pass
        return 0
