"""The vocabulary every layer shares: card ranks and count vectors, the decision types, errors, random streams."""
