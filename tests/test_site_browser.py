"""The website in a real browser: headless Chromium driven over the DevTools protocol.

The protocol runs over `--remote-debugging-pipe` (file descriptors 3 and 4,
NUL-separated JSON), so only the standard library is needed.  The test builds
the site from rulebooks/ once, then: opens the home page (through the root
redirect), hovers and follows a rule cross-reference, searches for
"Suppression" (Sphinx's search runs in JavaScript) and expects Dust Tactics'
rule, and checks that no page logs a console error or throws.  Screenshots go
to `<build>/_screenshots/`.

Skipped only when no Chromium is installed (Debian: `apt-get install chromium`); `RULES_DSL_CHROMIUM`
names the browser's path where it is not on `PATH`.
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from rules_dsl.sphinxext.testing import REPO, build, make_project

CHROMIUM = os.environ.get("RULES_DSL_CHROMIUM") or next(
    (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
pytestmark = [pytest.mark.site,
              pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")]


class Browser:
    """A minimal Chrome DevTools Protocol client over a pipe."""

    def __init__(self, profile: Path):
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()

        def wire_fds():  # in the child: the protocol's fds are 3 (commands) and 4 (replies)
            r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD_CLOEXEC, 10)
            w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD_CLOEXEC, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
             "--hide-scrollbars", f"--user-data-dir={profile}", "--remote-debugging-pipe",
             "--window-size=1280,900", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire_fds, close_fds=False)   # our own fds are non-inheritable; 3 and 4 are not
        os.close(to_child_r)
        os.close(from_child_w)
        self.out = os.fdopen(to_child_w, "wb", buffering=0)
        self.inp = os.fdopen(from_child_r, "rb", buffering=0)
        self.next_id = 0
        self.replies, self.events = {}, queue.Queue()
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.session = None
        self.console_errors = []

    def _read(self):
        buf = b""
        while True:
            chunk = self.inp.read(65536)
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self.cond:
                        self.replies[msg["id"]] = msg
                        self.cond.notify_all()
                else:
                    self._note_event(msg)
                    self.events.put(msg)

    def _note_event(self, msg):
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = params.get("exceptionDetails", {})
            self.console_errors.append(f"exception: {d.get('text')} {d.get('exception', {}).get('description', '')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.console_errors.append(f"console.{params['type']}: {args}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            e = params["entry"]
            self.console_errors.append(f"log: {e.get('text')} {e.get('url', '')}")

    def send(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self.out.write(json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.next_id not in self.replies:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(method)
                self.cond.wait(left)
            reply = self.replies.pop(self.next_id)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def open_page(self):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})

    def js(self, expression, timeout=30):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True}, timeout=timeout)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression!r}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression, timeout=20.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = self.js(expression)
            except RuntimeError:
                value = None
            if value:
                return value
            time.sleep(0.1)
        raise TimeoutError(f"timed out waiting for {expression}")

    def goto(self, url, ready=None):
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete' && location.href !== 'about:blank'")
        if ready:
            self.wait_for(ready)

    def screenshot(self, path: Path, full=False):
        params = {"format": "png"}
        if full:
            h = self.js("Math.min(document.documentElement.scrollHeight, 6000)")
            params["clip"] = {"x": 0, "y": 0, "width": 1280, "height": h, "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built from rulebooks/ (a broken book must not hide browser problems:
    test_docs.py checks that the build itself succeeds)."""
    from rules_dsl.loader import cache_dir
    tmp = tmp_path_factory.mktemp("browser-site")
    project = make_project(tmp / "project")
    books = Path(os.environ.get("RULES_DSL_BOOKS") or REPO / "rulebooks")
    out = tmp / "html"
    proc = build(project, out, books, Path(cache_dir()), timeout=900)
    if not (out / "docs" / "index.html").is_file():
        pytest.fail(f"the site was not built:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    try:
        b.open_page()
        yield b
    finally:
        b.close()


def url(out: Path, rel: str) -> str:
    return (out / rel).as_uri()


def test_home_page(site, browser):
    browser.console_errors.clear()
    browser.goto(url(site, "index.html"), ready="location.pathname.endsWith('/docs/index.html')")
    browser.wait_for("document.readyState === 'complete'")
    assert browser.js("document.title").startswith("Rulebooks as code")
    books = browser.js("Array.from(document.querySelectorAll('table.rules-books a.rules-ref')).map(a => a.textContent)")
    assert books, "no books listed on the home page"
    assert browser.js("document.querySelectorAll('button.copybtn').length") > 0   # sphinx-copybutton
    browser.screenshot(site / "_screenshots" / "home.png", full=True)
    assert browser.console_errors == []


def test_follow_a_cross_reference_with_preview(site, browser):
    browser.console_errors.clear()
    pages = sorted((site / "docs" / "books").rglob("*.html"))
    target = None
    for p in pages:
        text = p.read_text(encoding="utf-8")
        if 'class="rules-ref reference internal" href="' in text and "#" in text:
            rel = p.relative_to(site).as_posix()
            browser.goto(url(site, rel))
            target = browser.js("""(() => {
                const a = Array.from(document.querySelectorAll('.rst-content a.rules-ref, article a.rules-ref'))
                    .find(a => a.closest('section.rules-rule') && a.getAttribute('href').includes('#'));
                if (!a) return null;
                a.id = a.id || 'under-test';
                return {href: a.href, hash: decodeURIComponent(new URL(a.href).hash.slice(1)), text: a.textContent,
                        preview: a.getAttribute('data-rules-preview')};
            })()""")
            if target:
                break
    assert target, "no rule cross-reference found in any book page"
    assert target["preview"], "the link carries no preview text"
    # hover: the preview tooltip shows the target's title
    browser.js("document.getElementById('under-test').scrollIntoView({block: 'center'})")
    browser.js("document.getElementById('under-test').dispatchEvent(new MouseEvent('mouseenter'))")
    tip = browser.wait_for("(() => { const t = document.getElementById('rules-preview');"
                           " return t && !t.hidden && t.textContent; })()", timeout=5)
    assert target["preview"].split("\u2003")[0] in tip
    browser.screenshot(site / "_screenshots" / "preview.png")
    # follow it
    browser.js("document.getElementById('under-test').click()")
    browser.wait_for(f"decodeURIComponent(location.hash.slice(1)) === {json.dumps(target['hash'])}"
                     " && document.readyState === 'complete'")
    assert browser.js(f"!!document.getElementById({json.dumps(target['hash'])})")
    heading = browser.js(f"(() => {{ const s = document.getElementById({json.dumps(target['hash'])});"
                         " const h = s.querySelector('h1,h2,h3,h4,h5,h6'); return h ? h.textContent : s.textContent; })()")
    assert heading
    browser.screenshot(site / "_screenshots" / "followed-reference.png")
    assert browser.console_errors == []


def test_search_finds_suppression(site, browser):
    from rules_dsl.loader import book_ids, load
    expected = []
    for bid in book_ids():
        try:
            book = load(bid)
        except Exception:
            continue
        expected += [(bid, r.id) for r in book.rules if "suppress" in r.title.lower()]
    if not expected:
        pytest.skip("no rule about suppression in the books")
    browser.console_errors.clear()
    browser.goto(url(site, "search.html") + "?q=Suppression")
    # results are added progressively; the summary line says when the search is done
    browser.wait_for("(() => { const s = document.querySelector('p.search-summary');"
                     " return s && /finished/i.test(s.textContent); })()", timeout=60)
    hrefs = browser.js("Array.from(document.querySelectorAll('ul.search li a')).map(a => decodeURIComponent(a.href))")
    browser.screenshot(site / "_screenshots" / "search-suppression.png", full=True)
    found = [(bid, rid) for bid, rid in expected if any(h.endswith(f"#{bid}:{rid}") for h in hrefs)]
    # every result's anchor exists on its page
    for h in hrefs:
        if "#" in h:
            page, anchor = h.split("#", 1)
            text = Path(page.replace("file://", "")).read_text(encoding="utf-8")
            assert f'id="{anchor}"' in text, f"dangling search result {h}"
    dust = [e for e in expected if e[0] == "dust-tactics"]
    if dust:
        assert any(e in found for e in dust), f"Dust's rule not among the results: {hrefs[:20]}"
    assert found, f"no suppression rule among the results: {hrefs[:20]}"
    assert browser.console_errors == []


def test_pages_have_no_console_errors(site, browser):
    browser.console_errors.clear()
    for rel in ("docs/glossary.html", "docs/cross-index.html", "docs/cli.html", "docs/api.html",
                "docs/language.html", "genindex.html"):
        browser.goto(url(site, rel))
        browser.wait_for("document.readyState === 'complete'")
    browser.screenshot(site / "_screenshots" / "genindex.png")
    for p in sorted((site / "docs" / "books").rglob("*.html"))[:12]:
        browser.goto(p.as_uri())
    assert browser.console_errors == []


# ------------------------------------------------------------------ the rule search box
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}
SHOTS = Path("/tmp/shots")


def _phone(browser, on=True):
    metrics = PHONE if on else {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}
    browser.send("Emulation.setDeviceMetricsOverride", metrics)


def _key(browser, key, code, vk, text=None):
    down = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
    if text:
        down["text"] = text
    browser.send("Input.dispatchKeyEvent", down)
    browser.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk})


def _shot(browser, path: Path):
    browser.screenshot(path)
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy2(path, SHOTS / path.name)


def test_search_box_on_a_phone_finds_a_misspelled_rule(site, browser, tmp_path):
    """On a 390x844 phone, the home page shows the rule box without opening the menu;
    typing "supression" lists Dust Tactics' Suppression first; ArrowDown + Enter opens
    its page at the rule's anchor; no console errors."""
    if not (site / "_static" / "rules-search-index.js").is_file():
        pytest.fail("the build wrote no _static/rules-search-index.js")
    browser.console_errors.clear()
    _phone(browser)
    try:
        browser.goto(url(site, "docs/index.html"), ready="!!document.getElementById('rules-search-input')")
        box = browser.js("(() => { const r = document.getElementById('rules-search-input').getBoundingClientRect();"
                         " return {top: r.top, bottom: r.bottom, width: r.width, right: r.right}; })()")
        assert box["width"] > 200 and 0 <= box["top"] and box["bottom"] <= PHONE["height"], box
        assert box["right"] <= PHONE["width"], f"the box overflows a phone's width: {box}"
        assert browser.js("document.documentElement.scrollWidth") <= PHONE["width"]
        browser.js("document.getElementById('rules-search-input').focus()")
        for ch in "supression":
            browser.send("Input.insertText", {"text": ch})
        first = browser.wait_for("(() => { const a = document.querySelector('#rules-search-results li a');"
                                 " return a && decodeURIComponent(a.href); })()", timeout=20)
        assert first.endswith("#dust-tactics:suppression"), first
        meta = browser.js("(() => { const li = document.querySelector('#rules-search-results li');"
                          " return {where: li.querySelector('.rules-search-where').textContent,"
                          " snippet: li.querySelector('.rules-search-snippet').textContent}; })()")
        assert meta["where"].startswith("Dust Tactics") and len(meta["snippet"]) > 40, meta
        panel = browser.js("(() => { const r = document.querySelector('.rules-search-panel').getBoundingClientRect();"
                           " return {left: r.left, right: r.right}; })()")
        assert panel["left"] >= 0 and panel["right"] <= PHONE["width"], panel
        _shot(browser, tmp_path / "search-phone-results.png")
        _key(browser, "ArrowDown", "ArrowDown", 40)
        assert browser.js("document.querySelector('#rules-search-results li').getAttribute('aria-selected')") == "true"
        assert browser.js("document.getElementById('rules-search-input').getAttribute('aria-activedescendant')") \
            == "rules-search-opt-0"
        _key(browser, "Enter", "Enter", 13, "\r")
        browser.wait_for("decodeURIComponent(location.hash) === '#dust-tactics:suppression'"
                         " && document.readyState === 'complete'")
        assert "/docs/books/dust-tactics/" in browser.js("location.pathname")
        top = browser.js("document.getElementById('dust-tactics:suppression').getBoundingClientRect().top")
        assert -5 <= top < PHONE["height"] / 2, f"the rule is not at the top of the screen: {top}"
        _shot(browser, tmp_path / "search-phone-landed.png")
        # Escape closes the list; the box is on this page too
        browser.js("document.getElementById('rules-search-input').focus()")
        browser.send("Input.insertText", {"text": "cover save"})
        browser.wait_for("!document.querySelector('.rules-search-panel').hidden")
        _key(browser, "Escape", "Escape", 27)
        assert browser.js("document.querySelector('.rules-search-panel').hidden")
    finally:
        _phone(browser, False)
    assert browser.console_errors == []


def test_search_box_filters_by_book(site, browser):
    browser.console_errors.clear()
    browser.goto(url(site, "docs/index.html"), ready="!!document.getElementById('rules-search-input')")
    browser.js("document.getElementById('rules-search-input').focus()")
    browser.wait_for("document.querySelectorAll('.rules-search-book option').length > 1")
    browser.js("(() => { const s = document.querySelector('.rules-search-book'); s.value = 'void';"
               " s.dispatchEvent(new Event('change')); })()")
    browser.send("Input.insertText", {"text": "suppression"})
    hrefs = browser.wait_for("(() => { const l = Array.from(document.querySelectorAll('#rules-search-results li a'));"
                             " return l.length && l.map(a => decodeURIComponent(a.hash)); })()")
    assert hrefs[0] == "#void:suppressive-fire" and all(h.startswith("#void:") for h in hrefs), hrefs
    assert browser.console_errors == []


@pytest.fixture(scope="module")
def http_site(site):
    """The site over HTTP (the search page fetches result pages for their snippets only then)."""
    import functools
    import http.server

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("query", ["suppression", "dust-tactics:suppression"])
def test_search_page_rule_hits_have_snippets_and_no_errors(http_site, browser, query):
    """Sphinx's search page looks each hit's anchor up with a CSS selector; `book:rule`
    anchors need escaping (rules_search_ui.js), else every rule-level hit throws and
    shows no snippet.  A rule's id typed in finds that rule."""
    browser.console_errors.clear()
    browser.goto(f"{http_site}/search.html?q={query}")
    browser.wait_for("(() => { const s = document.querySelector('p.search-summary');"
                     " return s && /finished/i.test(s.textContent); })()", timeout=60)
    hrefs = browser.js("Array.from(document.querySelectorAll('ul.search li a')).map(a => decodeURIComponent(a.hash))")
    assert "#dust-tactics:suppression" in hrefs[:3], hrefs[:10]
    if ":" in query:
        assert hrefs[0] == "#dust-tactics:suppression", hrefs[:5]
    if ":" not in query:
        # a page-text hit on the rule's section: its snippet is the rule's own text (object hits,
        # such as the id's, show their description instead: Sphinx fetches no snippet for them)
        hit = browser.wait_for("""(() => {
            const a = Array.from(document.querySelectorAll('ul.search li a'))
                .find(a => decodeURIComponent(a.hash) === '#dust-tactics:suppression' && a.closest('li.kind-title'));
            const p = a && a.closest('li').querySelector('p.context');   // added when its page is fetched
            return p && p.textContent ? p.textContent : null;
        })()""", timeout=30)
        assert "suppress" in hit.lower(), hit
    # (the site has no favicon yet: a 404 that only a server shows, not this test's concern)
    errors = [e for e in browser.console_errors if "favicon.ico" not in e]
    assert errors == []
