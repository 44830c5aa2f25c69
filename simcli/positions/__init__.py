"""End-of-deal positions as JSON (docs/position-format.md): the ``score`` command's reader and its inverse."""
