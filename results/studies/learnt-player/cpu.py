"""CPU seconds per game: PLAYER in seats 0 and 2, the variant's heuristic in 1 and 3 (issue 31 measurements).

usage: PYTHONPATH=BUILD python results/studies/learnt-player/cpu.py VARIANT GAMES SEED PLAYER [PLAYER ...]
(each measured over the same games, one after the other in one process; "heuristic" is the variant's heuristic)
"""
import sys
import time

from simcli.players.seating import play_game
from simcli.rules.presets import load_rules

H = {"classic": "greedy", "ponytail": "ponytail", "americana": "americana", "spanish": "spanish"}
v, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rules = load_rules(v)
for player in sys.argv[4:]:
    p = H[v] if player == "heuristic" else player
    t = time.process_time()
    for g in range(n):
        play_game(rules, [p, H[v], p, H[v]], seed, g)
    print(f"{v} {player}: {(time.process_time() - t) / n:.5f} CPU s/game over {n} games (seed {seed})", flush=True)
