"""One module per variant feature (threes, ponies, wings, special hands, the Spanish pile): pure predicates over
``DealState`` beside the transitions the turn calls at its hooks."""
