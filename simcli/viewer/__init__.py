"""Following a game as a card player: the replay page, the play-by-play in words, a person's seat at the terminal.

* :mod:`simcli.viewer.words` says each trace event in plain words ("North takes the pile of 12 cards with K K on the
  K discard"), for every variant, with the seat names card players use (North, East, South, West at four).
* :mod:`simcli.viewer.replay` rebuilds the table after every event of a trace (``simcli play --trace``): the deal
  is laid out from the trace's deck and the trace's decisions are played through the engine's rules; every event
  the rules produce must equal the trace's, so a trace that disagrees with itself is refused, never drawn.
* :mod:`simcli.viewer.page` writes the replay as one self-contained HTML page (``simcli replay``,
  ``simcli play --html``); :mod:`simcli.viewer.narrate` prints the events as they happen (``simcli play
  --narrate``); :mod:`simcli.viewer.human` is a :class:`~simcli.engine.strategy_base.Strategy` that asks a person
  at the terminal for its seat's decisions (``simcli play --human SEAT``).
* :mod:`simcli.viewer.weighed` records what search players weighed (``simcli play --search-values``: a ``search``
  line after each searched decision) and says it.
"""
