"""simcli: a Canasta simulation lab (rules core, scripted strategies, batch runs and reports)."""

__version__ = "0.1.0"
