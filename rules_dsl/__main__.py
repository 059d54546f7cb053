"""`python -m rules_dsl` is the `rules` command."""
from .cli import main

raise SystemExit(main())
