/* Rule pages at the table: previews, folds and copy-link buttons.
 *
 * 1. Previews.  Every resolved reference to a rule (a.rules-ref) carries the
 *    target's title and book in its title attribute, written by the Sphinx
 *    extension.  This script moves that into a styled tooltip shown on hover or
 *    focus, with the target's first paragraph, which it loads from the book's
 *    previews file (_static/rules-previews/<book>.js, a script calling
 *    RulesPreviews: see sphinxext/previews.py) the first time a link into that
 *    book is used; until it is in, or if it cannot load, the tooltip shows the
 *    title alone.  On a touch screen the first tap shows it (with a link to the
 *    rule) and a second tap on the reference, or the link, follows it.
 * 2. Folds (details.rules-fold): those marked data-open-wide open on a wide
 *    screen; any fold holding the URL's target opens.
 * 3. A copy-link button on every rule (its stable book:rule-id anchor), with a
 *    select-the-text fallback where the clipboard is refused; a quick reference's
 *    "Print" button.  Both are in the page's HTML, hidden (their place kept) until
 *    this script has wired them up (data-ready).
 * 4. Boxes that scroll (code, tables) join the tab order, for keyboard users.
 * 5. Mechanic forms ("Try it", div.rules-try): their script (rules_try.mjs, a module,
 *    with the book's JavaScript) loads only when a mechanics fold opens, an "Exact odds"
 *    fold opens (its tables' charts) or a form's place scrolls into view, so readers who
 *    never use them download nothing more; the odds engine loads only when a form needs it.
 * It only ever uses textContent, never HTML, and loads only files of the site.
 */
(function () {
  "use strict";
  /* Opened from disk (file:), the search page cannot fetch result pages for their
     snippets (the browser forbids it, and logs errors): show results without them. */
  if (location.protocol === "file:" && typeof DOCUMENTATION_OPTIONS !== "undefined") {
    DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
  }
  var SELF = document.currentScript ? document.currentScript.src : null;   /* .../_static/rules_dsl.js */
  var tip = null;
  var current = null;
  var lastPointer = "mouse";   /* pointerType of the last pointerdown: "touch" taps preview first */

  function ensureTip() {
    if (tip) return tip;
    tip = document.createElement("div");
    tip.className = "rules-preview";
    tip.setAttribute("role", "tooltip");
    tip.id = "rules-preview";
    tip.hidden = true;
    var head = document.createElement("div");
    head.className = "rules-preview-title";
    var body = document.createElement("div");
    body.className = "rules-preview-body";
    var go = document.createElement("a");
    go.className = "rules-preview-go";
    go.textContent = "Open this rule \u2192";
    go.hidden = true;
    tip.appendChild(head);
    tip.appendChild(body);
    tip.appendChild(go);
    document.body.appendChild(tip);
    return tip;
  }

  /* ---------------------------------------------------------------- 1b. preview text */
  /* book id -> {anchor: text} once its file is in; "loading" or "failed" before. */
  var previews = Object.create(null);
  var BOOK_ID = /^[a-z0-9][a-z0-9_-]*$/i;   /* a file name under rules-previews/, nothing else */

  window.RulesPreviews = function (data) {
    if (!data || data.v !== 1 || typeof data.book !== "string" || !data.previews) return;
    previews[data.book] = data.previews;
    if (current && anchorOf(current).book === data.book) show(current, currentTouch);
  };

  function anchorOf(link) {
    var id = "";
    try { id = decodeURIComponent(link.hash.slice(1)); } catch (err) { id = ""; }
    return {id: id, book: id.split(":")[0]};
  }

  /* The text of a link's preview: a string, or null while (or if) its book's file is not in. */
  function previewText(link) {
    var a = anchorOf(link);
    if (!a.id || !BOOK_ID.test(a.book) || !SELF) return null;
    var got = previews[a.book];
    if (got === undefined) {
      previews[a.book] = "loading";
      var s = document.createElement("script");
      s.src = new URL("rules-previews/" + a.book + ".js", SELF).href;
      s.onerror = function () { previews[a.book] = "failed"; };
      document.head.appendChild(s);
      return null;
    }
    if (typeof got !== "object" || !Object.prototype.hasOwnProperty.call(got, a.id)) return null;
    return String(got[a.id]);
  }

  var currentTouch = false;

  /* What following a link opens, by the kind of its target (the domain's class rules-ref-KIND). */
  var OPENS = {book: "Open the book: quick reference and contents", section: "Open this section",
               mechanic: "Open this mechanic", table: "Open this table", rule: "Open this rule"};
  function openLabel(link) {
    for (var kind in OPENS) {
      if (link.classList.contains("rules-ref-" + kind)) return OPENS[kind] + " \u2192";
    }
    return "Open \u2192";
  }

  function show(link, touch) {
    var text = link.getAttribute("data-rules-preview");
    if (!text) return;
    var t = ensureTip();
    var nl = text.indexOf("\u2003");  /* a page from an older build: heading EM SPACE preview */
    var more = nl < 0 ? previewText(link) : text.slice(nl + 1);
    var body = t.children[1], go = t.children[2];
    t.firstChild.textContent = nl < 0 ? text : text.slice(0, nl);
    body.textContent = more || "";
    body.hidden = !more;
    go.hidden = !touch;
    go.textContent = openLabel(link);
    currentTouch = !!touch;
    go.href = link.href;
    t.classList.toggle("rules-preview-touch", !!touch);
    t.hidden = false;
    var r = link.getBoundingClientRect();
    var width = Math.min(420, document.documentElement.clientWidth - 16);
    t.style.maxWidth = width + "px";
    var left = Math.max(8, Math.min(r.left + window.scrollX, window.scrollX + document.documentElement.clientWidth - width - 8));
    t.style.left = left + "px";
    t.style.top = (r.bottom + window.scrollY + 6) + "px";
    link.setAttribute("aria-describedby", "rules-preview");
    current = link;
  }

  function hide(link) {
    if (tip && (!link || link === current)) {
      tip.hidden = true;
      current = null;
    }
    if (link) link.removeAttribute("aria-describedby");
  }

  function init() {
    var links = document.querySelectorAll("a.rules-ref[title]");
    for (var i = 0; i < links.length; i++) {
      var a = links[i];
      a.setAttribute("data-rules-preview", a.getAttribute("title"));
      a.removeAttribute("title");  /* no double tooltip */
      a.addEventListener("mouseenter", function () { if (lastPointer === "mouse") show(this); });
      a.addEventListener("focus", function () { if (lastPointer === "mouse") show(this); });
      a.addEventListener("mouseleave", function () { if (lastPointer === "mouse") hide(this); });
      a.addEventListener("blur", function () { if (lastPointer === "mouse") hide(this); });
      a.addEventListener("click", tapPreview);
    }
    document.addEventListener("pointerdown", function (e) {
      lastPointer = e.pointerType || "mouse";
      /* a tap outside the preview and its link closes it */
      if (tip && !tip.hidden && !tip.contains(e.target) && !(current && current.contains(e.target))) hide(null);
    }, true);
    document.addEventListener("keydown", function (e) {
      lastPointer = "mouse";
      if (e.key === "Escape") hide(null);
    });
    initFolds();
    initCopyLinks();
    initScrollables();
    initForms();
  }

  /* ---------------------------------------------------------------- 5. mechanic forms */
  /* Browsers refuse module scripts from file: pages (and log an error): forms need http(s). */
  function initForms() {
    var boxes = document.querySelectorAll("div.rules-try[data-book][data-mechanic]");
    if (!boxes.length || !SELF || location.protocol === "file:") return;
    var loaded = false, observer = null;
    function load() {
      if (loaded) return;
      loaded = true;
      if (observer) observer.disconnect();
      document.removeEventListener("toggle", onToggle, true);
      var s = document.createElement("script");
      s.type = "module";
      s.src = new URL("rules_try.mjs", SELF).href;
      document.head.appendChild(s);
    }
    function onToggle(e) {
      var d = e.target;
      /* a mechanics fold, or an "Exact odds" fold (its charts are drawn by the same script) */
      if (d && d.open && d.querySelector && (d.querySelector("div.rules-try") ||
          (d.classList && d.classList.contains("rules-fold-odds")))) load();
    }
    document.addEventListener("toggle", onToggle, true);
    if ("IntersectionObserver" in window) {
      observer = new IntersectionObserver(function (entries) {
        for (var i = 0; i < entries.length; i++) if (entries[i].isIntersecting) { load(); return; }
      }, {rootMargin: "200px"});
      for (var i = 0; i < boxes.length; i++) observer.observe(boxes[i]);
    }
  }

  /* ---------------------------------------------------------------- 4. scrolling boxes */
  /* A box that scrolls (a wide code block, a table in its wrapper) must be reachable
     with the keyboard, to scroll it with the arrow keys: it joins the tab order while
     it overflows (checked again when a fold opens or the window is resized). */
  function markScrollables() {
    var all = document.querySelectorAll("div.highlight > pre, pre.literal-block, div.table-wrapper"), boxes = [];
    /* only boxes on show: measuring one in a closed fold makes the browser lay that fold out
       (a rule page has a hundred boxes, most of them folded: that was half a second on a
       phone); a fold is measured when it opens ("toggle").  Every size is read first, then
       every change made: a read after a change lays the page out again. */
    for (var j = 0; j < all.length; j++) if (!all[j].closest("details:not([open])")) boxes.push(all[j]);
    var overs = [];
    for (var k = 0; k < boxes.length; k++) {
      var x = boxes[k];
      overs.push(x.scrollWidth > x.clientWidth + 1 || x.scrollHeight > x.clientHeight + 1);
    }
    for (var i = 0; i < boxes.length; i++) {
      var b = boxes[i];
      var over = overs[i];
      if (over && !b.hasAttribute("tabindex")) {
        b.setAttribute("tabindex", "0");
        b.setAttribute("data-rules-scroll", "");
      } else if (!over && b.hasAttribute("data-rules-scroll")) {
        b.removeAttribute("tabindex");
        b.removeAttribute("data-rules-scroll");
      }
    }
  }

  function initScrollables() {
    markScrollables();
    document.addEventListener("toggle", markScrollables, true);
    var pending = null;
    window.addEventListener("resize", function () {
      clearTimeout(pending);
      pending = setTimeout(markScrollables, 150);
    });
  }

  /* A first tap on a reference (touch or pen) shows its preview instead of
     following it; a second tap on the same reference follows it. */
  function tapPreview(e) {
    if (lastPointer === "mouse") return;
    if (current === this && tip && !tip.hidden) return;   /* second tap: follow */
    e.preventDefault();
    show(this, true);
  }

  /* ---------------------------------------------------------------- 2. folds */
  var WIDE = "(min-width: 67em)";   /* furo's breakpoint for the table of contents */

  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    for (var d = el; d; d = d.parentElement) {
      if (d.tagName === "DETAILS") d.open = true;
    }
    if (el && el.tagName === "DETAILS") el.open = true;
  }

  function initFolds() {
    if (window.matchMedia && window.matchMedia(WIDE).matches) {
      var wide = document.querySelectorAll("details.rules-fold[data-open-wide]");
      for (var i = 0; i < wide.length; i++) wide[i].open = true;
    }
    openTarget();
    window.addEventListener("hashchange", openTarget);
  }

  /* ---------------------------------------------------------------- 3. copy link */
  var status = null;

  function announce(text) {
    if (!status) {
      status = document.createElement("div");
      status.className = "rules-sr-only";
      status.setAttribute("role", "status");
      status.setAttribute("aria-live", "polite");
      document.body.appendChild(status);
    }
    status.textContent = "";
    setTimeout(function () { status.textContent = text; }, 20);
  }

  function ruleUrl(id) {
    return location.href.split("#")[0] + "#" + id;
  }

  /* No clipboard (refused, or not offered): show the link selected, ready to copy. */
  function fallback(button, url) {
    var box = button.parentNode.querySelector("input.rules-copylink-text");
    if (!box) {
      box = document.createElement("input");
      box.type = "text";
      box.readOnly = true;
      box.className = "rules-copylink-text";
      box.setAttribute("aria-label", "Link to this rule: select and copy it");
      button.parentNode.insertBefore(box, button.nextSibling);
    }
    box.value = url;
    box.hidden = false;
    box.focus();
    box.select();
    var copied = false;
    try { copied = document.execCommand("copy"); } catch (err) { copied = false; }
    announce(copied ? "Link copied" : "Link selected: copy it");
    button.setAttribute("data-state", copied ? "copied" : "selected");
  }

  function copyLink(button) {
    var url = ruleUrl(button.getAttribute("data-anchor"));
    var done = function () {
      button.setAttribute("data-state", "copied");
      announce("Link copied");
      setTimeout(function () { button.removeAttribute("data-state"); }, 2000);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(url).then(done, function () { fallback(button, url); });
    } else {
      fallback(button, url);
    }
  }

  function initCopyLinks() {
    var rules = document.querySelectorAll("section.rules-rule[id]");
    for (var i = 0; i < rules.length; i++) {
      var sec = rules[i];
      var meta = null;
      for (var c = sec.firstElementChild; c; c = c.nextElementSibling) {
        if (c.classList.contains("rules-meta")) { meta = c; break; }
      }
      if (!meta) continue;
      /* the build writes the button (firstpaint.py: the page does not move when this runs);
         a page from an older build gets one here */
      var b = meta.querySelector("button.rules-copylink");
      if (!b) {
        var h = sec.querySelector("h1, h2, h3, h4, h5, h6");
        var title = h ? h.textContent.replace(/\u00b6|#$/g, "").trim() : sec.id;
        b = document.createElement("button");
        b.type = "button";
        b.className = "rules-copylink";
        b.setAttribute("data-anchor", sec.id);
        b.setAttribute("aria-label", "Copy link to the rule " + title + " (" + sec.id + ")");
        b.textContent = "Copy link";
        meta.insertBefore(b, meta.firstChild);
      }
      b.addEventListener("click", function () { copyLink(this); });
      b.setAttribute("data-ready", "");        /* it works: show it (an attribute of its own, not a
                                                  class on <html>, which would restyle the whole page) */
    }
    var prints = document.querySelectorAll("button.rules-print");     /* a quick reference's */
    for (var j = 0; j < prints.length; j++) {
      prints[j].addEventListener("click", function () { window.print(); });
      prints[j].setAttribute("data-ready", "");
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
