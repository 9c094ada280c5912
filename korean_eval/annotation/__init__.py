"""Collecting human judgments: campaigns (items, assignment, attention checks), their storage over SQLite or
PostgreSQL, what each token may read, and exports (docs/design.md §4, "Collected judgments")."""
