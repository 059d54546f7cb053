"""What a page shows before its scripts run, so that it does not move when they do.

The rule search box (top of every page's main column) and each rule's copy-link button
were made by the scripts once the page had loaded (`rules_search_ui.js`, `rules_dsl.js`):
the page was painted, then pushed down and re-wrapped under the reader's eyes (Lighthouse,
mobile: cumulative layout shift 0.20 to 0.30 on Dust's Suppression page).  Both are now in
the HTML the build writes, and the scripts only wire them up:

* the search box is put at the top of the page's body (`page_context`, html-page-context):
  a form to the search page (so it searches even when its script is missing), whose book
  filter the script fills;
* the copy-link button (`copy_link`, a node) opens each rule's reference line; until the
  script has wired it up (`data-ready`) it keeps its place but is not shown.

Pages without a body (the general index's letters, the search page) still get the box
from the script.
"""
from __future__ import annotations

from html import escape

from docutils import nodes


class copy_link(nodes.Inline, nodes.Element):
    """A rule's copy-link button: `<button class="rules-copylink" data-anchor=...>` in HTML
    (the anchor and the title escaped), nothing in other formats."""


def visit_copy_link_html(self, node):
    anchor, title = node["anchor"], node["title"]
    label = escape(f"Copy link to the rule {title} ({anchor})", quote=True)
    self.body.append(f'<button type="button" class="rules-copylink" data-anchor="{escape(anchor, quote=True)}" '
                     f'aria-label="{label}">Copy link</button>')
    raise nodes.SkipNode


def visit_copy_link_other(self, node):
    """Any node of this module in a format other than HTML: nothing."""
    raise nodes.SkipNode


class print_button(nodes.General, nodes.Element):
    """A "Print" button (a book's quick reference): `<button class="rules-print">` in HTML,
    wired by rules_dsl.js to the browser's print (rules_print.css makes the printout);
    nothing in other formats."""


def visit_print_button_html(self, node):
    label = escape(node["label"], quote=True)
    self.body.append(f'<button type="button" class="rules-print" aria-label="{label}">Print</button>\n')
    raise nodes.SkipNode


def search_box(search_href: str) -> str:
    """The rule search box as `rules_search_ui.js` expects to find it (ids, classes, ARIA)."""
    h = escape(search_href, quote=True)
    return ('<div id="rules-search" class="rules-search" role="search" data-state="done">'
            f'<form class="rules-search-bar" action="{h}" method="get">'
            '<input type="search" name="q" id="rules-search-input" class="rules-search-input" '
            'placeholder="Find a rule: suppression, cover save…" autocomplete="off" autocapitalize="off" '
            'spellcheck="false" enterkeyhint="go" role="combobox" aria-expanded="false" aria-autocomplete="list" '
            'aria-controls="rules-search-results" aria-label="Find a rule">'
            '<select class="rules-search-book" aria-label="Only this book"><option value="">All books</option></select>'
            '</form>'
            '<div class="rules-search-panel" hidden>'
            '<p class="rules-search-note" aria-live="polite" hidden></p>'
            '<ul id="rules-search-results" class="rules-search-results" role="listbox" aria-label="Rules found"></ul>'
            f'<p class="rules-search-foot"><span class="rules-search-status" aria-live="polite"></span>'
            f'<a href="{h}">search all text</a></p></div></div>\n')


def page_context(app, pagename, templatename, context, doctree):
    """html-page-context: the search box opens the body of every page that has one."""
    body = context.get("body")
    if templatename != "page.html" or not isinstance(body, str) or "pathto" not in context:
        return
    context["body"] = search_box(context["pathto"]("search")) + body
