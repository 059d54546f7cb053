"""The real search box (rules_search_ui.js) in headless Chromium, over the split index.

No site build: a one-page site in a temporary folder holds the box's scripts, the
names file and the per-book shards written by `search_index.write_files` from the
books, and is opened from disk (file://, where a page may load scripts but not fetch
files).  Checked: a misspelled title is answered from the names file and fetches only
the shards of the books shown (for snippets); a rare word fetches only the books that
hold it; for the 32 player queries of tests/test_search_js.py, once the box says it is
done, its list is exactly the list the whole index gives (every shard loaded, run under
node), with no console errors; on a phone-sized page, the two questions of issue 28
("can I shoot after running", "how many actions do I get") list a rule that answers
them in the first three, with the words marked by stem ("can" marks nothing, not even
inside "cannot"); and a query nothing matches says so and offers the nearest titles.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_search_js import NODE, QUERIES, STATIC, _browser_data, run_js
import test_site_browser
from test_site_browser import CHROMIUM

from rules_dsl.sphinxext import search_index

pytestmark = [pytest.mark.site,
              pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
              pytest.mark.skipif(NODE is None, reason="node is not installed (the expected lists are computed under node)")]

PAGE = """<!DOCTYPE html>
<html lang="en" data-content_root="./"><head><meta charset="utf-8"><title>search box</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script defer src="_static/rules_search_ui.js"></script></head>
<body><article role="main"><h1>Rules</h1><p>A page with the rule search box.</p></article></body></html>
"""
#: the books whose full-text shard the page fetched (not the filters file nor terms files)
LOADED = ("Array.from(document.querySelectorAll('script[src*=\"rules-search/\"]'))"
          ".filter(s => !/\\/terms\\/|\\/_filters\\.js$/.test(s.src))"
          ".map(s => decodeURIComponent(s.src.split('/').pop()).replace(/\\.js$/, '')).sort()")
SHOWN = ("Array.from(document.querySelectorAll('#rules-search-results li a'))"
         ".map(a => decodeURIComponent(a.hash).slice(1))")


def data_pages(data):
    return data["pages"]


@pytest.fixture(scope="module")
def mini_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("search-ui")
    files = _browser_data()
    static = root / "_static"
    static.mkdir()
    for name in ("snowball-base-stemmer.js", "snowball-porter-stemmer.js", "rules_search.js", "rules_search_ui.js"):
        shutil.copy2(STATIC / name, static / name)
    search_index.write_files(static, *files)
    (root / "index.html").write_text(PAGE, encoding="utf-8")
    for url in data_pages(files[0]):
        (root / url).parent.mkdir(parents=True, exist_ok=True)
        (root / url).write_text("<!DOCTYPE html><title>rules</title><p>a rule page</p>", encoding="utf-8")
    expected = run_js(tmp_path_factory.mktemp("search-ui-node"), files, QUERIES, limit=8)
    return root, files, expected


#: one Chromium for this module, as the site's browser tests start it
browser = test_site_browser.browser


def _open(browser, root: Path):
    browser.goto((root / "index.html").as_uri(), ready="!!document.getElementById('rules-search-input')")
    browser.js("document.getElementById('rules-search-input').focus()")


def _done(browser):
    browser.wait_for("document.getElementById('rules-search').getAttribute('data-state') === 'done'"
                     " && !document.querySelector('.rules-search-panel').hidden", timeout=30)


def _ask(browser, query):
    browser.js(f"(() => {{ const i = document.getElementById('rules-search-input'); i.value = {json.dumps(query)};"
               " i.dispatchEvent(new Event('input')); })()")
    _done(browser)
    return browser.js(SHOWN)


def test_a_typo_is_answered_from_the_names_and_fetches_only_the_books_shown(mini_site, browser):
    root, (data, _), expected = mini_site
    browser.console_errors.clear()
    _open(browser, root)
    for ch in "supression":
        browser.send("Input.insertText", {"text": ch})
    first = browser.wait_for(f"(() => {{ const l = {SHOWN}; return l.length && l[0]; }})()")
    assert first == "dust-tactics:suppression"
    _done(browser)
    shown = browser.js(SHOWN)
    assert shown == [ref for ref, _ in expected["all"]["supression"]]
    loaded = browser.js(LOADED)
    assert loaded == sorted({ref.split(":")[0] for ref in shown}), loaded
    snippet = browser.js("document.querySelector('#rules-search-results li .rules-search-snippet').textContent")
    assert len(snippet) > 40, snippet
    assert browser.console_errors == []


def test_a_rare_word_fetches_only_the_books_that_hold_it(mini_site, browser):
    root, (data, _), expected = mini_site
    browser.console_errors.clear()
    _open(browser, root)
    shown = _ask(browser, "blutkreutz")
    assert shown == [ref for ref, _ in expected["all"]["blutkreutz"]]
    loaded = browser.js(LOADED)
    assert loaded and len(loaded) < len(data["books"]), loaded
    assert browser.console_errors == []


def test_the_box_ranks_as_the_whole_index_once_its_shards_are_in(mini_site, browser):
    root, (data, _), expected = mini_site
    browser.console_errors.clear()
    _open(browser, root)
    differ = []
    for q in QUERIES:
        shown = _ask(browser, q)
        want = [ref for ref, _ in expected["all"][q]]
        if shown != want:
            differ.append((q, shown[:3], want[:3]))
    assert not differ, f"the box's final list differs from the whole index's: {differ}"
    assert browser.console_errors == []


def test_enter_opens_the_first_rule_of_the_final_list(mini_site, browser):
    """Enter before the pause is over: the box fetches the shards at once and opens the
    first rule of the final list."""
    root, _, expected = mini_site
    _open(browser, root)
    browser.send("Input.insertText", {"text": "under fire token"})
    browser.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "code": "Enter",
                                            "windowsVirtualKeyCode": 13, "text": "\r"})
    want = expected["all"]["under fire token"][0][0]
    browser.wait_for(f"decodeURIComponent(location.hash) === '#{want}'", timeout=30)


#: the questions the box must answer on a phone (issue 28), with the rules that answer them
QUESTIONS = {q["q"]: q["answers"] for q in json.loads(
    (Path(__file__).with_name("search_questions.json")).read_text(encoding="utf-8"))["questions"]}


def test_a_phone_gets_an_answer_to_a_question_in_the_first_three(mini_site, browser, tmp_path):
    root, _, _ = mini_site
    browser.console_errors.clear()
    browser.send("Emulation.setDeviceMetricsOverride", test_site_browser.SEARCH_PHONE)
    try:
        _open(browser, root)
        for q in ("can I shoot after running", "how many actions do I get"):
            shown = _ask(browser, q)
            assert set(shown[:3]) & set(QUESTIONS[q]), (q, shown[:3])
            # the panel fits the phone's width; the words are marked by stem, never inside a word
            width = browser.js("document.querySelector('.rules-search-panel').getBoundingClientRect().right")
            assert width <= test_site_browser.SEARCH_PHONE["width"]
            marks = browser.js("Array.from(document.querySelectorAll('#rules-search-results mark')).map(m => m.textContent)")
            assert marks and not any(m.lower() in ("can", "i", "how", "do") for m in marks), marks
            text = browser.js("document.getElementById('rules-search-results').textContent")
            if "cannot" in text.lower():
                assert not any(m.lower() == "can" for m in marks)
        shot = browser.send("Page.captureScreenshot", {"format": "png"})
        import base64
        out = Path(os.environ.get("RULES_DSL_SHOTS", tmp_path))
        out.mkdir(parents=True, exist_ok=True)
        (out / "search-phone-question.png").write_bytes(base64.b64decode(shot["data"]))
        assert browser.console_errors == []
    finally:
        browser.send("Emulation.clearDeviceMetricsOverride")


def test_nothing_found_says_so_and_offers_the_nearest_titles(mini_site, browser):
    root, _, _ = mini_site
    browser.console_errors.clear()
    _open(browser, root)
    assert _ask(browser, "zzzzqqq") == []
    note = browser.js("document.querySelector('.rules-search-note').textContent")
    assert "No rule matches" in note
    _ask(browser, "supresion tokenz qqqzzz")
    note = browser.js("document.querySelector('.rules-search-note').textContent")
    assert "qqqzzz" in note and "No rule mentions" in note, note
    _ask(browser, "xqzzx shooot")
    near = browser.js("Array.from(document.querySelectorAll('.rules-search-note a')).map(a => a.textContent)")
    shown = browser.js(SHOWN)
    assert shown or near, "a typo of a title is answered or offered as a near title"
    assert browser.console_errors == []
