"""The rules language: its grammar (grammar.lark), the parser to AST nodes, the book model, prose,
values, dice and built-ins, and the language said back in words (render, display, wording)."""
