"""`rules preview`: edit a rule, and the served page shows the edit after one incremental rebuild."""
from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from rules_dsl.faces.preview import preview_argv
from rules_dsl.sphinxext.testing import make_project

from conftest import REPO

TUTORIAL = REPO / "rulebooks" / "skirmish-tutorial.rules"


def test_preview_refuses_a_folder_without_conf_py(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "rules_dsl", "preview", "--project", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("rules: no conf.py in") and len(proc.stderr.splitlines()) == 1


def test_preview_watches_the_books_and_ignores_the_generated_pages(tmp_path):
    argv = preview_argv(tmp_path / "p", tmp_path / "p" / "_build" / "html", tmp_path / "books", 8123)
    pairs = list(zip(argv, argv[1:]))
    assert ("--watch", str((tmp_path / "books").resolve())) in pairs
    assert ("--ignore", str((tmp_path / "p" / "docs" / "books").resolve())) in pairs
    assert ("--port", "8123") in pairs
    assert "-W" not in argv     # a half-edited book still previews its other pages


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode("utf-8")


def _wait_for(predicate, timeout: float, what: str, proc):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the preview server stopped while waiting for {what}: exit {proc.returncode}")
        try:
            if predicate():
                return
        except OSError:
            pass
        time.sleep(0.1)     # between two tries of the condition: the server pushes nothing we could wait on
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")


@pytest.mark.site
@pytest.mark.skipif(importlib.util.find_spec("sphinx_autobuild") is None,
                    reason="sphinx-autobuild is not installed (pip install -e '.[preview]')")
def test_an_edited_rule_appears_on_the_served_page(tmp_path):
    project = make_project(tmp_path / "project")
    books = tmp_path / "books"
    books.mkdir()
    shutil.copy(TUTORIAL, books / TUTORIAL.name)
    port = _free_port()
    env = dict(os.environ, RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(tmp_path / "cache"))
    log = open(tmp_path / "preview.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "rules_dsl", "preview", "--project", str(project),
                             "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        page = f"http://127.0.0.1:{port}/docs/books/skirmish-tutorial/the-basics.html"
        _wait_for(lambda: "six-sided dice" in _get(page), 600, "the first build", proc)
        html = _get(page)
        assert "/websocket-reload" in html          # the page reloads itself after a rebuild
        assert "an edited sentence" not in html

        source = books / TUTORIAL.name
        text = source.read_text(encoding="utf-8")
        old = "Hollow Fields uses six-sided dice."
        assert old in text
        started = time.monotonic()
        source.write_text(text.replace(old, old + " This is an edited sentence.", 1), encoding="utf-8")
        _wait_for(lambda: "an edited sentence" in _get(page), 300, "the edit to reach the page", proc)
        print(f"edit -> served page: {time.monotonic() - started:.1f} s")
    finally:
        proc.send_signal(signal.SIGTERM)      # `rules preview` stops its server's whole process group
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
    assert proc.returncode == 0
    # nothing left behind holds the port: it can be bound again (at once, or as soon as the
    # kernel has closed the listening socket of the process just reaped)
    deadline = time.monotonic() + 10
    while True:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
        time.sleep(0.05)                     # a back-off between two tries of the condition
