"""Shared fixtures: a private rulebooks folder holding the demo book, and a private cache."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
DEMO = HERE / "demo_book.rules"


@pytest.fixture
def demo_books(tmp_path, monkeypatch):
    """RULES_DSL_BOOKS -> a temp folder with `demo.rules`; returns that folder."""
    books = tmp_path / "books"
    books.mkdir()
    shutil.copy(DEMO, books / "demo.rules")
    monkeypatch.setenv("RULES_DSL_BOOKS", str(books))
    monkeypatch.setenv("RULES_DSL_CACHE", str(tmp_path / "cache"))
    from rules_dsl import loader
    monkeypatch.setattr(loader, "_BOOKS", {})
    return books


@pytest.fixture
def demo(demo_books):
    import rules_dsl
    return rules_dsl.load("demo")


def write_book(folder: Path, book_id: str, body: str, header: str = "") -> Path:
    """Write a small book: a header (with d6, d10 and the Dust die) and `body`."""
    head = header or f"""book {book_id} {{
  title "T"
  dice d6, d10
  die dust {{ army: 2, target: 2, shield: 2 }}
}}
"""
    path = folder / f"{book_id}.rules"
    path.write_text(head + body)
    return path
