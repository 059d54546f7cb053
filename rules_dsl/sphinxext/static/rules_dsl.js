/* Hover previews for rule cross-references, built at build time.
 *
 * Every resolved reference to a rule (a.rules-ref) carries the target's title
 * and first paragraph in its title attribute, written by the Sphinx extension.
 * This script moves that text into a styled tooltip shown on hover or focus.
 * It only ever uses textContent, never HTML, and needs no network.
 */
(function () {
  "use strict";
  /* Opened from disk (file:), the search page cannot fetch result pages for their
     snippets (the browser forbids it, and logs errors): show results without them. */
  if (location.protocol === "file:" && typeof DOCUMENTATION_OPTIONS !== "undefined") {
    DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
  }
  var tip = null;
  var current = null;

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
    tip.appendChild(head);
    tip.appendChild(body);
    document.body.appendChild(tip);
    return tip;
  }

  function show(link) {
    var text = link.getAttribute("data-rules-preview");
    if (!text) return;
    var t = ensureTip();
    var nl = text.indexOf("\u2003");  /* heading EM SPACE preview */
    t.firstChild.textContent = nl < 0 ? text : text.slice(0, nl);
    t.lastChild.textContent = nl < 0 ? "" : text.slice(nl + 1);
    t.lastChild.hidden = nl < 0;
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
      a.addEventListener("mouseenter", function () { show(this); });
      a.addEventListener("focus", function () { show(this); });
      a.addEventListener("mouseleave", function () { hide(this); });
      a.addEventListener("blur", function () { hide(this); });
    }
    document.addEventListener("keydown", function (e) { if (e.key === "Escape") hide(null); });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
