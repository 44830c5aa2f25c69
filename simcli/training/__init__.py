"""The learnt player's training (issue 31): data from the search (``data``) and the fit of its model (``fit``)."""
