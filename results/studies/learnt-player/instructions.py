"""Games for counting instructions (issue 31): games 1..GAMES of seed 3100, PLAYER in seats 0 and 2 and the variant's
heuristic in 1 and 3, after an untimed game 0 (GAMES = 0: the imports and game 0 alone, to subtract).

usage: cd /tmp && PYTHONPATH=BUILD valgrind --tool=callgrind python .../instructions.py VARIANT PLAYER GAMES
("heuristic" is the variant's heuristic)
"""
import sys

import simcli.strategies.learnt.net  # noqa: F401  imports counted in both
from simcli.players.seating import play_game
from simcli.rules.presets import load_rules

H = {"classic": "greedy", "ponytail": "ponytail", "americana": "americana", "spanish": "spanish"}
v, p, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rules = load_rules(v)
p = H[v] if p == "heuristic" else p
play_game(rules, [p, H[v], p, H[v]], 3100, 0)
for g in range(1, n + 1):
    play_game(rules, [p, H[v], p, H[v]], 3100, g)
