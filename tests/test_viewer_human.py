"""A person's seat at the table (issue 33): `simcli play --human SEAT`, driven by scripted input.

A whole deal is played through a pipe (the real program, its standard input a pipe): bad input and moves the rules
refuse are answered with the reason and asked again, ``?`` shows the ``mc`` search's hint with the values it weighed,
the deal ends with its score breakdown. The end of the input and Ctrl-C (through a terminal, pexpect) leave the
table with one line. The player sees only its own cards: the other seats' stock draws are not named.
"""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simcli.engine.game import play_seated_game
from simcli.players.seating import make_strategies
from simcli.rules.presets import load_rules
from simcli.viewer.human import HumanPlayer, LeftTable
from simcli.viewer.words import Words

ROOT = Path(__file__).resolve().parent.parent
#: Classic, seed 2, South at seat 2: at the first draw the pile shows a black three (no take), then South draws a K.
ARGS = ["play", "--seed", "2", "--rule", "max_hands=1", "--human", "South", "--hint-worlds", "2"]
#: draw: a hint (the stock is the only choice), a word, a number out of range, a take the rules refuse, the stock;
#: melds: cards not in hand, then nothing; discard: a hint with values, a card not held, the first card; then 1s.
SCRIPT = "?\nzz\n9\ntake K K\n1\nQ Q Q\n1\n?\nB3\n1\n" + "1\n" * 600


def _run(stdin: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "simcli", *ARGS], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout, check=False)


def test_a_whole_deal_from_scripted_input_through_a_pipe() -> None:
    done = _run(SCRIPT)
    out = done.stdout
    assert done.returncode == 0, done.stderr + out[-2000:]
    assert "your hand (11): A A J 9 9 8 7 5 2 2 2" in out  # sorted by rank, highest first
    assert "refused: 'zz' is no move here" in out and "refused: 9 is not one of the choices 1 to 1" in out
    assert "refused: the pile cannot be taken with B3 on top" in out  # the rule's own reason
    assert "refused: hand holds 0 x Q, not 3" in out and "refused: you hold no B3" in out
    assert "hint: draw from the stock (the only choice mc considers here)" in out
    weighed = out.split("hint: mc (2 worlds) would discard ")[1].splitlines()
    assert "what it weighed" in weighed[1]
    assert all(re.match(r"    discard \S+: [+-]\d+", line) for line in weighed[2:10]), weighed[:10]
    assert "South draws a K from the stock" in out  # own draw named, one card ("a K": not "K" cards)
    assert re.search(r"East draws a card from the stock", out)  # the others' draws are not
    assert "Deal 1 ends after" in out and re.search(r"\n   North-South [+-]\d+: .*cards melded", out)
    assert "2:human(team 0)" in out and re.search(r"winner: team \d by", out)


def test_the_end_of_the_input_leaves_the_table_with_one_line() -> None:
    done = _run("1\n1\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().splitlines()[-1].endswith("you left the table; the game was not finished")
    assert "Traceback" not in done.stderr + done.stdout


def test_ctrl_c_leaves_the_table_with_one_line() -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "simcli", *ARGS], cwd=str(ROOT), encoding="utf-8", timeout=120,
                          env={**os.environ, "COLUMNS": "200"},
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    child.expect("> ")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130, child.before
    tail = child.before.strip().splitlines()
    assert tail[-1].strip() == "you left the table (Ctrl-C); the game was not finished", tail[-3:]
    assert "Traceback" not in child.before


def test_the_player_is_a_strategy_on_text_streams() -> None:
    """In process: a HumanPlayer seated with the engine's own game loop, reading a StringIO."""
    rules = load_rules("spanish", {"max_hands": "1"})
    names = ["spanish"] * rules.num_players
    players = make_strategies(names, 7, 0)
    out = io.StringIO()
    words = Words(rules.num_players, rules.n_teams)
    players[1] = HumanPlayer(np.random.default_rng(0), stdin=io.StringIO("1\n" * 400), stdout=out, words=words)
    result = play_seated_game(rules, players, names, 7, 0)
    assert len(result.deals) == 1
    text = out.getvalue()
    assert "== Deal 1, turn " in text and "your hand (" in text and "  1: " in text
    # Without enough input, it leaves the table: a BaseException the engine does not turn into an error.
    players = make_strategies(names, 7, 0)
    players[1] = HumanPlayer(np.random.default_rng(0), stdin=io.StringIO("1\n"), stdout=io.StringIO(), words=words)
    with pytest.raises(LeftTable):
        play_seated_game(rules, players, names, 7, 0)
