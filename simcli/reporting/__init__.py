"""Reporting: the tables, Markdown/CSV/JSON renderings and figures that commands print or save."""
