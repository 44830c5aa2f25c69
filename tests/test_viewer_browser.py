"""The replay page in a real browser (issue 33): Debian's chromium, headless, driven by selenium through the system
chromedriver (no driver or browser is ever downloaded; ``.ci/run`` installs both where they are missing).

One browser session opens the page of a game of each kind (Classic pairs, three players each alone, Spanish trios,
Americana, six-player Ponytail, Hand and Foot), steps through the whole game with the arrow key and, at every step,
checks what the page shows against the trace itself, read here without simcli: a draw shows the stock the ``draw``
line leaves, a discard the pile's size and top, the end of a deal every hand and meld of ``deal_scored``, the totals
of ``totals``; every event a reader follows is reached; the last step shows ``game_end``'s totals. The browser logs
no error. In Hand and Foot each seat shows its foot (face down, or walked or ran into) and each team its contract's
books, as the trace's ``pony_pickup`` and ``canasta`` lines have them at every step.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from simcli.cli import main

CHROMIUM = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if Path(p).exists()),
                shutil.which("chromium"))
CHROMEDRIVER = "/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else shutil.which("chromedriver")

#: name -> `simcli play` arguments: a whole game of each kind, cut to one or two deals to keep the test short.
GAMES = {
    "classic-pairs": ["--variant", "classic", "--seed", "21", "--rule", "max_hands=1"],
    "classic-cutthroat-3p": ["--variant", "classic", "--seed", "22", "--rule", "num_players=3", "--rule", "team_size=1",
                             "--rule", "max_hands=1"],
    "spanish-trios": ["--variant", "spanish", "--seed", "23", "--strategies", "spanish", "--rule", "num_players=6",
                      "--rule", "max_hands=1"],
    "americana": ["--variant", "americana", "--seed", "24", "--strategies", "americana", "--rule", "max_hands=1"],
    "ponytail-6p": ["--variant", "ponytail", "--seed", "25", "--strategies", "ponytail", "--rule", "num_players=6",
                    "--rule", "max_hands=1"],
    # seed 26: an upcard buried, two players walk into the foot and two run into it
    "handfoot": ["--variant", "handfoot", "--seed", "26", "--rule", "max_hands=1"],
}

#: Events that are a step of their own on the page (the ``meld``, ``canasta`` and pile ``red_three`` lines right
#: after a ``take_pile`` are told with it; decision lines are not steps, except a three kept in hand).
STEPS = ("deal", "draw", "take_pile", "discard", "pony_pickup", "wing", "special_hand", "going_out", "stock_out",
         "deal_scored", "totals", "game_end")


def _driver() -> Any:
    if CHROMIUM is None or CHROMEDRIVER is None:
        why = "no chromium or chromedriver on this machine (Debian: apt-get install chromium chromium-driver)"
        if os.environ.get("CI") == "true":  # .ci/run installs them: CI must run this test, never skip it
            pytest.fail(why + ", though .ci/run installs them")
        pytest.skip(why + "; CI installs them (.ci/run)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e .[test])")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1000,1400"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


@pytest.fixture(scope="module")
def browser() -> Any:
    driver = _driver()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, list[dict[str, Any]]]]:
    out = {}
    folder = tmp_path_factory.mktemp("pages")
    for name, args in GAMES.items():
        trace, page = folder / f"{name}.jsonl", folder / f"{name}.html"
        result = CliRunner().invoke(main, ["play", *args, "--trace", str(trace)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        result = CliRunner().invoke(main, ["replay", str(trace), "--out", str(page)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        out[name] = (page, [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()])
    return out


def _shown(driver: Any) -> dict[str, Any]:
    """What the page shows now: the table's data attributes, each seat's cards and each team's melds."""
    return driver.execute_script("""
        const t = document.getElementById('table').dataset;
        return {step: +t.step, seq: +t.seq, kind: t.kind, stock: +t.stock, pileSize: +t.pileSize, pileTop: t.pileTop,
                sizes: t.handSizes.split(',').map(Number), totals: t.totals.split(',').map(Number),
                cards: [...document.querySelectorAll('.seat')].map(s => s.dataset.cards),
                backs: [...document.querySelectorAll('.seat')].map(s => s.querySelectorAll('.c.back').length),
                melds: [...document.querySelectorAll('.team')].map(s => s.dataset.melds),
                feet: [...document.querySelectorAll('.seat')].map(s => s.dataset.foot || null),
                contracts: [...document.querySelectorAll('.team')].map(s => s.dataset.contract || null),
                event: document.getElementById('event').textContent};""")


def _team_melds(team: dict[str, Any]) -> Counter:
    """A ``deal_scored`` team's melds (closed canastas set aside included) as the page's ``rank:n,t,j`` items."""
    items = [f"{rank}:{n},{t},{j}" for rank, (n, t, j) in team["melds"].items()]
    items += [f"{rank}:{n},{t},{j}" for rank, n, t, j in team.get("closed_canastas", [])]
    return Counter(items)


def _check_step(shown: dict[str, Any], ev: dict[str, Any], header: dict[str, Any]) -> None:
    where = f"step {shown['step']}, trace seq {ev['seq']} ({ev['event']})"
    assert shown["kind"] == ev["event"], where
    if ev["event"] == "draw":
        assert shown["stock"] == ev["stock_left"], where
    elif ev["event"] == "discard":
        assert (shown["pileSize"], shown["pileTop"]) == (ev["pile_size"], ev["card"]), where
    elif ev["event"] == "deal":
        size = int(header["rules"]["hand_size"])
        assert shown["sizes"] == [size] * header["num_players"], where
        assert [sorted(c.split()) for c in shown["cards"]] == [sorted(h.split()) for h in ev["hands"]], where
    elif ev["event"] == "deal_scored":
        n_teams = header["n_teams"]
        for t, team in enumerate(ev["teams"]):
            for k, hand in enumerate(team["hands"]):
                seat = t + k * n_teams
                assert sorted(shown["cards"][seat].split()) == sorted(hand.split()), f"{where}, seat {seat}"
                assert shown["sizes"][seat] == len(hand.split()), f"{where}, seat {seat}"
            mine = Counter(x for x in shown["melds"][t].split(";") if x)
            assert mine == _team_melds(team), f"{where}, team {t}"
    elif ev["event"] in ("totals", "game_end"):
        assert shown["totals"] == ev["totals"], where


class _Feet:
    """Each seat's foot and each team's contract as the trace has them so far (Hand and Foot: 11-card feet, the
    4-player contract of 2 clean, 2 dirty and 1 wild books), to check the page against at every step."""

    def __init__(self, header: dict[str, Any]) -> None:
        self.n_teams = header["n_teams"]
        self.players = header["num_players"]
        self.new_deal()

    def new_deal(self) -> None:
        self.feet = ["foot: 11 cards face down"] * self.players
        self.books = [Counter() for _ in range(self.n_teams)]

    def follow(self, ev: dict[str, Any]) -> None:
        if ev["event"] == "deal":
            self.new_deal()
        elif ev["event"] == "pony_pickup":
            self.feet[ev["seat"]] = f"in the foot ({'walked' if ev['into_foot'] == 'walking' else 'ran'} into it)"
        elif ev["event"] == "canasta":
            self.books[ev["team"]][ev["kind"]] += 1
            if ev["upgraded_from"]:
                self.books[ev["team"]][ev["upgraded_from"]] -= 1

    def contract(self, team: int) -> str:
        b = self.books[team]
        parts = [(kind, b[k], need) for kind, k, need in (("clean", "NATURAL", 2), ("dirty", "MIXED", 2),
                                                          ("wild", "WILD", 1))]
        text = "contract: " + ", ".join(f"{kind} {min(have, need)}/{need}" for kind, have, need in parts)
        return text + (": met" if all(have >= need for _, have, need in parts) else "")


@pytest.mark.parametrize("name", list(GAMES))
def test_step_through_a_whole_game(browser: Any, pages: dict[str, tuple[Path, list[dict[str, Any]]]],
                                   name: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page, events = pages[name]
    header = events[0]
    by_seq = {ev["seq"]: ev for ev in events}
    browser.get(page.as_uri())
    body = browser.find_element(By.TAG_NAME, "body")
    seen: Counter = Counter()
    last_seq = -1
    shown = _shown(browser)
    feet = _Feet(header) if header["variant"] == "handfoot" else None
    pos = 0
    while True:
        assert shown["seq"] > last_seq, f"step {shown['step']} goes back to seq {shown['seq']}"
        ev = by_seq[shown["seq"]]
        _check_step(shown, ev, header)
        if feet is None:
            assert not any(shown["feet"]) and not any(shown["contracts"])  # other variants: no foot, no contract
        else:  # the trace up to this step; a meld's step shows the table after it: its canasta made, and a pile
            # take's step its own melds (the top card's and the extra ones) and their canastas too
            melds = 1 + len(ev["extra"]) if ev["event"] == "take_pile" else 0
            told = ("meld", "canasta", "red_three") if melds else ("canasta",) if ev["event"] == "meld" else ()
            while pos < len(events) and (events[pos]["seq"] <= shown["seq"] or events[pos]["event"] in told):
                if events[pos]["seq"] > shown["seq"] and events[pos]["event"] == "meld":
                    if not melds:
                        break
                    melds -= 1
                feet.follow(events[pos])
                pos += 1
            where = f"step {shown['step']}, trace seq {ev['seq']} ({ev['event']})"
            assert shown["feet"] == feet.feet, where
            assert shown["contracts"] == [feet.contract(t) for t in range(feet.n_teams)], where
        seen[ev["event"]] += 1
        last_seq = shown["seq"]
        body.send_keys(Keys.ARROW_RIGHT)
        following = _shown(browser)
        if following["step"] == shown["step"]:
            break  # the last step
        shown = following
    assert shown["kind"] == "game_end" and shown["totals"] == events[-1]["totals"]
    expected = Counter(ev["event"] for ev in events if ev["event"] in STEPS)
    assert {k: seen[k] for k in STEPS} == {k: expected[k] for k in STEPS}
    if feet is not None:  # the page reached feet walked and run into, and a contract's books
        assert {"walking", "running"} <= {e["into_foot"] for e in events if e["event"] == "pony_pickup"}
        assert seen["upcard_buried"] == 1 and seen["self_deal"] == 1
    # One seat's view: the others' hands face down, and another seat's stock draw names no card.
    browser.execute_script("const v = document.getElementById('viewSelect'); v.value = '0';"
                           "v.dispatchEvent(new Event('change'));")
    body.send_keys(Keys.HOME)
    draw = next(ev for ev in events if ev["event"] == "draw" and ev["seat"] != 0 and ev["cards"])
    while _shown(browser)["seq"] < draw["seq"]:
        body.send_keys(Keys.ARROW_DOWN)
    while _shown(browser)["seq"] != draw["seq"]:
        body.send_keys(Keys.ARROW_LEFT)
    shown = _shown(browser)
    assert shown["cards"][0] and not any(shown["cards"][1:])
    assert shown["backs"][1:] == shown["sizes"][1:]
    assert re.search(r" draws (a card|\d+ cards) from the stock", shown["event"]), shown["event"]
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def test_a_searched_decision_shows_what_was_weighed(browser: Any, tmp_path: Path) -> None:
    """A trace with ``--search-values``: the step of a ``search`` line shows its candidates, best first, the chosen
    one marked; another seat's view shows no values."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    trace, page = tmp_path / "mc.jsonl", tmp_path / "mc.html"
    args = ["--seed", "8", "--strategies", "mc:samples=2,greedy", "--rule", "max_hands=1", "--trace", str(trace)]
    result = CliRunner().invoke(main, ["play", *args, "--search-values", "--html", str(page)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    by_seq = {ev["seq"]: ev for ev in map(json.loads, trace.read_text(encoding="utf-8").splitlines())}
    browser.get(page.as_uri())
    body = browser.find_element(By.TAG_NAME, "body")
    while _shown(browser)["kind"] != "search":
        body.send_keys(Keys.ARROW_RIGHT)
    ev = by_seq[_shown(browser)["seq"]]
    box = browser.find_element(By.ID, "search")
    assert box.is_displayed() and "weighed" in box.text
    rows = box.find_elements(By.CSS_SELECTOR, "tr")[1:]
    assert len(rows) == len(ev["candidates"])
    means = [float(r.find_elements(By.TAG_NAME, "td")[1].text.replace("\u2014", "nan")) for r in rows]
    assert means == sorted(means, reverse=True)  # best first
    assert sorted(means) == sorted(float(f"{c['mean']:.0f}") for c in ev["candidates"])
    assert [("chosen" in r.get_attribute("class")) for r in rows].count(True) == 1
    other = (ev["seat"] + 1) % 4
    browser.execute_script(f"const v = document.getElementById('viewSelect'); v.value = '{other}';"
                           "v.dispatchEvent(new Event('change'));")
    assert not box.is_displayed() and " weighed " in _shown(browser)["event"]
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
