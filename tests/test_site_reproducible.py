"""Two clean builds of the site are byte-identical (issue 17: rules with the same title
swapped places between builds when a sort's ties fell back to set order).

The books are small but made to tie: two books with rules of the same title and the
same keywords, and one book with two rules of the same title.  The two builds differ
in everything that must not matter: the hash seed (set and dict order of strings),
the project, books, cache and output folders, cold caches, serial against parallel
(-j 2) reading.  The page budget is set so small that every section is split into
parts (pagesplit.py), so the split is checked too.  Nothing is ignored: every file of the two output folders is compared
byte for byte (`.buildinfo` included; Sphinx writes no date or build id into the
pages, and SOURCE_DATE_EPOCH pins any date it would).
"""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from rules_dsl.sphinxext.testing import build, make_project

pytestmark = pytest.mark.site

DEMO = Path(__file__).with_name("demo_book.rules")


def twin(book_id: str, title: str) -> str:
    """A book whose rules tie with its twin's: same titles, keywords and aliases."""
    return textwrap.dedent(f'''\
        book {book_id} {{
            title "{title}"
            dice d6
        }}
        section combat "Combat" {{
            rule cover "Cover" {{
                keywords "cover", "hard cover", "saves"
                """A model behind something solid is in cover. It saves on 5+."""
                mechanic save(hits: 0..4) -> int {{
                    roll dice: hits of d6
                    return count(d for d in dice if d >= 5)
                }}
            }}
            rule cover-again "Cover" {{
                keywords "cover", "saves"
                """A second rule titled Cover. Ties must sort by id."""
            }}
            rule suppression "Suppression" {{
                aliases "Suppressed", "Pinned"
                keywords "pinned", "suppressed", "morale", "2d6"
                """A unit that is shot at may be suppressed. It then acts last."""
            }}
            rule pinned "Pinned" {{
                keywords "pinned", "morale"
                """Pinned units do not move. They may still shoot."""
            }}
        }}
    ''')


def _books(folder: Path) -> Path:
    folder.mkdir(parents=True)
    shutil.copy(DEMO, folder / "demo.rules")
    (folder / "alpha.rules").write_text(twin("alpha", "Alpha"), encoding="utf-8")
    (folder / "beta.rules").write_text(twin("beta", "Beta"), encoding="utf-8")
    return folder


def _site(root: Path, seed: str, monkeypatch, *extra) -> Path:
    monkeypatch.setenv("PYTHONHASHSEED", seed)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    project = make_project(root / "project")
    out = root / "out"
    proc = build(project, out, _books(root / "books"), root / "cache", *extra)
    assert proc.returncode == 0, f"build failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    assert "WARNING" not in proc.stderr, proc.stderr
    return out


def _files(out: Path) -> dict:
    return {p.relative_to(out).as_posix(): p for p in sorted(out.rglob("*")) if p.is_file()}


#: a page budget this small splits every section of these books into parts (pagesplit.py)
SMALL_PAGES = ("-D", "rules_page_budget=4000")


def test_two_clean_builds_are_byte_identical(tmp_path, monkeypatch):
    one = _site(tmp_path / "one", "1", monkeypatch, *SMALL_PAGES)
    two = _site(tmp_path / "two", "2", monkeypatch, *SMALL_PAGES, "-j", "2")
    a, b = _files(one), _files(two)
    assert sorted(a) == sorted(b)
    differ = [name for name in a if a[name].read_bytes() != b[name].read_bytes()]
    assert not differ, f"{len(differ)} file(s) differ between two clean builds: {differ[:20]}"
    assert "docs/books/alpha/combat/part-2.html" in a, sorted(a)      # the sections were split
    # the books tie as intended: one glossary entry lists both "Cover" rules of a book, by id
    gloss = (one / "docs" / "books" / "_glossary" / "c.html").read_text(encoding="utf-8")
    entry = gloss[gloss.index('id="term-cover"'):]
    assert "A model behind something solid is in cover." in entry.split("</dd>")[0]   # its definition
    entry = entry[entry.index("rules-gloss-rules"):]
    assert entry.index("alpha:cover\"") < entry.index("alpha:cover-again\"") < entry.index("beta:cover\"")
    assert len(a) > 50
