"""Run a `rules` command as an unprivileged user, even when the tests run as root (CI).

Some behaviour only exists for a normal user: root may write into a read-only
folder, so a test of an unwritable cache that runs as root tests nothing.  As root,
`run_rules` forks a child that drops to an unprivileged user (`nobody`, else the
first user with a uid of 1000 or more): `setgroups([])`, `setgid`, `setuid`, after
which it cannot take root back, and runs `rules_dsl.cli.main(argv)` in it.

Why a fork and not `setpriv ... python -m rules_dsl`: the interpreter and its
site-packages often live where only root may read (pyenv under /root here, and the
checkout may be there in CI), so a fresh interpreter started as `nobody` could not
even import lark.  The forked child inherits the interpreter with its modules
already loaded; what the command will import lazily is imported first, as root,
by a warm-up run of the same command (in a forked root child, against a throwaway
cache) that reports which modules it loaded, and lark's parser is built first (lark
reads grammar files of its own from site-packages).  Everything the command itself reads
and writes -- the books, the cache -- is then read and written as the unprivileged
user: the caller puts them in folders it makes readable (`readable_tmp`).

Not root already: the command simply runs in a subprocess, as the current user.
No unprivileged user at all: the test is skipped, saying "no unprivileged user", and
tests/conftest.py turns that skip into a failure under CI=true.
"""
from __future__ import annotations

import importlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

SKIP_REASON = "no unprivileged user to run as (nobody, or a uid >= 1000)"


def unprivileged_user():
    """(uid, gid) of the user the tests drop to, or None."""
    try:
        pw = pwd.getpwnam("nobody")
        return pw.pw_uid, pw.pw_gid
    except KeyError:
        pass
    for pw in pwd.getpwall():
        if pw.pw_uid >= 1000 and pw.pw_uid != 65534:
            return pw.pw_uid, pw.pw_gid
    return None


def readable_tmp(prefix: str = "rules-dsl-unpriv-") -> Path:
    """A fresh folder anyone may read and enter (pytest's tmp_path is root's only)."""
    d = Path(tempfile.mkdtemp(prefix=prefix))
    d.chmod(0o755)
    return d


def make_readable(path: Path, writable: bool = False):
    """Every folder under `path` readable and enterable by anyone, every file readable;
    writable by anyone too with `writable`, else by no one but root."""
    path = Path(path)
    dmode, fmode = (0o777, 0o666) if writable else (0o555, 0o444)
    for root, _dirs, files in os.walk(path):
        for f in files:
            os.chmod(os.path.join(root, f), fmode)
        os.chmod(root, dmode)


def copy_books(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    make_readable(dest)
    return dest


class Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr

    def __repr__(self):
        return f"Result({self.returncode}, stdout={self.stdout[-2000:]!r}, stderr={self.stderr[-2000:]!r})"


_WARM: set = set()


def run_rules(argv, env: dict, timeout: float = 300) -> Result:
    """`rules ARGV` with `env` set, as an unprivileged user (see the module doc)."""
    if os.geteuid() != 0:
        full = dict(os.environ, **env)
        p = subprocess.run([sys.executable, "-m", "rules_dsl", *argv], capture_output=True, text=True,
                           env=full, timeout=timeout)
        return Result(p.returncode, p.stdout, p.stderr)
    user = unprivileged_user()
    if user is None:
        pytest.skip(SKIP_REASON)
    key = argv[0]
    if key not in _WARM:
        scratch = Path(tempfile.mkdtemp(prefix="rules-dsl-warm-"))
        try:
            names = _fork(argv, dict(env, RULES_DSL_CACHE=str(scratch / "cache")), None, timeout, report=True)[3]
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        for name in names:
            try:
                importlib.import_module(name)
            except Exception:
                pass
        _WARM.add(key)
    code, out, err, _ = _fork(argv, env, user, timeout)
    return Result(code, out, err)


def _fork(argv, env, user, timeout, report=False):
    """Run cli.main(argv) in a forked child (as `user` = (uid, gid), or as we are); returns
    (exit code, stdout, stderr, modules the child imported when `report`)."""
    import rules_dsl.cli
    from rules_dsl.library import cachekeys
    from rules_dsl.language import parser
    for scope in ("parse", "engine", "index", "site", "all"):   # computed here: it stats the package files
        cachekeys.code_fingerprint(scope)
    if user is not None:
        # lark builds its parser from grammar files of its own, in site-packages, which the
        # user may not read (lark's cache of the tables is lark's own concern; it never fails)
        parser.lark_parser()
    with tempfile.TemporaryDirectory() as d:
        paths = [os.path.join(d, n) for n in ("out", "err", "mods")]
        fds = [os.open(p, os.O_WRONLY | os.O_CREAT, 0o666) for p in paths]
        before = set(sys.modules)
        pid = os.fork()
        if pid == 0:      # the child: never returns into pytest
            code = 70
            try:
                os.dup2(fds[0], 1)
                os.dup2(fds[1], 2)
                sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
                sys.stderr = open(2, "w", encoding="utf-8", closefd=False)
                os.environ.update(env)
                os.environ["RULES_DSL_JOBS"] = "1"
                if user is not None:
                    os.setgroups([])
                    os.setgid(user[1])
                    os.setuid(user[0])
                    os.chdir("/")
                try:
                    code = rules_dsl.cli.main(list(argv)) or 0
                except SystemExit as e:
                    code = e.code if isinstance(e.code, int) else 1
                if report:
                    os.write(fds[2], "\n".join(sorted(set(sys.modules) - before)).encode())
            except BaseException:
                import traceback
                traceback.print_exc()
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        for fd in fds:
            os.close(fd)
        deadline = time.monotonic() + timeout
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                raise AssertionError(f"rules {' '.join(argv)} took more than {timeout} s")
            time.sleep(0.05)
        out, err, mods = (Path(p).read_text(encoding="utf-8", errors="replace") for p in paths)
        return os.waitstatus_to_exitcode(status), out, err, [m for m in mods.split("\n") if m]
