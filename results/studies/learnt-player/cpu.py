"""CPU seconds per game: PLAYER in seats 0 and 2, the variant's heuristic in 1 and 3 (issue 31 measurements).

usage: PYTHONPATH=BUILD python results/studies/learnt-player/cpu.py VARIANT GAMES SEED PLAYER [PLAYER ...]
(each measured over the same games in one process, the players in turn game by game, so that a busy machine's load
falls on each alike; "heuristic" is the variant's heuristic; a game is played once untimed first, to load the
models; the last line is each player's CPU over the first's)
"""
import sys
import time

from simcli.players.seating import play_game
from simcli.rules.presets import load_rules

H = {"classic": "greedy", "ponytail": "ponytail", "americana": "americana", "spanish": "spanish",
     "handfoot": "handfoot"}
v, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rules = load_rules(v)
players = [H[v] if p == "heuristic" else p for p in sys.argv[4:]]
for p in players:
    play_game(rules, [p, H[v], p, H[v]], seed, 0)
cpu = [0.0] * len(players)
for g in range(n):
    for i, p in enumerate(players):
        t = time.process_time()
        play_game(rules, [p, H[v], p, H[v]], seed, g)
        cpu[i] += time.process_time() - t
for name, c in zip(sys.argv[4:], cpu, strict=True):
    print(f"{v} {name}: {c / n:.5f} CPU s/game over {n} games (seed {seed})", flush=True)
ratios = ", ".join(f"{name} {c / cpu[0]:.2f}x" for name, c in zip(sys.argv[4:], cpu, strict=True))
print(f"{v} CPU over {sys.argv[4]}'s: {ratios}")
