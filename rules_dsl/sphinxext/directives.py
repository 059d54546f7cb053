"""Directives that render rulebooks straight from their `.rules` sources.

    ```{rules:book} null-strike                 (a book's page: header, counts, sections)
    ```{rules:section} null-strike:the-basics   (a section with its rules, sub-sections;
    :part: 2                                     with `:part:`, that page of the section
    ```                                          as split for a phone: see pagesplit.py)
    ```{rules:rule} null-strike:opposed-stat-rolls
    ```{rules:books}                            (the books with their counts)
    ```{rules:games}                            (the game picker: a card per book)
    ```{rules:glossary}                         (every keyword of every book)
    ```{rules:crossindex}                       (terms shared by several books)
    ```{rules:changes} xenotactics+errata       (a layered book's "what changed" page)
    ```{rules:cli} lookup                       (`rules lookup --help`, from the parser)

`rules:section` and `rules:rule` accept `:no-index:` to show a rule a second
time without registering it (its anchor stays on the book's own page).
"""
from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from . import crossbook, frontdoor, render_front, render_pages, render_rules, rendering, site as site_mod

logger = logging.getLogger(__name__)


class _RulesDirective(SphinxDirective):
    has_content = False
    final_argument_whitespace = False

    def site(self):
        return site_mod.current(self.env, self.config)

    def ctx(self, no_index=False):
        return rendering.Ctx(self.env, self.state.document, self.site(), no_index=no_index,
                             location=self.get_location())

    def depend(self, ctx_or_units):
        units = ctx_or_units.units if isinstance(ctx_or_units, rendering.Ctx) else ctx_or_units
        self.site().depend(self.env, units)

    def warn(self, msg):
        logger.warning(msg, location=self.get_location(), type="rules", subtype="directive")
        return []

    def split(self, arg, what):
        if ":" not in arg:
            return None, None
        book, ident = arg.split(":", 1)
        return book.strip(), ident.strip()


class BookDirective(_RulesDirective):
    required_arguments = 1

    def run(self):
        site = self.site()
        bid = self.arguments[0].strip()
        model = site.models.get(bid)
        if model is None:
            return self.warn(f"unknown or broken book {bid!r} (books: {', '.join(sorted(site.models)) or 'none'})")
        self.env.ref_context["rules:book"] = bid
        frontdoor.mark(self.env)
        ctx = self.ctx()
        docs = site.book_docs(bid)
        node = render_pages.book_node(ctx, model, docs)
        for kind, value in model["items"]:
            if kind == "rule":
                ctx.units.add(("rule", bid, value))
        self.depend(ctx)
        return [node]


class SectionDirective(_RulesDirective):
    """A whole section; with `:part: N` (the generated pages), the N-th page of the
    section as the site's page plan cuts it (pagesplit.py): its share of the rules,
    its sub-sections as links to their own pages, and links to the other parts."""
    required_arguments = 1
    option_spec = {"no-index": directives.flag, "part": directives.positive_int}

    def run(self):
        site = self.site()
        bid, sid = self.split(self.arguments[0], "section")
        model = site.models.get(bid) if bid else None
        if model is None or sid not in model["sections"]:
            return self.warn(f"unknown section {self.arguments[0]!r} (write book-id:section-id)")
        self.env.ref_context["rules:book"] = bid
        ctx = self.ctx(no_index="no-index" in self.options)
        page = family = None
        if "part" in self.options:
            page = site.page_of(bid, sid, self.options["part"])
            if page is None:
                return self.warn(f"section {bid}:{sid} has no page {self.options['part']} (its pages: "
                                 f"{len(site.family(bid, sid))})")
            family = site.family(bid, sid)
        node = render_pages.section_node(ctx, model, model["sections"][sid], page=page, family=family,
                                         docs_of=lambda sub: [d for d, _ in site.family(bid, sub)])
        self.depend(ctx)
        return [node]


class RuleDirective(_RulesDirective):
    required_arguments = 1
    option_spec = {"no-index": directives.flag}

    def run(self):
        site = self.site()
        bid, rid = self.split(self.arguments[0], "rule")
        model = site.models.get(bid) if bid else None
        if model is None or rid not in model["rules"]:
            return self.warn(f"unknown rule {self.arguments[0]!r} (write book-id:rule-id)")
        ctx = self.ctx(no_index="no-index" in self.options)
        node = render_rules.rule_node(ctx, model["rules"][rid])
        self.depend(ctx)
        return [node]


class ChangesDirective(_RulesDirective):
    """A layered book's "what changed" page (changes.py): what its layer changed in its
    base, from `rules diff`."""
    required_arguments = 1

    def run(self):
        from . import changes
        site = self.site()
        bid = self.arguments[0].strip()
        model = site.models.get(bid)
        if model is None or not model.get("layers"):
            return self.warn(f"{bid!r} is not a layered book of this site (a layer on a book: base+name)")
        self.env.ref_context["rules:book"] = bid
        ctx = self.ctx()
        out = changes.changes_nodes(ctx, model)
        self.depend(ctx)
        return out


class BooksDirective(_RulesDirective):
    required_arguments = 0

    def run(self):
        site = self.site()
        ctx = self.ctx()
        ctx.units.add(("global", "books", ""))
        out = render_pages.books_table(ctx, site.books)
        self.depend(ctx)
        return out


class GamesDirective(_RulesDirective):
    """The home page's game picker: a card per book (what it is, its dice, where to start);
    with more books than `rules_games_per_page`, the list of the picker's pages instead,
    and with an argument (a page's slug, on the generated pages) that page's cards."""
    required_arguments = 0
    optional_arguments = 1

    def run(self):
        site = self.site()
        frontdoor.mark(self.env)
        pages = site.games_pages
        if not self.arguments:
            self.depend({("global", "games", "")})
            if not pages:
                return render_front.games_nodes(site.books)
            docs = [site.docname_games(slug) for slug in pages]
            return render_front.games_index(list(pages.items()), site.docname_games) + [
                render_pages.hidden_toc(self.env.docname, docs)]
        slug = self.arguments[0].strip()
        if slug not in pages:
            return self.warn(f"no games page {slug!r}")
        self.depend({("global", "games", slug), ("global", "games-pages", "")})     # its cards, the jump bar
        bar = render_pages.jump_bar(crossbook.jump_targets(list(pages)), site.docname_games, slug, index=False)
        return [bar] + render_front.games_nodes(pages[slug])


class GlossaryDirective(_RulesDirective):
    """Without an argument: the glossary's front (a few keywords of each letter with their
    meaning, and a link to the letter's pages: render_front.py); with one (a page's slug,
    on the generated pages): the A–Z jump bar and that page."""
    required_arguments = 0
    optional_arguments = 1

    def run(self):
        site = self.site()
        frontdoor.mark(self.env)
        bar = render_pages.jump_bar(crossbook.jump_targets(site.page_slugs[0]), site.docname_glossary,
                                    self.arguments[0].strip() if self.arguments else None)
        self.depend({("global", "glossary", "")})
        if not self.arguments:
            self.depend({("global", "glossary-front", "")})
            docs = [site.docname_glossary(s) for s in site.page_slugs[0]]
            return render_front.glossary_front_nodes(site.glossary_front, site.docname_glossary) + [
                render_pages.hidden_toc(self.env.docname, docs)]
        slug = self.arguments[0].strip()
        if slug not in site.page_slugs[0]:
            return self.warn(f"no glossary page {slug!r}")
        ctx = self.ctx()
        ctx.units.add(("global", "glossary", slug))
        out = [bar] + render_pages.glossary_nodes(ctx, site.glossary_pages[slug], self.state.document, self.lineno)
        self.depend(ctx)
        return out


class CrossIndexDirective(_RulesDirective):
    """Like `GlossaryDirective`, for the cross index."""
    required_arguments = 0
    optional_arguments = 1

    def run(self):
        site = self.site()
        frontdoor.mark(self.env)
        self.depend({("global", "xindex", "")})
        ctx = self.ctx()
        if not site.page_slugs[1]:
            out = render_pages.crossindex_nodes(ctx, [], ctx.book_ids())
            self.depend(ctx)
            return out
        bar = render_pages.jump_bar(crossbook.jump_targets(site.page_slugs[1]), site.docname_xindex,
                                    self.arguments[0].strip() if self.arguments else None)
        if not self.arguments:
            self.depend({("global", "xindex-front", "")})
            docs = [site.docname_xindex(s) for s in site.page_slugs[1]]
            return render_front.xindex_front_nodes(site.xindex_front, site.docname_xindex) + [
                render_pages.hidden_toc(self.env.docname, docs)]
        slug = self.arguments[0].strip()
        if slug not in site.page_slugs[1]:
            return self.warn(f"no cross-index page {slug!r}")
        ctx.units.add(("global", "xindex", slug))
        out = [bar] + render_pages.crossindex_nodes(ctx, site.xindex_pages[slug], ctx.book_ids())
        self.depend(ctx)
        return out


class CliDirective(SphinxDirective):
    """The help text of `rules` or of one subcommand, taken from the real parser."""
    required_arguments = 0
    optional_arguments = 1

    def run(self):
        import argparse

        from .. import cli
        self.env.note_dependency(Path(cli.__file__).resolve())
        parser = cli.build_parser()

        def fmt(prog):
            return argparse.HelpFormatter(prog, width=88, max_help_position=30)
        parser.formatter_class = fmt
        subs = {}
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                subs = action.choices
        if self.arguments:
            name = self.arguments[0]
            if name not in subs:
                logger.warning("unknown `rules` subcommand %r (known: %s)", name, ", ".join(subs),
                               location=self.get_location(), type="rules", subtype="directive")
                return []
            sub = subs[name]
            sub.formatter_class = fmt
            text = sub.format_help()
        else:
            text = parser.format_help()
        text = text.rstrip()
        block = nodes.literal_block(text, text, language="text", classes=["rules-cli-help"])
        return [block]
