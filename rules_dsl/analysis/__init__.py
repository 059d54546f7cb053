"""Analysis of a parsed book: name resolution, the symbol table, the call graph and the checks,
one pass per concern."""
