/* The search box every page opens with: rules as you type, from static files alone.
 *
 * The box is at the top of the page's main column (on a phone it is on screen
 * without opening the menu), written there by the build (firstpaint.py: made here only on
 * pages without a body, so no page moves when this script runs), and replaces the theme's
 * sidebar box; the theme's search
 * page stays, for full text ("search all text").  The ranking is rules_search.js (the
 * port of `rules lookup`); it, the Snowball stemmer it uses and the names file
 * (_static/rules-search-index.js, written at build time: titles and aliases, enough for
 * exact and typo matches) are loaded on first use, as scripts, so a page opened from disk
 * works too.  Each keystroke is answered from the names at once; the books' full text
 * comes in per-book shards (_static/rules-search/<book>.js, `RulesSearchShard(...)`),
 * fetched only when the names cannot settle the list and only for the books that could
 * still place a rule in it (`RulesSearch` `missing` says what to fetch: the filters and
 * vocabulary, _static/rules-search/_filters.js, fetched in the background once the box
 * is used; the terms files of the query's words, _static/rules-search/terms/<c>.js; then
 * the books): at once for a query of several words or on Enter, else after a short typing
 * pause (`PAUSE`).  Once they are in, the list is the one the whole index gives.  The
 * box's `data-state` says where it is: "names", "loading" or "done".  Results are links
 * to each rule's anchor, with the book, the section and a snippet, the query's words
 * marked by stem (stop words never are); when nothing is found the box says so and
 * offers the nearest titles, and when a word is in no rule it says which.  A book
 * filter; arrows move, Enter opens, Escape closes.  Text from the books is only ever set
 * as textContent.
 *
 * On Sphinx's own search page ("search all text"), the rules whose text matches are
 * listed first (`mountSearchPage`, up to `PAGE_LIMIT`): Sphinx's index there holds
 * every page, but of a rule only its title and index entries (fulltext.py).
 *
 * Also here: a fix for Sphinx's own search page, which looks each result's anchor up
 * with querySelector('#' + anchor): our anchors are `book:rule`, and a colon must be
 * escaped in a selector, else the lookup throws and the result shows no snippet; and a
 * rule's id typed there lists that rule first.
 */
(function () {
  "use strict";

  /* -------------------------------------------- Sphinx's search page: escape anchors */
  /* global Search */
  if (typeof Search !== "undefined" && Search && typeof Search.htmlToText === "function" &&
      window.CSS && CSS.escape && !Search._rulesEscaped) {
    var htmlToText = Search.htmlToText;
    Search.htmlToText = function (html, anchor) {
      if (anchor && anchor.charAt(0) === "#") anchor = "#" + CSS.escape(anchor.slice(1));
      return htmlToText(html, anchor);
    };
    /* a rule's id typed in (`dust-tactics:suppression`): Sphinx splits it into words and
       finds every object of that book and page; the object named exactly so goes first */
    var performSearch = Search._performSearch;
    if (typeof performSearch === "function") {
      Search._performSearch = function (query) {
        var results = performSearch.apply(this, arguments), q = String(query).trim().toLowerCase();
        if (q.indexOf(":") > 0) {
          var i = results.findIndex(function (r) { return String(r[1]).toLowerCase() === q && /^#/.test(r[2]); });
          if (i >= 0) results.push(results.splice(i, 1)[0]);    // shown from the end: first
        }
        return results;
      };
    }
    Search._rulesEscaped = true;
  }

  var me = document.currentScript;
  var STATIC = me && me.src ? me.src.replace(/[^/]*$/, "") : null;
  var ROOT = document.documentElement.getAttribute("data-content_root");
  if (!STATIC || ROOT === null) return;
  var LIMIT = 8;
  var PAGE_LIMIT = 40;  // rules listed on the search page
  var PAUSE = 250;      // ms without typing before a one-word query fetches full text

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text) e.textContent = text;
    return e;
  }

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var s = el("script", {src: src});
      s.onload = resolve;
      s.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(s);
    });
  }

  var enginePromise = null;
  function engine() {
    if (!enginePromise) {
      var data = new Promise(function (resolve) { window.RulesSearchData = resolve; });
      enginePromise = (window.BaseStemmer ? Promise.resolve() : loadScript(STATIC + "snowball-base-stemmer.js"))
        .then(function () { return window.PorterStemmer ? null : loadScript(STATIC + "snowball-porter-stemmer.js"); })
        .then(function () { return window.RulesSearch ? null : loadScript(STATIC + "rules_search.js"); })
        .then(function () { return loadScript(STATIC + "rules-search-index.js"); })
        .then(function () { return data; })
        .then(function (d) { return window.RulesSearch.create(d); });
    }
    return enginePromise;
  }

  /* A book's full-text shard, added to the engine (once; a failed load may be retried). */
  var shardData = {}, shardPromises = {};
  window.RulesSearchShard = function (d) { if (d && d.book) shardData[d.book] = d; };
  window.RulesSearchTerms = function (d) { if (d && d.terms) shardData["terms/" + d.terms] = d; };
  window.RulesSearchFilters = function (d) { if (d && d.filters) shardData._filters = d; };
  function loadShard(eng, id) {
    if (!shardPromises[id]) {
      var file = id.split("/").map(encodeURIComponent).join("/");
      shardPromises[id] = loadScript(STATIC + "rules-search/" + file + ".js").then(function () {
        var d = shardData[id];
        delete shardData[id];
        if (!d) throw new Error("rules search: no shard for " + id);
        eng.addShard(d);
      });
      shardPromises[id].catch(function () { delete shardPromises[id]; });
    }
    return shardPromises[id];
  }

  /* text with the query's words marked (<mark>), as DOM nodes: never HTML.  A word is
     marked when its stem is one of the query's (`RulesSearch` `marks`): "running" marks
     "runs", and "can" marks nothing, least of all inside "cannot". */
  function marked(eng, parent, text, query) {
    var last = 0;
    eng.marks(text, query).forEach(function (m) {
      parent.appendChild(document.createTextNode(text.slice(last, m[0])));
      parent.appendChild(el("mark", {}, text.slice(m[0], m[1])));
      last = m[1];
    });
    parent.appendChild(document.createTextNode(text.slice(last)));
  }

  function href(r) { return ROOT + r.url + "#" + r.book + ":" + r.rule; }

  /* a rule found: its title, where it is (book › section) and a snippet, as one link */
  function resultLink(eng, r, query) {
    var a = el("a", {href: href(r)});
    var title = el("span", {"class": "rules-search-title"});
    marked(eng, title, r.title, query);
    a.appendChild(title);
    a.appendChild(el("span", {"class": "rules-search-where"},
                     r.bookTitle + (r.section && r.section !== r.bookTitle ? " › " + r.section : "")));
    var snip = el("span", {"class": "rules-search-snippet"});
    if (r.text !== null) marked(eng, snip, eng.snippet(r.text, query), query);
    a.appendChild(snip);
    return a;
  }

  /* The shards a list still needs: those `missing` names, and those of the rules listed
     (for their snippets). */
  function needed(eng, results, query, opts) {
    var need = eng.missing(query, opts);
    results.forEach(function (r) { if (r.text === null && need.indexOf(r.book) < 0) need.push(r.book); });
    return need;
  }

  /* The list every part of the index gives for `query`: shards fetched until none is needed. */
  function finalResults(eng, query, opts) {
    var rounds = 0;
    function step() {
      var results = eng.search(query, opts), need = needed(eng, results, query, opts);
      if (!need.length || ++rounds > 4) return results;
      return Promise.all(need.map(function (id) { return loadShard(eng, id); })).then(step);
    }
    return Promise.resolve().then(step);
  }

  /* Sphinx's search page ("search all text"): its index holds every page, but of a rule
     only the title, index entries and reference line (fulltext.py), so the rules whose
     text matches come first, from the rule search, above Sphinx's own list of pages. */
  function mountSearchPage() {
    var holder = document.getElementById("search-results");
    var query = new URLSearchParams(window.location.search).get("q") || "";
    if (!holder || !query.trim() || document.getElementById("rules-search-page")) return;
    var part = el("section", {id: "rules-search-page", "class": "rules-search-page", "data-state": "loading",
                              "aria-labelledby": "rules-search-page-title"});
    part.appendChild(el("h2", {id: "rules-search-page-title"}, "Rules"));
    var summary = el("p", {"class": "rules-search-page-summary", "aria-live": "polite"},
                     "Searching the rules' text…");
    var list = el("ul", {"class": "rules-search-results rules-search-page-results"});
    part.appendChild(summary);
    part.appendChild(list);
    holder.parentNode.insertBefore(part, holder);
    var eng = null;
    engine().then(function (e) {
      eng = e;
      return finalResults(eng, query, {limit: PAGE_LIMIT});
    }).then(function (results) {
      results.forEach(function (r) {
        var li = el("li", {"class": "rules-search-result"});
        li.appendChild(resultLink(eng, r, query));
        list.appendChild(li);
      });
      summary.textContent = results.length
        ? (results.length >= PAGE_LIMIT ? "The first " : "") + results.length + " rule" +
          (results.length > 1 ? "s" : "") + " matching your search. Pages follow."
        : "No rule matches your search. Pages follow.";
      part.setAttribute("data-state", "done");
    }, function (err) {
      summary.textContent = "The rules index could not be loaded.";
      part.setAttribute("data-state", "done");
      if (window.console) console.warn(err.message);
    });
  }

  function mount() {
    var main = document.querySelector("article[role=main]") || document.querySelector("[role=main]");
    var box = document.getElementById("rules-search");
    if (!main || (box && box.hasAttribute("data-wired"))) return;
    var input, select, panel, list, note, status, all;
    if (box) {
      /* written into the page by the build (firstpaint.py), so the page does not move
         when this script runs: wire it up */
      input = box.querySelector("input.rules-search-input");
      select = box.querySelector("select.rules-search-book");
      panel = box.querySelector(".rules-search-panel");
      list = box.querySelector("ul.rules-search-results");
      note = box.querySelector("p.rules-search-note");
      status = box.querySelector(".rules-search-status");
      all = box.querySelector(".rules-search-foot a");
      if (!note) {      /* a page from an older build */
        note = el("p", {"class": "rules-search-note", "aria-live": "polite", hidden: ""});
        panel.insertBefore(note, list);
      }
      var form = box.querySelector("form");
      if (form) form.addEventListener("submit", function (e) { e.preventDefault(); });
    } else {
      box = el("div", {id: "rules-search", "class": "rules-search", role: "search", "data-state": "done"});
      var bar = el("div", {"class": "rules-search-bar"});
      input = el("input", {type: "search", id: "rules-search-input", "class": "rules-search-input",
                           placeholder: "Find a rule: suppression, cover save…", autocomplete: "off",
                           autocapitalize: "off", spellcheck: "false", enterkeyhint: "go",
                           role: "combobox", "aria-expanded": "false", "aria-autocomplete": "list",
                           "aria-controls": "rules-search-results", "aria-label": "Find a rule"});
      select = el("select", {"class": "rules-search-book", "aria-label": "Only this book"});
      select.appendChild(el("option", {value: ""}, "All books"));
      panel = el("div", {"class": "rules-search-panel", hidden: ""});
      list = el("ul", {id: "rules-search-results", "class": "rules-search-results", role: "listbox",
                       "aria-label": "Rules found"});
      note = el("p", {"class": "rules-search-note", "aria-live": "polite", hidden: ""});
      var foot = el("p", {"class": "rules-search-foot"});
      all = el("a", {href: ROOT + "search.html"}, "search all text");
      status = el("span", {"class": "rules-search-status", "aria-live": "polite"});
      foot.appendChild(status);
      foot.appendChild(all);
      panel.appendChild(note);
      panel.appendChild(list);
      panel.appendChild(foot);
      bar.appendChild(input);
      bar.appendChild(select);
      box.appendChild(bar);
      box.appendChild(panel);
      main.insertBefore(box, main.firstChild);
    }
    box.setAttribute("data-wired", "");

    var results = [], active = -1, booksFilled = false, seq = 0;

    function open(yes) {
      panel.hidden = !yes;
      input.setAttribute("aria-expanded", yes ? "true" : "false");
    }
    function setActive(i) {
      var items = list.children;
      if (active >= 0 && items[active]) items[active].setAttribute("aria-selected", "false");
      active = i;
      if (active >= 0 && items[active]) {
        items[active].setAttribute("aria-selected", "true");
        input.setAttribute("aria-activedescendant", items[active].id);
        items[active].scrollIntoView({block: "nearest"});
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }
    function go(i) {
      var r = results[i];
      if (!r) return;
      open(false);
      window.location.href = href(r);
    }
    var shownQuery = null;
    /* The list for `query`; once it is `final`, what the box should say besides: that no
       rule matches, with the nearest titles, or which words no rule holds. */
    function render(eng, query, final) {
      shownQuery = query;
      list.textContent = "";
      note.textContent = "";
      note.hidden = true;
      active = -1;
      input.removeAttribute("aria-activedescendant");
      all.setAttribute("href", ROOT + "search.html?q=" + encodeURIComponent(query));
      if (final && !results.length) {
        note.appendChild(document.createTextNode("No rule matches \u201c" + query.trim() + "\u201d."));
        var near = eng.nearTitles(query, 5, select.value || null);
        if (near.length) {
          note.appendChild(document.createTextNode(" Nearest titles: "));
          near.forEach(function (r, i) {
            if (i) note.appendChild(document.createTextNode(" \u00b7 "));
            note.appendChild(el("a", {href: href(r), "class": "rules-search-near"}, r.title));
          });
        }
        note.hidden = false;
      } else if (final) {
        var w = eng.words(query);
        if (w && w.unknown.length) {
          note.textContent = "No rule mentions " + w.unknown.map(function (x) { return "\u201c" + x + "\u201d"; })
            .join(", ") + ".";
          note.hidden = false;
        }
      }
      results.forEach(function (r, i) {
        var li = el("li", {id: "rules-search-opt-" + i, role: "option", "aria-selected": "false",
                           "class": "rules-search-result"});
        var a = resultLink(eng, r, query);
        a.setAttribute("tabindex", "-1");
        li.appendChild(a);
        li.addEventListener("mousedown", function (e) { e.preventDefault(); });   // keep the focus
        li.addEventListener("click", function (e) { e.preventDefault(); go(i); });
        list.appendChild(li);
      });
      status.textContent = results.length ? results.length + " rule" + (results.length > 1 ? "s" : "") + " · "
                                          : "No rule found · ";
      open(true);
    }
    function fillBooks(eng) {
      if (booksFilled) return;
      eng.books.forEach(function (b) { select.appendChild(el("option", {value: b.id}, b.title)); });
      booksFilled = true;
    }
    /* Answer `input.value`: from what is loaded at once, then (at once when `now` or the
       query has several words, else after PAUSE) with the shards it still needs: those
       `missing` names, and those of the rules shown (for their snippets).  Resolves when
       the list is final, false if a newer query took over. */
    var timer = null;
    function run(now) {
      var query = input.value, mine = ++seq;
      clearTimeout(timer);
      if (!query.trim()) { results = []; open(false); box.setAttribute("data-state", "done"); return Promise.resolve(true); }
      box.setAttribute("data-state", "names");
      return engine().then(function (eng) {
        fillBooks(eng);
        loadShard(eng, "_filters").catch(function () {});   // fetched while the user types
        function step() {
          if (mine !== seq) return false;
          var opts = {book: select.value || null, limit: LIMIT};
          var picked = active >= 0 && results[active] && shownQuery === query
            ? results[active].book + ":" + results[active].rule : null;
          results = eng.search(query, opts);
          var need = needed(eng, results, query, opts);
          render(eng, query, !need.length);
          if (picked) {     // a rule picked with the arrows stays picked when the list fills in
            var again = results.findIndex(function (r) { return r.book + ":" + r.rule === picked; });
            if (again >= 0) setActive(again);
          }
          box.setAttribute("data-state", need.length ? "names" : "done");
          if (!need.length) return true;
          return new Promise(function (resolve) {
            function fetchThem() {
              if (mine !== seq) { resolve(false); return; }
              box.setAttribute("data-state", "loading");
              status.textContent += "searching the books' text… · ";
              Promise.all(need.map(function (id) { return loadShard(eng, id); })).then(function () {
                resolve(step());
              }, function (err) {
                if (mine === seq) {
                  status.textContent = "The books' text could not be loaded · ";
                  box.setAttribute("data-state", "done");
                }
                if (window.console) console.warn(err.message);
                resolve(mine === seq);
              });
            }
            if (now || window.RulesSearch.norm(query).indexOf(" ") >= 0) fetchThem();
            else timer = setTimeout(fetchThem, PAUSE);
          });
        }
        return step();
      }, function (err) {
        status.textContent = "The rules index could not be loaded · ";
        open(true);
        if (window.console) console.warn(err.message);
        return false;
      });
    }

    input.addEventListener("focus", function () {
      engine().then(fillBooks, function () {});
      if (input.value.trim() && results.length) open(true);
    });
    input.addEventListener("input", function () { run(false); });
    select.addEventListener("change", function () { run(false); input.focus(); });
    input.addEventListener("keydown", function (e) {
      if (e.key === "ArrowDown") {
        e.preventDefault();
        if (panel.hidden && input.value.trim()) { run(false); return; }
        if (results.length) setActive(Math.min(active + 1, results.length - 1));
      } else if (e.key === "ArrowUp") {
        e.preventDefault();
        if (results.length) setActive(Math.max(active - 1, 0));
      } else if (e.key === "Enter") {
        if (!input.value.trim()) return;
        e.preventDefault();
        // a rule picked with the arrows opens as shown; else the first of the final list
        if (active >= 0) go(active);
        else run(true).then(function (final) { if (final) go(0); });
      } else if (e.key === "Escape") {
        if (!panel.hidden) open(false);
        else input.value = "";
      }
    });
    document.addEventListener("click", function (e) {
      if (!box.contains(e.target)) open(false);
    });
    document.addEventListener("keydown", function (e) {
      var t = e.target, typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
      if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        input.focus();
      }
    });
  }

  function start() { mount(); mountSearchPage(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
