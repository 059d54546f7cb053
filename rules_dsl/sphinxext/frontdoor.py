"""The front door's pages: the stylesheets they need, where they need them.

The game picker, a book's quick reference and the glossary's and cross index's pages
(render_front.py) are laid out by `rules_front.css`, which only those pages load: a rule's
page (the one a player opens most, on a phone) does not wait for it.  The directives that
render them mark their page (`mark`, in the page's metadata, so the mark is made again
whenever the page is read again and goes with it); `page_context` adds the stylesheet to
marked pages.  `rules_print.css` is on every page, for print only (the browser does not
wait for it to show the page).
"""
from __future__ import annotations

FRONT_CSS = "rules_front.css"
_MARK = "rules-front"


def mark(env) -> None:
    """The page being read shows the front door (it gets `rules_front.css`)."""
    env.metadata[env.docname][_MARK] = True


def page_context(app, pagename, templatename, context, doctree):
    if app.env.metadata.get(pagename, {}).get(_MARK):
        app.add_css_file(FRONT_CSS)
