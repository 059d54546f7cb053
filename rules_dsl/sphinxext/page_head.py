"""Every page's head and accessibility: a meta description, and toctree captions as headings.

`page_head` (html-page-context, after the theme's) gives every page a meta description
(`page_description`: the home page says what the site is, a book's page opens its
introduction, a section page names its rules) and makes each toctree caption a level-2
heading (Sphinx leaves out the `aria-level` ARIA requires).

Split from site.py (issue 32): what a written page says of itself, apart from the
build-wide state (site.py), which it reads through `site.current()`.
"""
from __future__ import annotations

from . import site as site_state

__all__ = ["page_head", "page_description", "caption_level", "HOME_DESCRIPTION", "DESCRIPTION_CHARS"]

HOME_DESCRIPTION = ("Tabletop wargame rulebooks restated as checked code: find any rule and read its text, "
                    "with its mechanics, exact dice odds and worked examples, on a phone at the table.")
DESCRIPTION_CHARS = 160


def _short(text: str, most: int = DESCRIPTION_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= most else text[:most - 1].rsplit(" ", 1)[0] + "…"


def page_description(site, pagename: str, root_doc: str, doctree=None, title: str = "") -> str:
    """A page's meta description: the home page says what the site is; a book's page
    names the book and opens its introduction; a section page names the section, its
    book and its first rules; any other page, its first paragraph."""
    if pagename == root_doc:
        return HOME_DESCRIPTION
    if site is not None and pagename.startswith(site.books_rel + "/"):
        parts = pagename[len(site.books_rel) + 1:].split("/")
        if parts[0] == "_glossary":
            return _short(f"{title} — keywords of every rulebook, each with the rules that carry it.")
        if parts[0] == "_cross-index":
            return _short(f"{title} — terms that several rulebooks share, with each book's rules for them.")
        m = site.models.get(parts[0])
        path = "/".join(parts[1:])
        if m is not None and path == "index":
            from ..language.prose import parse_prose, plain_text
            front = m.get("front") or {}
            intro = (plain_text(parse_prose(front["about"])) if front.get("about_given") else
                     next((s for s in (plain_text(parse_prose(t), first_only=True) for t in m["prose"]) if s), ""))
            return _short(f"{m['title']}: quick reference and rules, section by section. {intro}")
        page = site.plans[parts[0]]["pages"].get(path) if m is not None else None
        if page is not None:
            sec = m["sections"][page["section"]]
            items = sec["items"] if page["items"] is None else page["items"]
            rules = [m["rules"][v]["title"] for k, v in items if k == "rule"]
            subs = [m["sections"][v]["title"] for k, v in items if k == "section"]
            name = sec["title"] + (f" (part {page['part']} of {page['parts']})" if page["parts"] > 1 else "")
            return _short(f"{name}, from the rules of {m['title']}: " + ", ".join(rules + subs) + ".")
    if doctree is not None:
        from docutils import nodes
        for p in doctree.findall(nodes.paragraph):
            text = p.astext().strip()
            if len(text) > 40:
                return _short(text)
    return _short(f"{title} · Rulebooks as code") if title else HOME_DESCRIPTION


def caption_level(html: str) -> str:
    """Sphinx writes a toctree's caption as `<p class="caption" role="heading">` with no
    `aria-level`, which ARIA requires of a heading (Lighthouse and axe flag it)."""
    return html.replace('<p class="caption" role="heading">', '<p class="caption" role="heading" aria-level="2">')


def page_head(app, pagename, templatename, context, doctree):
    """html-page-context (after the theme's): a meta description on every page, and
    every toctree caption (in the page and in the theme's sidebar) a level-2 heading."""
    from html import escape
    from html import unescape
    title = unescape(str(context.get("title") or ""))
    desc = page_description(site_state.current(), pagename, app.config.root_doc, doctree, title)
    tag = f'<meta name="description" content="{escape(desc, quote=True)}">\n'
    context["metatags"] = (context.get("metatags") or "") + tag
    for key in ("body", "furo_navigation_tree", "toctree_html"):
        if isinstance(context.get(key), str):
            context[key] = caption_level(context[key])
