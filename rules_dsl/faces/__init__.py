"""What users and tools touch: the terminal's text, the lookup index and its search, open data and
records, diffs, the language server and its workspace, preview and watch.  The `rules` command's
entry point stays rules_dsl/cli.py."""
