"""The package's version, in a module of its own: the caches' code keys and `rules export`
read it without importing the package's front door (`rules_dsl/__init__.py` loads the
loader on first use, which would close an import circle)."""
__version__ = "0.1.0"
