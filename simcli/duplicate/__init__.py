"""Duplicate play: paired games, matches and SPRT, tournaments, ladders and their ratings."""
