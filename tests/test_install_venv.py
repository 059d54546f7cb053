"""The two commands on the OS's own Python (issue 42): Debian's /usr/bin/python3 refuses
`pip install` outside a virtual environment (PEP 668), so scripts/install.sh (run by
main.sh and test.sh) makes `.venv` in the checkout and every later command runs it.

A copy of the checkout (the package, its pins and the scripts) is installed with
/usr/bin/python3 first on PATH and no `rules` anywhere on it:

* `bash scripts/main.sh` installs into the copy's .venv, runs that environment's `rules
  check` (on a books folder of the demo book; the copy has no conf.py, so no site is
  built) and ends by saying how to put `rules` on the PATH;
* `bash scripts/test.sh` runs pytest with that environment's Python (a probe test says
  which Python, package and `rules` it sees);
* inside a virtual environment (VIRTUAL_ENV) the scripts install into it and make none.

Slow (a fresh environment installs every pinned package, from PyPI or pip's cache):
marked `site`, so the inner loop (-m "not site") leaves it out, and `install`, so
scripts/test-newest.sh does too.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEMO = Path(__file__).with_name("demo_book.rules")
SYSTEM_PYTHON = Path("/usr/bin/python3")

PROBE = '''
import os, shutil, sys
from pathlib import Path

def test_the_checkouts_environment_runs_this():
    copy = Path(os.environ["PROBE_COPY"])
    assert Path(sys.prefix) == copy / ".venv"
    assert sys.prefix != sys.base_prefix
    import rules_dsl
    assert Path(rules_dsl.__file__).resolve().is_relative_to(copy.resolve())
    assert Path(shutil.which("rules")) == copy / ".venv" / "bin" / "rules"
'''


def _system_python() -> Path:
    if not SYSTEM_PYTHON.exists():
        pytest.skip(f"{SYSTEM_PYTHON} is not there: this machine's OS ships no Python to install with")
    done = subprocess.run([str(SYSTEM_PYTHON), "-c", "import sys; print(sys.version_info >= (3, 11))"],
                          capture_output=True, text=True, timeout=60)
    if done.stdout.strip() != "True":
        pytest.skip(f"{SYSTEM_PYTHON} is older than Python 3.11, which rules-dsl needs")
    return SYSTEM_PYTHON


def _copy_checkout(dest: Path, python: Path) -> tuple[Path, dict]:
    """The files an install needs, a bin folder whose python3 is `python`, and an
    environment whose PATH holds no `rules` and whose Python is no virtual environment."""
    dest.mkdir(parents=True)
    for name in ("pyproject.toml", "constraints.txt", "README.md"):
        shutil.copy(ROOT / name, dest / name)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "scripts", dest / "scripts", ignore=skip)
    shutil.copytree(ROOT / "rules_dsl", dest / "rules_dsl", ignore=skip)
    (dest / "tests").mkdir()
    (dest / "tests" / "test_probe.py").write_text(PROBE)
    bin_dir = dest.parent / f"{dest.name}-bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(python)
    path = [str(bin_dir)] + [d for d in os.environ.get("PATH", "").split(os.pathsep)
                             if d and not (Path(d) / "rules").exists() and ".pyenv" not in d
                             and not (Path(d) / "activate").exists()]
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHON", "RULES_DSL_BOOKS")}
    books = dest.parent / f"{dest.name}-books"
    books.mkdir()
    shutil.copy(DEMO, books / "demo.rules")
    env.update(PATH=os.pathsep.join(path), PROBE_COPY=str(dest), RULES_DSL_BOOKS=str(books),
               RULES_DSL_CACHE=str(dest.parent / f"{dest.name}-cache"))
    return dest, env


def _run(command: list, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=1500)
    assert "externally-managed-environment" not in done.stderr, done.stderr[-3000:]
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.site
@pytest.mark.install
def test_the_two_commands_install_into_a_venv_with_the_os_python(tmp_path):
    python = _system_python()
    copy, env = _copy_checkout(tmp_path / "checkout", python)
    venv = copy / ".venv"

    main = _run(["bash", "scripts/main.sh"], copy, env)
    config = (venv / "pyvenv.cfg").read_text()
    assert f"executable = {python.resolve()}" in config, config   # made by the OS's Python
    assert (venv / "bin" / "rules").is_file()
    assert "demo: 2 rules, 5 mechanics, 2/2 examples pass" in main.stdout   # `rules check`, the venv's
    last = main.stdout.strip().splitlines()[-1]
    assert last == (f"rules: installed in {venv}; put it on your PATH with: . {venv}/bin/activate "
                    f"(or run {venv}/bin/rules)")

    test = _run(["bash", "scripts/test.sh", "-q", "-p", "no:cacheprovider", "tests/test_probe.py"], copy, env)
    assert "1 passed" in test.stdout, test.stdout

    # inside a virtual environment the scripts use it: a second copy installs into the
    # first copy's .venv and makes no .venv of its own
    other, env2 = _copy_checkout(tmp_path / "other", python)
    env2.update(VIRTUAL_ENV=str(venv), PATH=f"{venv}/bin{os.pathsep}{env2['PATH']}", PROBE_COPY=str(other))
    inside = _run(["bash", "scripts/main.sh"], other, env2)
    assert not (other / ".venv").exists()
    assert inside.stdout.strip().splitlines()[-1] == \
        f"rules: installed in the virtual environment you are in, {venv} ({venv}/bin/rules)"
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import rules_dsl; print(rules_dsl.__file__)"],
                           cwd=tmp_path, env=env2, capture_output=True, text=True, timeout=60)
    assert Path(where.stdout.strip()).resolve().is_relative_to(other.resolve()), where


def test_without_the_venv_module_and_no_apt_the_scripts_say_what_to_install(tmp_path):
    """A Python whose venv module fails, as a Debian python3 without python3-venv does, on
    a machine where apt cannot help (not root): one clear line, exit 2, no half-made .venv."""
    real = os.path.realpath(sys.executable)      # the interpreter itself, not a venv's link to it
    copy, env = _copy_checkout(tmp_path / "checkout", Path(real))
    fake = copy.parent / "checkout-bin"
    (fake / "python3").unlink()
    (fake / "python3").write_text(f'#!/bin/sh\n[ "$1 $2" = "-m venv" ] && {{ echo "ensurepip is not available" >&2; exit 1; }}\n'
                                  f'exec "{real}" "$@"\n')
    (fake / "python3").chmod(0o755)
    (fake / "id").write_text("#!/bin/sh\necho 1000\n")        # not root: apt is not tried
    (fake / "id").chmod(0o755)
    done = subprocess.run(["bash", "scripts/install.sh"], cwd=copy, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "error: could not make a virtual environment with 'python3 -m venv" in done.stderr
    assert "apt-get install python3-venv" in done.stderr
    assert not (copy / ".venv").exists()
