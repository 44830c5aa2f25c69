"""Rank indices, rank-count vectors, wild cards and card values (RULES.md §1.1-1.3).

A documented import path of the public API (listed whole in :mod:`simcli`); the code lives in
:mod:`simcli.primitives.cards`."""

from simcli.primitives.cards import (
    ACE,
    BLACK_THREE,
    CARD_VALUES,
    EIGHT,
    FIVE,
    FOUR,
    IS_NATURAL,
    IS_WILD,
    JACK,
    JOKER,
    KING,
    NATURAL_RANKS,
    NINE,
    NUM_RANKS,
    PER_DECK,
    QUEEN,
    RANK_NAMES,
    RED_THREE,
    SEVEN,
    SIX,
    TEN,
    TWO,
    WILD_MELD,
    WILD_RANKS,
    CardError,
    cards_of,
    counts_of,
    deck_cards,
    deck_counts,
    format_cards,
    format_counts,
    parse_cards,
    parse_rank,
)

__all__ = [
    "ACE", "BLACK_THREE", "CARD_VALUES", "EIGHT", "FIVE", "FOUR", "IS_NATURAL", "IS_WILD", "JACK", "JOKER", "KING",
    "NATURAL_RANKS", "NINE", "NUM_RANKS", "PER_DECK", "QUEEN", "RANK_NAMES", "RED_THREE", "SEVEN", "SIX", "TEN", "TWO",
    "WILD_MELD", "WILD_RANKS", "CardError", "cards_of", "counts_of", "deck_cards", "deck_counts", "format_cards",
    "format_counts", "parse_cards", "parse_rank",
]
