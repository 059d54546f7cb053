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
import re
import shutil
import subprocess
import threading
import time
from fractions import Fraction
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
        self.viewport(1280, 900)

    def js(self, expression, timeout=30):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True}, timeout=timeout)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression!r}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression, timeout=20.0):
        """The first truthy value of `expression`: the page itself checks it every few
        milliseconds (a promise that settles when it holds), so a test waits as long as the
        condition takes and no longer; sent again only when the document it ran in went
        away (a navigation), after a moment for the next one to come up."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"timed out waiting for {expression}")
            waiter = f"""new Promise(done => {{
                const end = performance.now() + {int(left * 1000)};
                const check = () => {{
                    let v;
                    try {{ v = ({expression}); }} catch (e) {{ v = null; }}
                    Promise.resolve(v).then(v => v || performance.now() > end ? done(v || null) : setTimeout(check, 10),
                                            () => setTimeout(check, 10));
                }};
                check();
            }})"""
            try:
                value = self.js(waiter, timeout=left + 10)
            except RuntimeError:        # the document went away under it: a navigation
                time.sleep(0.05)        # not a wait for the condition: a back-off before asking the next document
                continue
            if value:
                return value

    def goto(self, url, ready=None):
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete' && location.href !== 'about:blank'")
        if ready:
            self.wait_for(ready)

    def viewport(self, width, height, mobile=False):
        """Emulate a screen: a phone (`mobile`: touch events, no hover) or a desktop window."""
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
        self.send("Emulation.setTouchEmulationEnabled", {"enabled": mobile, "maxTouchPoints": 5 if mobile else 1})

    def tap(self, x, y):
        """A finger's tap at (x, y) in CSS pixels of the viewport."""
        point = [{"x": x, "y": y}]
        self.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
        self.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

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
    from rules_dsl.library.loader import cache_dir
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
    """The home page picks a game: a card per book, linking its page, with what it is, its
    dice and where to start; the developer material is a link away."""
    from rules_dsl.library.loader import book_ids
    browser.console_errors.clear()
    browser.goto(url(site, "index.html"), ready="location.pathname.endsWith('/docs/index.html')")
    browser.wait_for("document.readyState === 'complete'")
    assert browser.js("document.title").startswith("Rulebooks as code")
    cards = browser.js("""Array.from(document.querySelectorAll('ul.rules-games > li.rules-game')).map(li => ({
        href: li.querySelector('.rules-game-title a').getAttribute('href'),
        title: li.querySelector('.rules-game-title a').textContent,
        about: (li.querySelector('.rules-game-about') || li.querySelectorAll('p')[1] || {}).textContent || '',
        dice: (li.querySelector('.rules-game-dice') || {}).textContent || '',
        start: Array.from(li.querySelectorAll('.rules-game-start a')).map(a => a.getAttribute('href')),
        shown: li.getBoundingClientRect().height > 40}))""")
    from urllib.parse import quote
    for bid in book_ids():       # Sphinx quotes a page's path in a link: a layered book's `+` is %2B there
        card = next((c for c in cards if c["href"].startswith(f"books/{quote(bid)}/index.html")), None)
        assert card, f"no card links {bid}'s page: {cards}"
        assert card["shown"] and card["title"] and len(card["about"]) > 30, card
        assert card["dice"].startswith("Dice: ") and len(card["dice"]) > 12, card
        assert any(f"books/{quote(bid)}/" in h and "#" in h for h in card["start"]), card     # where to start
    text = browser.js("document.querySelector('article').innerText")
    for dev in (">>>", "import rules_dsl", "rules lookup", "resolver"):
        assert dev not in text, f"{dev!r} on the players' home page"
    assert browser.js("!!document.querySelector('article a[href=\"developers.html\"]')")
    browser.screenshot(site / "_screenshots" / "home.png", full=True)
    browser.goto(url(site, "docs/developers.html"))
    assert browser.js("document.querySelectorAll('button.copybtn').length") > 0   # sphinx-copybutton
    assert browser.console_errors == []


def test_follow_a_cross_reference_with_preview(site, browser):
    browser.console_errors.clear()
    pages = sorted((site / "docs" / "books").rglob("*.html"))
    target = None
    for p in pages:
        text = p.read_text(encoding="utf-8")
        if 'class="rules-ref rules-ref-rule reference internal" href="' in text and "#" in text:
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
    assert target["preview"], "the link carries no title"
    assert "\u2003" not in target["preview"]    # the title and book only: the text is in a file
    from rules_dsl.sphinxext import previews
    book = target["hash"].split(":")[0]
    texts = previews.loads((site / "_static" / "rules-previews" / f"{book}.js").read_text(encoding="utf-8"))
    text = texts["previews"][target["hash"]]
    # hover: the preview tooltip shows the target's title, then the text from its book's
    # file, loaded (from disk: a script, not a fetch) the first time
    browser.js("document.getElementById('under-test').scrollIntoView({block: 'center'})")
    browser.js("document.getElementById('under-test').dispatchEvent(new MouseEvent('mouseenter'))")
    tip = browser.wait_for("(() => { const t = document.getElementById('rules-preview');"
                           " return t && !t.hidden && t.textContent; })()", timeout=5)
    assert target["preview"] in tip
    body = browser.wait_for("(() => { const b = document.querySelector('#rules-preview .rules-preview-body');"
                            " return b && !b.hidden && b.textContent; })()", timeout=5)
    assert body == text
    assert browser.js("document.querySelectorAll('script[src*=\"rules-previews/\"]').length") == 1
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
    from rules_dsl.library.loader import book_ids, load
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


# ------------------------------------------------------------------ rule pages at the table
PHONE = (390, 844)
DESKTOP = (1400, 1000)
SHOTS = Path(os.environ.get("RULES_DSL_SHOTS") or "/tmp/shots")
AXE = REPO / "tests" / "vendor" / "axe-core" / "axe.min.js"
RULE = "dust-tactics:suppression"      # a long rule: prose, notes, mechanics, odds, examples


def _page_of(site: Path, anchor: str) -> Path:
    for p in sorted((site / "docs" / "books").rglob("*.html")):
        if f'id="{anchor}"' in p.read_text(encoding="utf-8"):
            return p
    pytest.skip(f"no page holds {anchor}")


def _in_view(browser, element: str):
    """Wait until `element` (a JavaScript expression) is on the screen and a frame has been
    drawn with it there: what a screenshot or a tap after scrolling needs."""
    browser.wait_for(f"""(() => {{ const r = ({element}).getBoundingClientRect();
        return r.bottom > 0 && r.top < innerHeight
            && new Promise(drawn => requestAnimationFrame(() => requestAnimationFrame(() => drawn(true)))); }})()""")


def _shot(browser, site: Path, name: str):
    """A screenshot of the viewport, in the build's folder and copied to /tmp/shots/ to look at."""
    path = site / "_screenshots" / name
    browser.screenshot(path)
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy2(path, SHOTS / name)
    return path


@pytest.fixture()
def phone(browser):
    browser.viewport(*PHONE, mobile=True)
    try:
        yield browser
    finally:
        browser.viewport(1280, 900)


def _open(browser, page: Path, anchor: str | None = None):
    # a fresh load every time (a hash-only change would keep the page and its folds as they were)
    browser.send("Page.navigate", {"url": "about:blank"})
    browser.wait_for("location.href === 'about:blank'")
    browser.goto(page.as_uri() + (f"#{anchor}" if anchor else ""))
    browser.wait_for("document.readyState === 'complete'")


def test_rule_page_on_a_phone_shows_the_prose_first(site, phone):
    page = _page_of(site, RULE)
    phone.console_errors.clear()
    _open(phone, page, RULE)
    facts = phone.js(f"""(() => {{
        const sec = document.getElementById({json.dumps(RULE)});
        const prose = sec.querySelector('.rules-rule-text > p');
        const folds = Array.from(sec.querySelectorAll('details.rules-fold'));
        const top = sec.getBoundingClientRect().top;
        return {{proseBelowHeading: prose.getBoundingClientRect().top - top,
                 proseText: prose.textContent.length,
                 folds: folds.map(d => [d.className, d.open, d.querySelector('summary').textContent]),
                 foldsAfterProse: folds.every(d => prose.compareDocumentPosition(d) & Node.DOCUMENT_POSITION_FOLLOWING),
                 pageWidth: document.documentElement.scrollWidth, height: innerHeight}};
    }})()""")
    assert facts["proseText"] > 0
    assert facts["proseBelowHeading"] < 0.4 * facts["height"], facts     # the rule's text opens its first screen
    kinds = {c.split()[1] for c, _, _ in facts["folds"]}
    assert {"rules-fold-notes", "rules-fold-examples"} <= kinds, facts["folds"]
    assert not any(is_open for _, is_open, _ in facts["folds"]), "a fold is open on a phone"
    # the mechanics are in view, each headed by its question, its form's place not in a fold
    asks = phone.js(f"""Array.from(document.getElementById({json.dumps(RULE)}).querySelectorAll(
        'div.rules-asks dl.mechanic')).map(d => [d.querySelector('dt').textContent.trim(),
                                                 !!d.querySelector('div.rules-try') && !d.querySelector('div.rules-try').closest('details')])""")
    assert asks and all(in_view for _, in_view in asks), asks
    assert any(title.rstrip("¶").endswith("?") for title, _ in asks), asks
    assert facts["foldsAfterProse"]
    assert facts["pageWidth"] <= PHONE[0], "the page scrolls sideways on a phone"
    _shot(phone, site, "rule-390x844.png")
    phone.js(f"""document.getElementById({json.dumps(RULE)}).querySelector('.rules-folds')
        .scrollIntoView({{block: 'center', behavior: 'instant'}})""")
    _in_view(phone, f"document.getElementById({json.dumps(RULE)}).querySelector('.rules-folds')")
    _shot(phone, site, "rule-390x844-folds.png")
    # a mechanic's exact odds are one tap; tables scroll in their own box
    boxes = phone.js(f"""(() => {{
        const sec = document.getElementById({json.dumps(RULE)});
        const odds = sec.querySelector('details.rules-fold-odds');
        if (odds) odds.querySelector('summary').click();
        return Array.from(sec.querySelectorAll('div.table-wrapper.rules-table')).filter(w => w.offsetParent)
          .map(w => {{ const th = w.querySelector('thead th'), td = w.querySelector('tbody td');
                      return {{overflow: getComputedStyle(w).overflowX, fits: w.getBoundingClientRect().right <= innerWidth + 1,
                              head: th && getComputedStyle(th).position, first: td && getComputedStyle(td).position}}; }});
    }})()""")
    assert boxes, "no table shown after opening the folds"
    for b in boxes:
        assert b["fits"] and b["overflow"] == "auto" and b["head"] == "sticky" and b["first"] == "sticky", b
    assert phone.js("document.documentElement.scrollWidth") <= PHONE[0]
    phone.js(f"""Array.from(document.getElementById({json.dumps(RULE)}).querySelectorAll('div.table-wrapper.rules-odds'))
        .find(w => w.offsetParent).scrollIntoView({{block: 'center', behavior: 'instant'}})""")
    _in_view(phone, f"""Array.from(document.getElementById({json.dumps(RULE)})
        .querySelectorAll('div.table-wrapper.rules-odds')).find(w => w.offsetParent)""")
    _shot(phone, site, "rule-390x844-open.png")
    assert phone.console_errors == []


def test_rule_page_on_a_desktop_opens_the_folds(site, browser):
    page = _page_of(site, RULE)
    browser.viewport(*DESKTOP)
    try:
        _open(browser, page, RULE)
        folds = browser.js(f"""Array.from(document.getElementById({json.dumps(RULE)})
            .querySelectorAll(':scope > .rules-folds > details.rules-fold')).map(d => [d.className.split(' ')[1], d.open])""")
        state = dict(folds)
        assert browser.js(f"!!document.getElementById({json.dumps(RULE)}).querySelector('div.rules-asks div.rules-try')")
        # notes (often about how the text was restated) and worked examples stay a tap away
        assert state.get("rules-fold-examples") is False and state.get("rules-fold-notes") is False, folds
        _shot(browser, site, "rule-1400x1000.png")
    finally:
        browser.viewport(1280, 900)


def test_copy_link_button_copies_the_rule_url_or_selects_it(site, phone):
    page = _page_of(site, RULE)
    _open(phone, page)
    button = f"document.getElementById({json.dumps(RULE)}).querySelector('button.rules-copylink')"
    label = phone.js(f"{button}.getAttribute('aria-label')")
    assert label and "Copy link" in label and RULE in label
    want = page.as_uri() + "#" + RULE
    # with a clipboard: the full URL with the rule's anchor is written
    phone.js("window.__copied = null; Object.defineProperty(navigator, 'clipboard', {configurable: true,"
             " value: {writeText: t => { window.__copied = t; return Promise.resolve(); }}})")
    phone.js(f"{button}.click()")
    assert phone.wait_for("window.__copied", timeout=5) == want
    # clipboard refused: the URL is shown in a text box, selected, ready to copy by hand
    phone.js("Object.defineProperty(navigator, 'clipboard', {configurable: true,"
             " value: {writeText: t => Promise.reject(new Error('denied'))}})")
    phone.js(f"{button}.click()")
    box = phone.wait_for(f"""(() => {{ const i = document.getElementById({json.dumps(RULE)})
        .querySelector('input.rules-copylink-text'); return i && !i.hidden &&
        {{value: i.value, selected: i.selectionEnd - i.selectionStart, focused: document.activeElement === i}}; }})()""",
                         timeout=5)
    assert box["value"] == want and box["selected"] == len(want) and box["focused"], box


def test_referenced_by_links_point_to_rules_that_reference_this_one(site, browser):
    page = _page_of(site, RULE)
    _open(browser, page)
    back = browser.js(f"""Array.from(document.getElementById({json.dumps(RULE)})
        .querySelectorAll('.rules-meta-backlinks a.rules-ref')).map(a => a.href)""")
    assert back, "no referenced-by links on a rule that other rules reference"
    for href in back[:3]:
        path, anchor = href.split("#", 1)
        anchor = anchor.replace("%3A", ":")
        text = Path(path.replace("file://", "")).read_text(encoding="utf-8")
        start = text.index(f'id="{anchor}"')
        end = text.find('<section id="', start + 1)
        assert f"#{RULE}" in text[start:end if end > 0 else None], f"{anchor} does not reference {RULE}"


def test_preview_text_from_a_hostile_book_is_shown_as_text(tmp_path, browser):
    """A preview's text is set as text (markup in a book stays visible characters and
    runs nothing), and an anchor that is not a book's id makes the page load no file."""
    from rules_dsl.sphinxext import STATIC, previews
    static = tmp_path / "_static"
    (static / "rules-previews").mkdir(parents=True)
    shutil.copy(STATIC / "rules_dsl.js", static / "rules_dsl.js")
    evil = '<img src=x onerror="window.PWNED=1"></div><script>window.PWNED=2</script>'
    (static / "rules-previews" / "evil.js").write_text(previews.dumps("evil", {"evil:x": evil}), encoding="utf-8")
    (tmp_path / "evil.js").write_text("window.PWNED = 3;\n", encoding="utf-8")   # what "../evil" would load
    (tmp_path / "page.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title></head><body>'
        '<p><a class="rules-ref" id="a1" href="#evil:x" title="X — Evil">x</a> '
        '<a class="rules-ref" id="a2" href="#..%2Fevil:x" title="Y — Evil">y</a></p>'
        '<script src="_static/rules_dsl.js"></script></body></html>', encoding="utf-8")
    browser.console_errors.clear()
    browser.goto((tmp_path / "page.html").as_uri())
    browser.js("document.getElementById('a1').dispatchEvent(new MouseEvent('mouseenter'))")
    body = browser.wait_for("(() => { const b = document.querySelector('#rules-preview .rules-preview-body');"
                            " return b && !b.hidden && b.textContent; })()", timeout=5)
    assert body == evil
    assert browser.js("document.querySelectorAll('#rules-preview *').length") == 3   # title, body, link
    browser.js("document.getElementById('a1').dispatchEvent(new MouseEvent('mouseleave'))")
    browser.js("document.getElementById('a2').dispatchEvent(new MouseEvent('mouseenter'))")
    assert browser.wait_for("(() => { const t = document.querySelector('#rules-preview');"
                            " return !t.hidden && t.textContent.startsWith('Y — Evil') && t.textContent; })()",
                            timeout=5)
    assert sorted(browser.js("[...document.scripts].map(s => s.getAttribute('src'))")) == sorted([
        "_static/rules_dsl.js", (static / "rules-previews" / "evil.js").as_uri()])
    assert browser.js("window.PWNED === undefined")
    assert browser.console_errors == []


def test_preview_works_on_a_touch_screen(site, phone):
    page = _page_of(site, RULE)
    phone.console_errors.clear()
    _open(phone, page)
    phone.js(f"""document.getElementById({json.dumps(RULE)}).querySelector('.rules-rule-text a.rules-ref')
        .scrollIntoView({{block: 'center', behavior: 'instant'}})""")
    _in_view(phone, f"document.getElementById({json.dumps(RULE)}).querySelector('.rules-rule-text a.rules-ref')")
    link = phone.js(f"""(() => {{
        const a = document.getElementById({json.dumps(RULE)}).querySelector('.rules-rule-text a.rules-ref');
        const r = a.getBoundingClientRect();
        return {{x: r.left + Math.min(r.width / 2, 20), y: r.top + r.height / 2, href: a.href}};
    }})()""")
    before = phone.js("location.href")
    # told once the page's own click handlers have all run: did one of them keep the link from being followed?
    phone.js("""window.__tapped = null; addEventListener('click', e => setTimeout(() => {
        window.__tapped = {prevented: e.defaultPrevented}; }), {once: true})""")
    phone.tap(link["x"], link["y"])
    tip = phone.wait_for("""(() => { const t = document.getElementById('rules-preview');
        if (!t || t.hidden) return null; const go = t.querySelector('a.rules-preview-go');
        const body = t.querySelector('.rules-preview-body');
        if (body.hidden) return null;     /* the text: from the book's previews file */
        return {text: t.textContent, body: body.textContent, go: go && !go.hidden && go.href}; })()""", timeout=5)
    assert tip["body"].strip(), tip
    assert phone.wait_for("window.__tapped", timeout=5) == {"prevented": True}, "the first tap was not kept from following the link"
    assert phone.js("location.href") == before, "the first tap followed the link instead of previewing it"
    assert tip["go"] == link["href"], tip
    _shot(phone, site, "preview-touch-390x844.png")
    # tapping the preview's link follows the reference
    go = phone.js("""(() => { const r = document.querySelector('#rules-preview a.rules-preview-go').getBoundingClientRect();
        return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()""")
    phone.tap(go["x"], go["y"])
    phone.wait_for(f"location.href === {json.dumps(link['href'])} && document.readyState === 'complete'")
    assert phone.console_errors == []


def _axe(browser) -> list:
    browser.js(AXE.read_text(encoding="utf-8"))
    return browser.js("""axe.run(document, {resultTypes: ['violations']}).then(r => r.violations
        .filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => ({id: v.id, impact: v.impact, help: v.help,
                    nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})))""", timeout=120)


@pytest.mark.skipif(not AXE.is_file(), reason="axe-core is not vendored (tests/vendor/axe-core/)")
def test_no_serious_accessibility_violations(site, browser):
    """axe-core on the home page, a book's page, a section page and a rule's page (phone and desktop)."""
    rule_page = _page_of(site, RULE)
    pages = [site / "docs" / "index.html", site / "docs" / "books" / "dust-tactics" / "index.html",
             sorted((site / "docs" / "books" / "null-strike").glob("*.html"))[-1], rule_page]
    found = {}
    for size, mobile in ((PHONE, True), ((1280, 900), False)):
        browser.viewport(*size, mobile=mobile)
        for p in pages:
            _open(browser, p)
            head = browser.js("""({desc: (document.querySelector('meta[name=description]') || {}).content,
                                  icon: (document.querySelector('link[rel~=icon]') || {}).href})""")
            assert head["desc"] and len(head["desc"]) > 30, (p, head)
            assert head["icon"] and Path(head["icon"].replace("file://", "")).is_file(), (p, head)
            bad = _axe(browser)
            if bad:
                found[f"{p.relative_to(site)} at {size[0]}px"] = bad
    browser.viewport(1280, 900)
    assert not found, json.dumps(found, indent=1)


def test_measure_rule_pages_and_page_weights(site, phone):
    """Reported, and bounded: where a rule's prose starts on its page at 390 px (in screens
    from the top), and what the home, a section and a rule page weigh (HTML + CSS + JS)."""
    import re
    import statistics
    positions, heights = [], [0, 0, 0]
    pages = sorted(p for p in (site / "docs" / "books").glob("*/*.html")
                   if not p.parent.name.startswith("_") and p.name != "index.html")
    for p in pages:
        _open(phone, p)
        positions += phone.js("""Array.from(document.querySelectorAll('section.rules-rule')).map(s => {
            const p = s.querySelector('.rules-rule-text > *') || s;
            return (p.getBoundingClientRect().top + scrollY) / innerHeight; })""")
        page_h, prose_h, tall = phone.js("""(() => { const rules = Array.from(document.querySelectorAll('section.rules-rule'))
            .filter(s => !s.parentElement.closest('section.rules-rule'));
            const h = el => el ? el.getBoundingClientRect().height : 0;
            return [document.documentElement.scrollHeight,
                    rules.reduce((a, s) => a + h(s.querySelector(':scope > .rules-rule-text')), 0),
                    rules.filter(s => h(s) > 3 * innerHeight).length]; })()""")
        heights = [heights[0] + page_h, heights[1] + prose_h, heights[2] + tall]
    assert positions

    def weight(page: Path) -> dict:
        html = page.read_text(encoding="utf-8")
        refs = re.findall(r'<link rel="stylesheet"[^>]*href="([^"?]+)', html) + re.findall(r'<script[^>]*src="([^"?]+)', html)
        assets = sum((page.parent / r).resolve().stat().st_size for r in refs if (page.parent / r).resolve().is_file())
        return {"html": page.stat().st_size, "css_js": assets, "total": page.stat().st_size + assets}

    rule_page = _page_of(site, RULE)
    report = {"rules": len(positions), "pages": len(pages),
              "median_screens_to_prose": round(statistics.median(positions), 2),
              "max_screens_to_prose": round(max(positions), 2),
              "prose_share_of_page_height": round(heights[1] / heights[0], 2),
              "rules_taller_than_3_screens": heights[2],
              "weights": {"home": weight(site / "docs" / "index.html"),
                          "section (dust-tactics/the-dice)": weight(site / "docs" / "books" / "dust-tactics" / "the-dice.html"),
                          f"rule page ({rule_page.relative_to(site)})": weight(rule_page)}}
    (site / "_screenshots").mkdir(exist_ok=True)
    (site / "_screenshots" / "measures.json").write_text(json.dumps(report, indent=1))
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "measures.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))
    assert report["median_screens_to_prose"] < 4, report


# ------------------------------------------------------------------ the rule search box
SEARCH_PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}


def _search_phone(browser, on=True):
    metrics = SEARCH_PHONE if on else {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}
    browser.send("Emulation.setDeviceMetricsOverride", metrics)


def _key(browser, key, code, vk, text=None):
    down = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
    if text:
        down["text"] = text
    browser.send("Input.dispatchKeyEvent", down)
    browser.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk})


def _search_shot(browser, path: Path):
    browser.screenshot(path)
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy2(path, SHOTS / path.name)


def test_search_box_on_a_phone_finds_a_misspelled_rule(site, browser, tmp_path):
    """On a 390x844 phone, the home page shows the rule box without opening the menu;
    typing "supression" lists Dust Tactics' Suppression first; ArrowDown + Enter opens
    its page at the rule's anchor; no console errors."""
    if not (site / "_static" / "rules-search-index.js").is_file():
        pytest.fail("the build wrote no _static/rules-search-index.js")
    if not (site / "_static" / "rules-search" / "dust-tactics.js").is_file():
        pytest.fail("the build wrote no _static/rules-search/<book>.js shards")
    browser.console_errors.clear()
    _search_phone(browser)
    try:
        browser.goto(url(site, "docs/index.html"), ready="!!document.getElementById('rules-search-input')")
        box = browser.js("(() => { const r = document.getElementById('rules-search-input').getBoundingClientRect();"
                         " return {top: r.top, bottom: r.bottom, width: r.width, right: r.right}; })()")
        assert box["width"] > 200 and 0 <= box["top"] and box["bottom"] <= SEARCH_PHONE["height"], box
        assert box["right"] <= SEARCH_PHONE["width"], f"the box overflows a phone's width: {box}"
        assert browser.js("document.documentElement.scrollWidth") <= SEARCH_PHONE["width"]
        browser.js("document.getElementById('rules-search-input').focus()")
        for ch in "supression":
            browser.send("Input.insertText", {"text": ch})
        first = browser.wait_for("(() => { const a = document.querySelector('#rules-search-results li a');"
                                 " return a && decodeURIComponent(a.href); })()", timeout=20)
        assert first.endswith("#dust-tactics:suppression"), first
        # the names answer first; the shard of the book shown comes after a pause, for snippets
        browser.wait_for("document.getElementById('rules-search').getAttribute('data-state') === 'done'")
        meta = browser.js("(() => { const li = document.querySelector('#rules-search-results li');"
                          " return {where: li.querySelector('.rules-search-where').textContent,"
                          " snippet: li.querySelector('.rules-search-snippet').textContent}; })()")
        assert meta["where"].startswith("Dust Tactics") and len(meta["snippet"]) > 40, meta
        panel = browser.js("(() => { const r = document.querySelector('.rules-search-panel').getBoundingClientRect();"
                           " return {left: r.left, right: r.right}; })()")
        assert panel["left"] >= 0 and panel["right"] <= SEARCH_PHONE["width"], panel
        _search_shot(browser, tmp_path / "search-phone-results.png")
        _key(browser, "ArrowDown", "ArrowDown", 40)
        assert browser.js("document.querySelector('#rules-search-results li').getAttribute('aria-selected')") == "true"
        assert browser.js("document.getElementById('rules-search-input').getAttribute('aria-activedescendant')") \
            == "rules-search-opt-0"
        _key(browser, "Enter", "Enter", 13, "\r")
        browser.wait_for("decodeURIComponent(location.hash) === '#dust-tactics:suppression'"
                         " && document.readyState === 'complete'")
        assert "/docs/books/dust-tactics/" in browser.js("location.pathname")
        top = browser.js("document.getElementById('dust-tactics:suppression').getBoundingClientRect().top")
        assert -5 <= top < SEARCH_PHONE["height"] / 2, f"the rule is not at the top of the screen: {top}"
        _search_shot(browser, tmp_path / "search-phone-landed.png")
        # Escape closes the list; the box is on this page too
        browser.js("document.getElementById('rules-search-input').focus()")
        browser.send("Input.insertText", {"text": "cover save"})
        browser.wait_for("!document.querySelector('.rules-search-panel').hidden")
        _key(browser, "Escape", "Escape", 27)
        assert browser.js("document.querySelector('.rules-search-panel').hidden")
    finally:
        _search_phone(browser, False)
    assert browser.console_errors == []


def test_search_box_filters_by_book(site, browser):
    browser.console_errors.clear()
    browser.goto(url(site, "docs/index.html"), ready="!!document.getElementById('rules-search-input')")
    browser.js("document.getElementById('rules-search-input').focus()")
    browser.wait_for("document.querySelectorAll('.rules-search-book option').length > 1")
    browser.js("(() => { const s = document.querySelector('.rules-search-book'); s.value = 'void';"
               " s.dispatchEvent(new Event('change')); })()")
    browser.send("Input.insertText", {"text": "suppression"})
    browser.wait_for("document.getElementById('rules-search').getAttribute('data-state') === 'done'")
    hrefs = browser.wait_for("(() => { const l = Array.from(document.querySelectorAll('#rules-search-results li a'));"
                             " return l.length && l.map(a => decodeURIComponent(a.hash)); })()")
    assert hrefs[0] == "#void:suppressive-fire" and all(h.startswith("#void:") for h in hrefs), hrefs
    assert browser.console_errors == []


@pytest.fixture(scope="module")
def http_site(site):
    """The built site over http on localhost: browsers refuse module scripts from file: pages
    (the forms are not offered there), and the search page fetches result pages for their
    snippets only over http.  `.mjs` is served as JavaScript, as a module needs."""
    import functools
    import http.server
    from typing import ClassVar

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map: ClassVar[dict] = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript"}

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
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
    assert browser.console_errors == []


# ------------------------------------------------------------------ mechanic forms ("Try it")
def _range_case(book, dice=False, seed=None):
    """(mechanic, {param: value}, Python's shown result, the first range param, the rolls made as
    typed in a form) of a mechanic of `book` (with rolls of its own if `dice`, rolled from `seed`;
    else dice-free) whose parameters are all whole-number ranges, or None."""
    from rules_dsl.language import nodes as n
    from rules_dsl.language.values import show
    for name, m in book.mechanics.items():
        ps = list(m.params)
        if ((not m.rolls) if dice else m.has_dice) or not ps or not all(isinstance(p.type, n.RangeType) for p in ps):
            continue
        inputs = {p.name: (p.type.low + p.type.high + 1) // 2 for p in ps}
        try:
            value, made = m.run(seed=seed, **inputs) if dice else (m(**inputs), {})
        except Exception:        # a `require` this choice breaks: try another mechanic
            continue
        typed = {k: ", ".join(show(x) for x in v) if isinstance(v, list) else show(v) for k, v in made.items()}
        return name, inputs, show(value), ps[0], typed
    return None


def _answer(book, name, inputs, seed=None):
    """What a form says for these inputs (rolled from `seed`): the mechanic's answer in words."""
    from rules_dsl.language import wording
    mech = book.mechanics[name]
    value = mech.run(seed=seed, **inputs)[0] if seed is not None else mech(**inputs)
    return wording.answer(book.display, name, value, inputs)


def _open_form(browser, http_site, site, bid, name):
    """Open the page holding `bid:name`'s form over http, open its mechanics fold, wait for
    the form; returns the JS expression of its box."""
    import html
    marker = f'data-book="{html.escape(bid)}" data-mechanic="{html.escape(name)}"'
    page = next(p for p in sorted((site / "docs" / "books").rglob("*.html")) if marker in p.read_text(encoding="utf-8"))
    browser.goto(f"{http_site}/{page.relative_to(site).as_posix()}")
    browser.wait_for("document.readyState === 'complete'")
    box = f"document.querySelector('div.rules-try[data-book={json.dumps(bid)}][data-mechanic={json.dumps(name)}]')"
    browser.js(f"{box}.scrollIntoView({{block: 'center', behavior: 'instant'}})")
    browser.wait_for(f"{box}.hasAttribute('data-ready')", timeout=20)
    return box


def _fill(browser, box, values):
    browser.js(";".join(f"(i => {{ i.value = {json.dumps(str(v))}; i.dispatchEvent(new Event('input')); }})"
                        f"({box}.querySelector('[name={json.dumps(k)}]'))" for k, v in values.items()))


def test_mechanic_forms_on_a_phone_match_the_python_back_end(site, http_site, phone):
    """One dice-free mechanic per book, on a 390 px page: the form's result as typed is what the
    Python back end gives; an out-of-range value shows the parameter's name beside its field."""
    import gzip
    import html
    import urllib.request
    from rules_dsl.library.loader import book_ids, load
    books = [b for b in book_ids() if (site / "_static" / "js" / f"{b}.mjs").is_file()]
    assert len(books) >= 3, f"JavaScript modules for only {books}"
    pages = sorted((site / "docs" / "books").rglob("*.html"))
    report = {"books": {}, "first_result_ms": {}}
    checked = 0
    for bid in books:
        case = _range_case(load(bid))
        if case is None:
            continue
        name, inputs, want, first, _ = case
        marker = f'data-book="{html.escape(bid)}" data-mechanic="{html.escape(name)}"'
        page = next(p for p in pages if marker in p.read_text(encoding="utf-8"))
        phone.console_errors.clear()
        phone.send("Page.navigate", {"url": "about:blank"})
        phone.wait_for("location.href === 'about:blank'")
        phone.goto(f"{http_site}/{page.relative_to(site).as_posix()}")
        phone.wait_for("document.readyState === 'complete'")
        box = f"document.querySelector('div.rules-try[data-book={json.dumps(bid)}][data-mechanic={json.dumps(name)}]')"
        near = phone.js("Array.from(document.querySelectorAll('div.rules-try')).some(b => b.getBoundingClientRect().top < innerHeight + 200)")
        if not near:      # no form near the first screen: its script is not loaded yet
            assert phone.js("document.querySelectorAll('script[src*=rules_try]').length") == 0, "loaded before it was needed"
        phone.js(f"window.__t0 = performance.now(); {box}.scrollIntoView({{block: 'center', behavior: 'instant'}})")
        phone.wait_for(f"{box}.hasAttribute('data-ready')", timeout=20)
        ms = phone.js("[performance.getEntriesByName('rules-try-first-result')[0].startTime, performance.now() - window.__t0]")
        _fill(phone, box, inputs)
        shown = phone.js(f"{box}.querySelector('output.rules-try-result').textContent")
        said = _answer(load(bid), name, inputs)
        assert shown == said, (bid, name, inputs, shown, want)
        labels = phone.js(f"""Array.from({box}.querySelectorAll('input, select'))
            .every(i => i.labels.length === 1 && i.labels[0].textContent.trim())""")
        assert labels, "a field without its label"
        # out of range: the parameter's field says so, in words naming it
        _fill(phone, box, {first.name: first.type.high + 1})
        err = phone.js(f"""(() => {{ const i = {box}.querySelector('[name={json.dumps(first.name)}]');
            return {{text: i.parentElement.querySelector('.rules-try-error').textContent,
                     invalid: i.getAttribute('aria-invalid'),
                     failed: {box}.querySelector('output').classList.contains('rules-try-failed')}}; }})()""")
        label = load(bid).display.param(name, first.name)
        assert err["text"].lower().startswith(label.lower() + ": must be "), err     # in words, naming its field
        assert err["invalid"] == "true" and err["failed"], err
        assert phone.js("document.documentElement.scrollWidth") <= PHONE[0], "the form makes the page scroll sideways"
        if checked == 0 and AXE.is_file():     # the forms (with an error shown) pass axe-core too
            bad = _axe(phone)
            assert not bad, json.dumps(bad, indent=1)
        phone.js(f"{box}.scrollIntoView({{block: 'center', behavior: 'instant'}})")
        _in_view(phone, box)
        _shot(phone, site, f"form-{bid}-390x844.png")
        assert phone.console_errors == [], (bid, phone.console_errors)
        report["books"][bid] = {"mechanic": name, "inputs": inputs, "shown": shown}
        report["first_result_ms"][bid] = {"page_load_to_first_result": round(ms[0]), "fold_tap_to_form": round(ms[1]),
                                         "forms_built_on_the_page": phone.js("document.querySelectorAll('div.rules-try[data-ready]').length"),
                                         "form_places_on_the_page": phone.js("document.querySelectorAll('div.rules-try').length")}
        checked += 1
    assert checked >= 3, f"a dice-free mechanic with range parameters was checked in only {checked} book(s)"
    # a dice mechanic rolls from the seed in its form what `rules call --seed` rolls
    dice = next(((bid, c) for bid in books if (c := _range_case(load(bid), dice=True, seed=7))), None)
    if dice:
        bid, (name, inputs, want, _, made) = dice
        box = _open_form(phone, http_site, site, bid, name)
        _fill(phone, box, {**inputs, "seed": 7})
        shown = phone.js(f"{box}.querySelector('output.rules-try-result').textContent")
        assert shown.startswith(f"{_answer(load(bid), name, inputs, seed=7)} (rolled: "), (bid, name, inputs, shown, want)
        # the same faces typed by hand, from another seed: the same result, and those faces
        _fill(phone, box, {"seed": 8, **{f"roll:{k}": v for k, v in made.items()}})
        by_hand = phone.js(f"{box}.querySelector('output.rules-try-result').textContent")
        assert by_hand == shown, (made, by_hand, shown)
        label = phone.js(f"{box}.querySelector('[name={json.dumps('roll:' + next(iter(made)))}]').labels[0].textContent")
        assert label == f"Roll: {load(bid).display.roll(name, next(iter(made)))}"
        report["dice"] = {"book": bid, "mechanic": name, "inputs": inputs, "seed": 7, "shown": shown, "typed": made}
        assert phone.console_errors == [], phone.console_errors

    def served(rel):
        with urllib.request.urlopen(f"{http_site}/{rel}") as r:
            body = r.read()
        return {"bytes": len(body), "gzip_bytes": len(gzip.compress(body, 9))}
    report["page_script"] = {"rules_try.mjs": served("_static/rules_try.mjs"), "rules_dsl.js (with the loader)": served("_static/rules_dsl.js")}
    report["modules"] = {"runtime.mjs": served("_static/js/runtime.mjs")} | {f"{b}.mjs": served(f"_static/js/{b}.mjs") for b in books}
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "forms.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))


def test_a_dice_form_shows_the_pages_exact_odds_for_its_inputs(site, http_site, phone):
    """Hollow Fields' nerve test: its page holds exact odds for nerve=7 with and without the
    re-roll (the book's `odds` lines); the form shows those rows, drawn, for those inputs without
    loading the odds engine, and works the others out in the browser (nerve 8: `rules odds`)."""
    phone.console_errors.clear()
    box = _open_form(phone, http_site, site, "skirmish-tutorial", "nerve_test")
    held = json.loads(phone.js(f"{box}.dataset.odds"))
    assert [b["inputs"] for b in held] == [{"nerve": "7", "reroll": "false"}, {"nerve": "7", "reroll": "true"}]
    _fill(phone, box, {"nerve": 7, "reroll": "0"})          # the select's first choice: true
    odds = _form_odds(phone, box)
    assert odds["title"].startswith("Exact odds for these inputs"), odds
    assert odds["rows"] == [r[:3] + [r[3].replace("/1", "") if r[3].endswith("/1") else r[3]] for r in held[1]["rows"]], odds
    assert ["yes", "82.64%"] == odds["rows"][-1][:2], odds   # docs/adding-a-book.md: 119/144 (in words)
    assert odds["desc"] == "no: 17.36%; yes: 82.64%", odds
    assert not phone.js("performance.getEntriesByType('resource').some(r => /odds\\.mjs/.test(r.name))"), "the engine loaded for odds the page holds"
    _fill(phone, box, {"nerve": 8})
    odds = _form_odds(phone, box)
    assert odds["title"].startswith("Exact odds for these inputs"), odds
    assert _exact(odds) == _rules_odds("skirmish-tutorial:nerve_test", "nerve=8", "reroll=true"), odds
    assert phone.console_errors == [], phone.console_errors


def _form_odds(browser, box, timeout=60):
    """The odds a form shows once worked out: status, table rows (result, percent, at least,
    exact), the chart's text alternative and its number of bars."""
    browser.wait_for(f"(() => {{ const o = {box}.querySelector('.rules-try-odds');"
                     f" return o && !o.hasAttribute('aria-busy') && !/Working out/.test(o.querySelector('p').textContent); }})()",
                     timeout=timeout)
    return browser.js(f"""(() => {{ const o = {box}.querySelector('.rules-try-odds'), svg = o.querySelector('svg.rules-chart');
        return {{title: o.querySelector('p').textContent,
                 rows: Array.from(o.querySelectorAll('tbody tr')).map(r => Array.from(r.cells).map(c => c.textContent)),
                 head: Array.from(o.querySelectorAll('thead th')).map(c => c.textContent),
                 desc: svg ? svg.querySelector('desc').textContent : null, name: svg ? svg.querySelector('title').textContent : null,
                 role: svg ? svg.getAttribute('role') : null, bars: svg ? svg.querySelectorAll('g.rules-chart-row rect.rules-chart-a').length : 0,
                 barsB: svg ? svg.querySelectorAll('g.rules-chart-row rect.rules-chart-b').length : 0,
                 command: (o.querySelector('details.rules-try-designer code') || {{}}).textContent || null}}; }})()""")


def _exact(odds) -> list:
    """[(result in words, exact fraction)] of a form's table."""
    return [(r[0], r[3] if "/" in r[3] else f"{r[3]}/1") for r in odds["rows"]]


def _rules_odds(ref, *assignments, vs=None) -> list:
    """`rules odds REF ... --json` run as a player would: [(result in words, "p/q")]."""
    import subprocess
    import sys
    from rules_dsl.library.loader import load
    args = [sys.executable, "-m", "rules_dsl", "odds", ref, *assignments, "--json"] + (["--vs", *vs] if vs else [])
    p = subprocess.run(args, capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    book = load(ref.split(":")[0])

    def said(v):
        if isinstance(v, dict):        # a chain's "n or more"
            return f"{v['at_least']} or more"
        return book.display.value(_member(book, v) if isinstance(v, str) else v)

    def law(d):
        return [(said(o["value"]), o["probability"]) for o in d["outcomes"]]
    return (law(data["a"]), law(data["b"])) if vs else law(data)


def _member(book, name):
    from rules_dsl.language.values import Sym
    for members in book.enums.values():
        if name in members:
            return members[name]
    return Sym(name, "")


# ------------------------------------------------------------------ any input's odds, drawn (issue 27)
ODDS_SHOTS = Path(os.environ.get("RULES_DSL_ODDS_SHOTS") or SHOTS)


def test_a_dice_form_works_out_odds_the_page_does_not_hold_and_draws_them(site, http_site, phone):
    """390x844, Null Strike's morale check: morale 3 is a real statline value the page holds no odds
    for.  Typed into the form, the exact distribution is worked out in the browser and drawn (an SVG
    chart, its text alternative naming every outcome, the table a tap away) and it is exactly what
    `rules odds` gives; "Compare" draws morale 4 beside it as `--vs` does; typing never leaves the
    odds of other inputs on screen; a case past the budget is refused plainly, with the command."""
    phone.console_errors.clear()
    box = _open_form(phone, http_site, site, "null-strike", "morale_check")
    held = json.loads(phone.js(f"{box}.dataset.odds"))
    assert all(b["inputs"]["morale"] != "3" for b in held), held       # the page holds no odds for morale 3
    before = _form_odds(phone, box)
    _fill(phone, box, {"morale": 3})
    now = phone.js(f"{box}.querySelector('.rules-try-odds p').textContent")   # at once: never the old odds
    assert now.startswith("Working out") or now != before["title"] or _form_odds(phone, box)["desc"] != before["desc"], now
    odds = _form_odds(phone, box)
    want = _rules_odds("null-strike:morale_check", "morale=3")
    assert odds["title"].startswith("Exact odds for these inputs") and _exact(odds) == want, (odds, want)
    assert odds["role"] == "img" and odds["bars"] == len(want) and odds["name"].startswith("Exact odds: ")
    assert odds["desc"] == "; ".join(f"{r[0]}: {r[1]}" for r in odds["rows"]), odds     # the text alternative
    assert phone.js("document.documentElement.scrollWidth") <= PHONE[0], "the chart makes the page scroll sideways"
    bars = phone.js(f"Array.from({box}.querySelectorAll('svg.rules-chart g.rules-chart-row rect.rules-chart-a')).map(r => +r.getAttribute('width'))")
    assert bars[0] > bars[1] > 0 and abs(bars[0] / bars[1] - 2) < 0.05, bars       # 2/3 against 1/3, drawn to scale
    ODDS_SHOTS.mkdir(parents=True, exist_ok=True)
    phone.js(f"window.scrollTo(0, {box}.querySelector('output').getBoundingClientRect().top + scrollY - 120)")
    phone.wait_for(f"{box}.querySelector('svg.rules-chart').getBoundingClientRect().bottom < innerHeight")
    phone.screenshot(ODDS_SHOTS / "odds-morale-3-390x844.png")
    # compare: the same mechanic with morale 4, drawn beside (rules odds --vs)
    phone.js(f"(s => {{ s.value = '0'; s.dispatchEvent(new Event('change')); }})({box}.querySelector('select[name=compare]'))")
    pair = _form_odds(phone, box)
    a, b = _rules_odds("null-strike:morale_check", "morale=3", vs=["morale=4"])
    assert pair["title"].startswith("Exact odds, A as typed and B with morale 4"), pair
    assert pair["head"][1:3] == ["A", "B"] and pair["barsB"] == len(b) == pair["bars"], pair
    assert [(r[0], r[1], r[2]) for r in pair["rows"]] == [(x[0], _pct(x[1]), _pct(y[1])) for x, y in zip(a, b)], (pair, a, b)
    phone.js(f"window.scrollTo(0, {box}.querySelector('.rules-try-odds').getBoundingClientRect().top + scrollY - 60)")
    phone.screenshot(ODDS_SHOTS / "odds-compare-390x844.png")
    phone.js(f"(s => {{ s.value = ''; s.dispatchEvent(new Event('change')); }})({box}.querySelector('select[name=compare]'))")
    # an input out of range: nothing of the last odds stays
    _fill(phone, box, {"morale": 9})
    gone = phone.js(f"(() => {{ const o = {box}.querySelector('.rules-try-odds'); return [o.querySelector('p').textContent,"
                    " o.querySelectorAll('svg, table').length]; })()")
    assert gone[1] == 0 and "valid value" in gone[0], gone
    if AXE.is_file():                   # the chart and the comparison pass axe-core
        _fill(phone, box, {"morale": 3})
        _form_odds(phone, box)
        bad = _axe(phone)
        assert not bad, json.dumps(bad, indent=1)
    # past the budget: Dust's 400 dice with a sustained attack (162,406 evaluations of the engine)
    big = _open_form(phone, http_site, site, "dust-tactics", "attack_hits")
    _fill(phone, big, {"dice": 400})
    phone.js(f"(s => {{ s.value = '0'; s.dispatchEvent(new Event('change')); }})({big}.querySelector('select[name=sustained]'))")
    refused = _form_odds(phone, big)
    assert refused["title"] == ("These inputs have too many outcomes to work out on this page: "
                                "it takes more than 20,000 evaluations."), refused
    said = phone.js(f"{big}.querySelector('details.rules-try-designer p.rules-try-refusal').textContent")
    assert said == _python_refusal("dust-tactics", "attack_hits", dice=400, sustained=True), said   # Python's words
    assert refused["bars"] == 0 and refused["rows"] == [], refused
    assert refused["command"] == "rules odds dust-tactics:attack_hits dice=400 sustained=true extra_target=false", refused
    phone.js(f"window.scrollTo(0, {big}.querySelector('.rules-try-odds').getBoundingClientRect().top + scrollY - 300)")
    phone.screenshot(ODDS_SHOTS / "odds-too-large-390x844.png")
    assert phone.console_errors == [], phone.console_errors


def _python_refusal(bid, name, **inputs) -> str:
    """What Python's engine says refusing these inputs on the page's budget (page_odds)."""
    from rules_dsl.library.loader import load
    from rules_dsl.odds import TooLarge, distribution
    from rules_dsl.odds.budget import Budget
    from rules_dsl.odds.page_inputs import PAGE_BUDGET, SITE_STEPS
    with pytest.raises(TooLarge) as e:
        distribution(load(bid).mechanics[name], _max_evals=PAGE_BUDGET, _budget=Budget(seconds=None, steps=SITE_STEPS), **inputs)
    return str(e.value)


def _pct(frac: str) -> str:
    from rules_dsl.language.values import percent_text
    n, d = frac.split("/")
    return percent_text(Fraction(int(n), int(d)))


def test_the_exact_odds_fold_draws_each_table_as_a_chart(site, http_site, phone):
    """A dice mechanic's "Exact odds" fold: once opened, a chart (with its caption, the inputs in
    words) for every set of inputs its table holds, drawn from the same rows."""
    phone.console_errors.clear()
    box = _open_form(phone, http_site, site, "dust-tactics", "skill_berserk_hits")
    held = json.loads(phone.js(f"{box}.dataset.odds"))
    fold = f"{box}.parentElement.querySelector('details.rules-fold-odds')"
    phone.js(f"{fold}.open = true")
    phone.wait_for(f"{fold}.querySelectorAll('figure.rules-odds-chart svg').length === {len(held)}")
    charts = phone.js(f"""Array.from({fold}.querySelectorAll('figure.rules-odds-chart')).map(f => ({{
        caption: f.querySelector('figcaption').textContent, desc: f.querySelector('desc').textContent}}))""")
    assert [c["caption"] for c in charts] == [b["label"] for b in held]
    assert [c["desc"] for c in charts] == ["; ".join(f"{r[0]}: {r[1]}" for r in b["rows"]) for b in held]
    assert phone.js("document.documentElement.scrollWidth") <= PHONE[0]
    phone.js(f"{fold}.scrollIntoView({{block: 'start', behavior: 'instant'}})")
    ODDS_SHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(ODDS_SHOTS / "odds-fold-charts-390x844.png")
    assert phone.console_errors == [], phone.console_errors


def test_search_page_lists_the_rules_whose_text_matches_first(http_site, browser):
    """Sphinx's index leaves a rule's text to the rule search (fulltext.py): the search
    page lists the rules whose text holds the words, from the rule search, above its own
    list of pages.  "receiving tokens" is a phrase of the text of Dust's Suppression, in no
    rule title ("receiving" alone is a stem, "receiv", that many rules' "receives" share)."""
    browser.console_errors.clear()
    browser.goto(f"{http_site}/search.html?q=receiving+tokens")
    browser.wait_for("(() => { const p = document.getElementById('rules-search-page');"
                     " return p && p.getAttribute('data-state') === 'done'; })()", timeout=60)
    rules = browser.js("""Array.from(document.querySelectorAll('#rules-search-page li a')).map(a => ({
        hash: decodeURIComponent(a.hash), where: a.querySelector('.rules-search-where').textContent,
        marked: Array.from(a.querySelectorAll('.rules-search-snippet mark')).map(m => m.textContent.toLowerCase())}))""")
    assert rules and rules[0]["hash"] == "#dust-tactics:suppression", rules[:5]
    assert rules[0]["where"].startswith("Dust Tactics") and "receiving" in rules[0]["marked"], rules[0]
    # the rules come before the pages Sphinx finds
    assert browser.js("!!(document.getElementById('rules-search-page').compareDocumentPosition("
                      "document.getElementById('search-results')) & Node.DOCUMENT_POSITION_FOLLOWING)")
    summary = browser.js("document.querySelector('.rules-search-page-summary').textContent")
    assert summary.startswith(f"{len(rules)} rule"), summary
    browser.wait_for("(() => { const s = document.querySelector('p.search-summary');"
                     " return s && /finished/i.test(s.textContent); })()", timeout=60)
    assert browser.console_errors == []


# ------------------------------------------------------------------ names in words (issue 26)
REAL_BOOKS = ("dust-tactics", "null-strike", "void", "warhammer-40k", "xenotactics")
IDENTIFIER = r"\b[A-Za-z0-9]+_[A-Za-z0-9_]+\b"
WORDS_SHOTS = Path(os.environ.get("RULES_DSL_WORDS_SHOTS") or SHOTS)


def _build_every_form(browser):
    """Bring each form's place near the screen in turn (forms are built lazily, as a reader
    scrolls), then wait until every one is built; returns how many there are."""
    return browser.js("""(async () => {
        const boxes = Array.from(document.querySelectorAll('div.rules-try'));
        const frame = () => new Promise(r => requestAnimationFrame(r));
        for (const b of boxes) {      // each one seen by the page's observers before the next (a condition, not a sleep)
            b.scrollIntoView({block: 'center', behavior: 'instant'});
            const t0 = performance.now();
            while (!b.hasAttribute('data-pending') && !b.hasAttribute('data-ready') && performance.now() - t0 < 10000) await frame();
        }
        return boxes.length;
    })()""", timeout=180)


def test_a_rule_page_on_a_phone_speaks_in_words_and_its_working_fits(site, http_site, phone):
    """390x844, Dust's Suppression: use a form (a select in words, the answer as the mechanic says
    it), then open "show working": a worked solution that wraps, notes included, with no sideways
    scroll in its box nor on the page; no identifier in what the player reads."""
    page = _page_of(site, RULE)
    phone.console_errors.clear()
    phone.send("Page.navigate", {"url": "about:blank"})
    phone.wait_for("location.href === 'about:blank'")
    phone.goto(f"{http_site}/{page.relative_to(site).as_posix()}#{RULE}")
    phone.wait_for("document.readyState === 'complete'")
    WORDS_SHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(WORDS_SHOTS / "words-rule-390x844.png")
    box = "document.querySelector('div.rules-try[data-book=\"dust-tactics\"][data-mechanic=\"suppression_after_attack\"]')"
    phone.js(f"{box}.scrollIntoView({{block: 'center', behavior: 'instant'}})")
    phone.wait_for(f"{box}.hasAttribute('data-ready')", timeout=20)
    choices = phone.js(f"Array.from({box}.querySelector('select[name=state]').options).map(o => o.textContent)")
    assert choices == ["clear", "Under Fire", "Suppressed"], choices
    phone.js(f"""(() => {{ const s = {box}.querySelector('select[name=state]'); s.value = '1';
                 s.dispatchEvent(new Event('change')); }})()""")
    _fill(phone, box, {"hits": 1})
    shown = phone.js(f"{box}.querySelector('output.rules-try-result').textContent")
    assert shown == "The unit is Suppressed", shown
    labels = phone.js(f"Array.from({box}.querySelectorAll('label')).map(l => l.textContent)")
    assert labels[0] == "Tokens before" and not any(re.search(IDENTIFIER, x) for x in labels), labels
    assert phone.js("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    phone.js(f"{box}.closest('dl').scrollIntoView({{block: 'start', behavior: 'instant'}})")
    phone.screenshot(WORDS_SHOTS / "words-form-390x844.png")
    # the worked examples: a sentence above each `>>>`; "show working" opens a worked solution
    phone.js(f"document.getElementById({json.dumps(RULE)}).querySelector('details.rules-fold-examples > summary').click()")
    sentence = phone.js(f"document.getElementById({json.dumps(RULE)}).querySelector('p.rules-example-sentence').textContent")
    assert sentence.endswith(".") and not re.search(IDENTIFIER, sentence), sentence
    working = f"document.getElementById({json.dumps(RULE)}).querySelector('details.rules-working')"
    phone.js(f"{working}.querySelector('summary').click(); {working}.scrollIntoView({{block: 'start', behavior: 'instant'}})")
    phone.wait_for(f"{working}.open && {working}.querySelector('div.rules-working-text').offsetHeight > 0")
    facts = phone.js(f"""(() => {{
        const w = {working}.querySelector('div.rules-working-text');
        const notes = Array.from(w.querySelectorAll('p.rules-work-note'));
        return {{box: [w.scrollWidth, w.clientWidth], page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
                 lines: Array.from(w.querySelectorAll('p.rules-work')).map(p => [p.className, p.getBoundingClientRect().left, p.innerText]),
                 notes: notes.map(p => [p.scrollWidth, p.clientWidth, p.innerText]),
                 wraps: notes.some(p => p.getBoundingClientRect().height > 1.6 * parseFloat(getComputedStyle(p).lineHeight))}};
    }})()""")
    assert facts["box"][0] <= facts["box"][1], facts["box"]          # no sideways scroll in the working
    assert facts["page"][0] <= facts["page"][1], facts["page"]       # nor on the page
    assert facts["notes"] and facts["wraps"], "the notes are in the working, wrapped"
    assert all(sw <= cw for sw, cw, _ in facts["notes"]), facts["notes"]
    lefts = {c.split()[-1]: left for c, left, _ in facts["lines"]}
    assert lefts.get("rules-depth-1", 0) > lefts.get("rules-depth-0", 0), lefts      # indented by depth
    text = " ".join(t for _, _, t in facts["lines"])
    assert not re.findall(IDENTIFIER, text), re.findall(IDENTIFIER, text)
    phone.screenshot(WORDS_SHOTS / "words-working-390x844.png")
    assert phone.console_errors == [], phone.console_errors


@pytest.mark.parametrize("bid", REAL_BOOKS)
def test_forms_odds_and_working_of_every_mechanic_are_in_words(site, http_site, phone, bid):
    """Every page of a real book, at 390x844: every mechanic's form built (labels, choices,
    hints, its answer), every exact-odds table and every "show working" opened; none of their
    visible text holds an identifier (a word with an underscore), and nothing scrolls sideways."""
    pages = sorted(p for p in (site / "docs" / "books" / bid).rglob("*.html")
                   if 'class="rules-try"' in p.read_text(encoding="utf-8")
                   or 'class="rules-working"' in p.read_text(encoding="utf-8"))
    assert pages, f"no page of {bid} has a form or a working"
    found, counts = {}, {"forms": 0, "odds": 0, "working": 0}
    phone.console_errors.clear()
    for page in pages:
        phone.send("Page.navigate", {"url": "about:blank"})
        phone.wait_for("location.href === 'about:blank'")
        phone.goto(f"{http_site}/{page.relative_to(site).as_posix()}")
        phone.wait_for("document.readyState === 'complete'")
        forms = _build_every_form(phone)
        phone.wait_for("Array.from(document.querySelectorAll('div.rules-try')).every(b => b.hasAttribute('data-ready'))",
                       timeout=60)
        texts = phone.js("""(() => {
            document.querySelectorAll('details.rules-fold-odds, details.rules-fold-examples, details.rules-working')
                .forEach(d => { d.open = true; });
            const seen = (sel) => Array.from(document.querySelectorAll(sel)).filter(e => e.offsetParent !== null);
            const wide = seen('div.rules-working-text').filter(w => w.scrollWidth > w.clientWidth + 1).length;
            return {forms: seen('form.rules-try-form').map(f => f.innerText),
                    odds: seen('div.table-wrapper.rules-odds').map(t => t.innerText),
                    working: seen('div.rules-working-text').map(w => w.innerText),
                    wide, page: document.documentElement.scrollWidth - document.documentElement.clientWidth};
        })()""", timeout=60)
        assert len(texts["forms"]) == forms, (page.name, len(texts["forms"]), forms)
        assert texts["wide"] == 0 and texts["page"] <= 0, (page.name, texts["wide"], texts["page"])
        for kind in ("forms", "odds", "working"):
            counts[kind] += len(texts[kind])
            for t in texts[kind]:
                for ident in re.findall(IDENTIFIER, t):
                    found.setdefault((kind, ident), page.name)
    assert counts["forms"] == len(load_book(bid).mechanics), counts      # every mechanic's form, once
    assert counts["working"] > 0, counts
    assert not found, sorted(found.items())[:20]
    assert phone.console_errors == [], phone.console_errors[:5]


def load_book(bid):
    from rules_dsl.library.loader import load
    return load(bid)


# ------------------------------------------------------------------ the front door
REAL_BOOKS = ["dust-tactics", "null-strike", "void", "warhammer-40k", "xenotactics"]


@pytest.mark.parametrize("bid", REAL_BOOKS)
def test_quick_reference_opens_each_real_books_page(site, phone, bid):
    """On a phone, each real book's page opens with its quick reference (dice, turn sequence,
    key tables, most looked-up rules), above the list of its sections, with nothing to
    scroll sideways."""
    phone.console_errors.clear()
    _open(phone, site / "docs" / "books" / bid / "index.html")
    q = phone.js("""(() => {
        const q = document.getElementById('quick-reference');
        if (!q) return null;
        const toc = document.querySelector('.rules-book-toc');
        return {dice: (q.querySelector('.rules-quickref-dice') || {}).textContent || '',
                steps: q.querySelectorAll('ol.rules-quickref-steps > li').length,
                turn: Array.from(q.querySelectorAll('p.rubric')).some(p => p.textContent === 'Turn sequence'),
                tables: q.querySelectorAll('table.rules-table').length,
                rules: Array.from(q.querySelectorAll('dl.rules-quickref-rules > dt a.rules-ref')).map(a => a.textContent),
                meanings: Array.from(q.querySelectorAll('dl.rules-quickref-rules > dd')).filter(d => d.textContent.trim()).length,
                top: q.getBoundingClientRect().top + scrollY, before: !toc || !!(q.compareDocumentPosition(toc) & 4),
                width: document.documentElement.scrollWidth}; })()""")
    assert q, f"no quick reference on {bid}'s page"
    assert q["dice"].startswith("Dice:") and q["turn"], q
    assert q["steps"] >= 5 or bid in ("void", "warhammer-40k"), q       # those two sources have no turn sequence
    assert q["tables"] >= 1 and len(q["rules"]) >= 6 and q["meanings"] >= 6, q
    assert q["before"] and q["top"] < 2 * PHONE[1], q                     # first thing after the introduction
    assert q["width"] <= PHONE[0], f"{bid}'s page scrolls sideways: {q['width']}"
    phone.js("document.getElementById('quick-reference').scrollIntoView({block: 'start', behavior: 'instant'})")
    _in_view(phone, "document.getElementById('quick-reference')")
    _shot(phone, site, f"quickref-{bid}-390x844.png")
    assert phone.console_errors == []


def _overflowing(browser) -> list:
    """Elements of the article that reach past the right edge of the screen (none may:
    nothing to scroll sideways), outside boxes that scroll on their own."""
    return browser.js("""(() => {
        const w = document.documentElement.clientWidth, out = [];
        for (const e of document.querySelectorAll('article *')) {
            if (e.closest('.table-wrapper, pre, .highlight')) continue;
            const r = e.getBoundingClientRect();
            if (r.width && r.right > w + 1) out.push(e.tagName + '.' + e.className + ' ' + Math.round(r.right));
        }
        return out.slice(0, 5); })()""")


def test_glossary_and_cross_index_read_on_a_phone(site, phone):
    """390 px: the glossary's and the cross index's fronts list terms with a one-line meaning
    (not bare letters), and neither they nor any cross-index page (nor the glossary's) scroll
    sideways."""
    phone.console_errors.clear()
    for rel in ("docs/glossary.html", "docs/cross-index.html"):
        _open(phone, site / rel)
        front = phone.js("""({letters: document.querySelectorAll('.rules-front-letter').length,
            terms: Array.from(document.querySelectorAll('dl.rules-front-terms > dt')).length,
            meant: Array.from(document.querySelectorAll('dl.rules-front-terms > dd'))
                .filter(d => d.textContent.trim().length > 12).length,
            bare: document.querySelectorAll('article .toctree-wrapper li').length,
            width: document.documentElement.scrollWidth})""")
        assert front["letters"] >= 10 and front["terms"] >= 3 * front["letters"], front
        assert front["meant"] == front["terms"] and front["bare"] == 0, front
        assert front["width"] <= PHONE[0] and not _overflowing(phone), (rel, _overflowing(phone))
        _shot(phone, site, f"{Path(rel).stem}-front-390x844.png")
    pages = sorted((site / "docs" / "books" / "_cross-index").glob("*.html")) + \
        sorted((site / "docs" / "books" / "_glossary").glob("*.html"))
    assert len(pages) > 20
    for p in pages:
        _open(phone, p)
        assert phone.js("document.querySelectorAll('article table').length") == 0 or "_glossary" in str(p), p
        wide = phone.js("document.documentElement.scrollWidth")
        assert wide <= PHONE[0] and not _overflowing(phone), (p.name, wide, _overflowing(phone))
    _open(phone, site / "docs" / "books" / "_cross-index" / "s.html")
    _shot(phone, site, "cross-index-s-390x844.png")
    assert phone.console_errors == []


def test_print_stylesheet_prints_the_quick_reference_alone(site, browser):
    """Printed (print media), a book's page is its quick reference: no navigation, search,
    buttons or list of sections; a rule page prints without its forms.  Chromium's print to
    PDF gives a short document."""
    page = site / "docs" / "books" / "dust-tactics" / "index.html"
    _open(browser, page)
    hidden = """(sel) => Array.from(document.querySelectorAll(sel)).every(e => getComputedStyle(e).display === 'none')"""
    chrome = [".sidebar-drawer", ".toc-drawer", ".mobile-header", "#rules-search", ".related-pages", "button.rules-print",
              ".rules-book-toc", "details.rules-fold-designers", ".skip-to-content"]
    assert not browser.js(f"({hidden})('#rules-search')")          # on screen, the search box shows
    browser.send("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        shown = browser.js(f"""(() => {{ const hidden = {hidden};
            return {{hidden: {json.dumps(chrome)}.filter(s => document.querySelector(s) && !hidden(s)),
                    quickref: getComputedStyle(document.getElementById('quick-reference')).display,
                    title: getComputedStyle(document.querySelector('article h1')).display}}; }})()""")
        assert shown["hidden"] == [] and shown["quickref"] != "none" and shown["title"] != "none", shown
        _open(browser, _page_of(site, RULE))
        assert browser.js(f"({hidden})('.sidebar-drawer') && ({hidden})('#rules-search') && ({hidden})('div.rules-try')"
                          f" && ({hidden})('button.rules-copylink')")
    finally:
        browser.send("Emulation.setEmulatedMedia", {"media": ""})
    _open(browser, page)
    pdf = base64.b64decode(browser.send("Page.printToPDF", {"printBackground": False}, timeout=60)["data"])
    assert pdf.startswith(b"%PDF")
    pages = pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")
    assert 1 <= pages <= 3, pages
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "quickref-dust-tactics.pdf").write_bytes(pdf)


def test_the_book_links_preview_says_what_it_opens(site, phone):
    """The "Part of <book>" link on a section page previews the game (what it is) and offers
    to open the book's page, not "this rule"."""
    page = site / "docs" / "books" / "dust-tactics" / "the-dice.html"
    phone.console_errors.clear()
    _open(phone, page)
    link = phone.js("""(() => { const a = document.querySelector('p.rules-meta a.rules-ref-book');
        a.scrollIntoView({block: 'center', behavior: 'instant'}); const r = a.getBoundingClientRect();
        return {x: r.left + Math.min(r.width / 2, 20), y: r.top + r.height / 2, text: a.textContent}; })()""")
    assert link["text"] == "Dust Tactics"
    phone.tap(link["x"], link["y"])
    tip = phone.wait_for("""(() => { const t = document.getElementById('rules-preview');
        if (!t || t.hidden) return null; const body = t.querySelector('.rules-preview-body');
        const go = t.querySelector('a.rules-preview-go');
        return !body.hidden && {body: body.textContent, go: go.textContent, href: go.href}; })()""", timeout=5)
    assert tip["go"].startswith("Open the book"), tip
    assert "Dust dice" in tip["body"] and "quick reference" in tip["body"], tip
    assert tip["href"].endswith("/dust-tactics/index.html#dust-tactics"), tip
    _shot(phone, site, "preview-book-link-390x844.png")
    assert phone.console_errors == []


@pytest.mark.skipif(not AXE.is_file(), reason="axe-core is not vendored (tests/vendor/axe-core/)")
def test_front_door_pages_pass_axe(site, browser):
    """axe-core on the glossary's and cross index's fronts and pages, and on a book's page, at
    390 px and on a desktop (the home page: test_no_serious_accessibility_violations)."""
    pages = [site / "docs" / "glossary.html", site / "docs" / "cross-index.html",
             site / "docs" / "books" / "_cross-index" / "s.html", site / "docs" / "books" / "_glossary" / "a.html",
             site / "docs" / "books" / "xenotactics" / "index.html", site / "docs" / "developers.html"]
    found = {}
    for size, mobile in ((PHONE, True), ((1280, 900), False)):
        browser.viewport(*size, mobile=mobile)
        for p in pages:
            _open(browser, p)
            bad = _axe(browser)
            if bad:
                found[f"{p.relative_to(site)} at {size[0]}px"] = bad
    browser.viewport(1280, 900)
    assert not found, json.dumps(found, indent=1)
