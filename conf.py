"""Sphinx configuration of the rulebook reference website.

Build (warnings are errors, nitpicky; worked examples run as part of it):

    python -m sphinx -W --keep-going -n -b html -d _build/doctrees -j auto . _build/html

(doctrees outside the published folder; `-j auto` reads pages on every core).

The source folder is the repository root, but only docs/ is read as pages
(README, notes and the rulebooks themselves are not pages).  The book pages
are generated at build time from rulebooks/ into docs/books/ by the
rules_dsl.sphinxext extension.  RULES_DSL_BOOKS selects another books folder.
"""
import rules_dsl
from rules_dsl.sphinxext import FAVICON

project = "Rulebooks as code"
author = "rules-dsl contributors"
copyright = "rules-dsl contributors; rules restated in our own words"
release = version = rules_dsl.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx_copybutton",
    "rules_dsl.sphinxext",
]

root_doc = "docs/index"
include_patterns = ["docs/**"]
exclude_patterns = [
    "_build", "**/_build", ".git", "**/.*", "**/__pycache__", "*.egg-info", "rulebooks", "notes",
    "tests", "bench", "rules_dsl", "build", "dist", "docs/_build",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
rules_books_dir = "docs/books"
# keep rulebook text as written (and skip a costly pass over every text node)
smartquotes = False

nitpicky = True
nitpick_ignore = [
    # internal classes that appear in public signatures
    ("py:class", "rules_dsl.compiler.CompiledBook"),
    ("py:class", "CompiledBook"),
    ("py:class", "rules_dsl.language.model.BookAST"),
    ("py:class", "BookAST"),
    ("py:class", "rules_dsl.language.nodes.Rule"),
    ("py:class", "n.Rule"),
    ("py:class", "rules_dsl.compiler.MechanicFn"),
    ("py:class", "rules_dsl.compiler.TableFn"),
    ("py:class", "Path"),
]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "undoc-members": False}

html_theme = "furo"
html_title = "Rulebooks as code"
html_favicon = str(FAVICON)      # an SVG of our own (rules_dsl/sphinxext/static/favicon.svg)
html_static_path = []
html_copy_source = False
html_split_index = True      # the general index: a page per letter, not one page for the whole library
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": True,
    "top_of_page_buttons": [],
}

# copy buttons on the guide's commands and Python, not on a rule's worked examples, formulas and
# workings: a rule page has a hundred such blocks, and the buttons cost its first load (Lighthouse's
# total blocking time) more than they give a player
copybutton_selector = "div:not(.rules-example):not(.rules-formula):not(.rules-working-text) > div.highlight pre"
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True

suppress_warnings = []
