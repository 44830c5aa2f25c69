"""Write strategies/learnt/models/README.md from the shipped models' metadata (issue 31): how each was made, its
figures.

    python scripts/net_models.py            # rewrite the README from strategies/learnt/models/*.npz
    python scripts/net_models.py --check    # exit 1 when the README is not what the models say

Each model file records the commands that made it (the data command, the fit command), its data (games, candidate
rows, CPU seconds), its seed and its held-out figures; this page lists them, so the command that regenerates a
model is written beside it and cannot drift from it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simcli.rules.presets import load_rules  # noqa: E402
from simcli.strategies.learnt.model import MODELS, RETIRED, load_model  # noqa: E402

VARIANTS = ("classic", "ponytail", "americana", "spanish", "handfoot")

HEAD = """# The learnt player's models

`net` (strategies/learnt/net.py, docs/strategies.md) plays the model from this folder that was trained under its game's
exact rules (the same rule-set digest), else its variant's `<variant>.npz`. A variant's model is a *general* one where
its metadata records a catalogue of house rules (issue 47; strategies/learnt/catalogues/<variant>.toml): it reads the
rules as input and plays every rule set inside its catalogue, and refuses one outside it in one line. A model without
a catalogue is a specialist of one rule set (the digest) and refuses others: `<variant>-preset.npz` a preset's,
`<variant>-KNOB-VALUE.npz` a published study's house rule. Since 2026-12-06 every variant's general model is level
with or above its specialists, which are retired to `retired/` (`auto` never plays them; `net:model=NAME` plays one,
`net:model=retired` chooses among them as `auto` did when they were shipped). Each file holds the weights, the input
scaling and the metadata, and is installed with the package as `simcli/strategies/learnt/models/`. This page is
written by `python scripts/net_models.py` from the models' own metadata.

To make a model again: run its data command, then its fit command with the model's path (`pip install -e
".[train]"` for scikit-learn). A data run may have been stopped early (a larger `-n` in the model's metadata, a
folder that resumes) and fitted to the games it had; the command below asks for just those games (`-n` set to
them), which plays the same games: a game, and under a catalogue its house rules, depend only on the seed and its
index. The same data and seed give the same weights. A model marked "upgraded from feature version 1" was made by
its commands under version 1 and given zero weights for version 2's match columns; a model of an older feature
version than simcli's (5 since 2026-12-06: version 3 the card memory, version 4 the ranks closed for the deal,
version 5 where a wild card may go) is read with zero weights for the columns added since (`model.upgrade_rows`,
at load time): both play exactly
as they did, and their commands, played again today, write rows of today's version (the model they make is a new
one). Under feature version 1, on 2026-12-03, the Spanish specialist's commands, played again in an empty folder,

```
simcli train data spanish --variant spanish --seed 31 -n 100 --chunk 10 --jobs 2 && simcli train fit spanish spanish.npz
```

wrote the same 35,744 candidate rows and gave that model's arrays, every one equal, and the fit printed its
held-out figures as below: picks the search's choice 48.4% (the heuristic's choice: 70.2%), value error 379.6
points (scripts/check_figures.py --slow plays it again; under version 2 its rows have the match columns too).
"""


def replay_command(command: str, games: int) -> str:
    """The data command with its game count set to the games the model was fitted to (the run was stopped early)."""
    words = command.split()
    for i, word in enumerate(words[:-1]):
        if word in ("-n", "--games"):
            words[i + 1] = str(games)
    return " ".join(words)


def model_files() -> list[Path]:
    """The shipped models: the presets' first (in :data:`VARIANTS` order), then those of house rules, by name."""
    presets = [MODELS / f"{variant}.npz" for variant in VARIANTS]
    return presets + sorted(set(MODELS.glob("*.npz")) - set(presets))


#: Why each retired model (strategies/learnt/models/retired/) was retired: the matches that showed the general model
#: level with it or above it (800-game duplicate matches against the variant's heuristic, compiled build).
RETIRED_WHY = {
    "ponytail-preset.npz": (
        "the Ponytail preset's specialist until 2026-12-05, replaced by the general ponytail.npz of then (one fit of "
        "the 600 games, retired since as ponytail-general-600), which is stronger under the preset: `simcli match "
        "net:model=ponytail-general-600 ponytail --variant ponytail -n 800 --seed 4701 -j 1` gave the "
        "general model +255 Elo [+227, +287] over the heuristic, this one +142 [+117, +169]"),
    "ponytail-pony_unlock-OWN_FIRST_CANASTA.npz": (
        "the by-level study's arm model until 2026-12-05; the general ponytail.npz of then (retired since as "
        "ponytail-general-600) is level with it under its rule: `simcli match net:model=ponytail-general-600 ponytail "
        "--variant ponytail --rule pony_unlock=OWN_FIRST_CANASTA -n 800 --seed 4702 -j 1` "
        "gave +272 Elo [+242, +306] over the heuristic, this one +269 [+240, +302]"),
    "ponytail-general-600.npz": (
        "the general Ponytail model (one fit of the 600 games) until 2026-12-06, replaced by ponytail-distilled-v2.npz "
        "(retired since), one network of as many units fitted to the values of ten fits of the same games "
        "(`--ensemble 10 --distill`), stronger under the preset and every measured combination: `simcli match "
        "net:model=ponytail-distilled-v2 ponytail --variant ponytail -n 800 --seed 4841 -j 1` gave it +303 Elo [+273, "
        "+338] over the heuristic, this one (`simcli match "
        "net:model=ponytail-general-600 ponytail --variant ponytail -n 800 --seed 4841 -j 1`) +262 [+232, +295] "
        "(docs/strategies.md, issue 47's round 5)"),
    "ponytail-distilled-v2.npz": (
        "the general Ponytail model of feature version 2 (distilled from ten fits of the 600 games) until 2026-12-06, "
        "replaced by ponytail-distilled-v3.npz (retired since), distilled the same way from the same 600 games played "
        "again under feature version 3 (the card memory); on seeds 4891-4895 and 4901-4905, used for no choice, that "
        "model against this one: "
        "preset +352 / +314 and +363 / +308, the study arm +397 / +305 and +430 / +311, combination 1 +413 / +357 and "
        "+453 / +384, combination 2 +65 / +87 and +61 / +113, combination 3 +336 / +290 and +348 / +315 Elo over the "
        "heuristic: stronger everywhere but combination 2 (docs/strategies.md, issue 47's round 7)"),
    "ponytail-distilled-v3.npz": (
        "the general Ponytail model of feature version 3 (distilled from ten fits of the 600 games) until 2026-12-06, "
        "replaced by ponytail-distilled-v4.npz (retired since), distilled the same way from the same 600 games played "
        "again under feature version "
        "4 (the ranks the rules close for the deal); on seeds 4931-4935, used for no choice, the new model against "
        "this one: preset +338 / +334, the study arm +399 / +370, combination 1 +448 / +427, combination 2 +124 / +61, "
        "combination 3 +253 / +382 Elo over the heuristic: twice as strong under combination 2 (closed canastas "
        "close their rank there), weaker under combination 3, level or stronger elsewhere (docs/strategies.md, issue "
        "47's round 8)"),
    "ponytail-distilled-v4.npz": (
        "the general Ponytail model of feature version 4 (distilled from ten fits of the 600 games, margin 20) until "
        "2026-12-06, replaced by ponytail.npz, distilled from ten fits of the same 600 games and the learnt player's "
        "own 300 games around new_meld_after_closed_canasta=false, played with a 10-point margin; on seeds 5081-5085 "
        "and 5091-5095, used for no choice, the new model against this one: preset +348 / +295 and +352 / +334, the "
        "study arm +382 / +392 and +389 / +338, combination 1 +392 / +435 and +424 / +446, combination 2 +183 / +110 "
        "and +182 / +133, combination 3 +336 / +259 and +314 / +249 Elo over the heuristic; under combination 2 on "
        "ten more seeds (4984 to 5074) +187 against +125: stronger everywhere but combination 1 (docs/strategies.md, "
        "issue 47's round 10)"),
    "classic-preset.npz": (
        "the Classic preset's specialist until 2026-12-06, replaced by the general classic.npz (2,500 games), which is "
        "level with it under the preset: `simcli match net:model=classic greedy --variant classic -n 800 --seed 4801 "
        "-j 1` gave the general model +122 Elo [+99, +146] over greedy, `net:model=classic-preset` +107 [+83, +131]"),
    "classic-going_out_bonus-500.npz": (
        "the by-level study's arm model until 2026-12-06; the general classic.npz (2,500 games) is level with it under "
        "its rule: `simcli match net:model=classic greedy --variant classic --rule going_out_bonus=500 -n 800 --seed "
        "4802 -j 1` gave +160 Elo [+135, +186] over greedy, this one +134 [+111, +159]"),
    "americana-preset.npz": (
        "the Americana preset's specialist until 2026-12-06, replaced by the general americana.npz (1,640 games), "
        "which is level with it under the preset: `simcli match net:model=americana-general-v2 americana --variant "
        "americana -n 800 --seed 4801 -j 1` gave that general model (retired since) +212 Elo [+185, +242] over the "
        "heuristic, "
        "`net:model=americana-preset` +210 [+182, +240]"),
    "americana-draw_count-2.npz": (
        "the by-level study's arm model until 2026-12-06; the general americana.npz (1,640 games) is level with it "
        "under its rule: `simcli match net:model=americana-general-v2 americana --variant americana --rule "
        "draw_count=2 -n 800 --seed 4802 -j 1` gave that general model (retired since) +246 Elo [+218, +278] over the "
        "heuristic, this one +214 [+187, +242]"),
    "americana-general-v2.npz": (
        "the general Americana model of feature version 2 until 2026-12-06, replaced by americana-general-v3.npz "
        "(retired since), fitted to the "
        "same 1,640 games played again under feature version 3 (the card memory: the pile's cards, the cards known in "
        "other hands, the unseen cards); on seeds 4891-4895 and 4901-4905, used for no choice, the new model against "
        "this one: preset +215 / +214 and +178 / +201, the study arm +293 / +246 and +285 / +268, combination 1 "
        "+177 / +113 and +139 / +128, combination 2 +77 / +34 and +83 / +47, combination 3 +262 / +301 and +255 / "
        "+286 Elo over the heuristic (docs/strategies.md, issue 47's round 7)"),
    "americana-general-v3.npz": (
        "the general Americana model of feature version 3 until 2026-12-06, replaced by americana-distilled-v5.npz "
        "(retired since), distilled from ten fits to the same 1,640 games played again under feature version 5 (the "
        "ranks closed for the deal and where a wild card may go); on seeds 5201-5205 and 5211-5215, used for no "
        "choice, the new model against this "
        "one: preset +291 / +214 and +312 / +230, the study arm +317 / +265 and +334 / +315, combination 1 +177 / "
        "+159 and +168 / +156, combination 2 +84 / +70 and +50 / +53, combination 3 +342 / +301 and +325 / +277 Elo "
        "over the heuristic; under combination 2 on ten more seeds (5101 to 5191) +74 against +69: stronger "
        "everywhere but combination 2, where it is level (docs/strategies.md, issue 47's round 11)"),
    "americana-distilled-v5.npz": (
        "the general Americana model of feature version 5 distilled from ten fits to the 1,640 catalogue games, "
        "shipped for a few hours of 2026-12-06 and replaced by americana.npz, distilled the same way from the same "
        "games and the learnt player's own 300 games around `min_naturals_before_adding_wild=5`; on seeds 5601-5605 "
        "and 5611-5615, used for no choice, the new model against this one: preset +290 / +298 and +332 / +282, the "
        "study arm +319 / +301 and +301 / +328, combination 1 +163 / +178 and +189 / +182, combination 2 +85 / +78 and "
        "+106 / +78, combination 3 +384 / +357 and +361 / +319 Elo over the heuristic; under combination 2 on ten more "
        "seeds (5501 to 5591) +91 against +78 (docs/strategies.md, issue 47's round 11)"),
    "spanish-general-v2.npz": (
        "the general Spanish model of feature version 2 until 2026-12-06, replaced by spanish.npz, fitted the same way "
        "to the same 1,500 games played again under feature version 4 (the card memory and the ranks the rules close "
        "for the deal); on seeds 4951-4955 and 4961-4965, used for no choice, the new model against this one: preset "
        "+570 / +547 and +636 / +516, combination 1 +440 / +365 and +399 / +346, combination 2 +265 / +239 and +248 / "
        "+234, combination 3 +512 / +424 and +494 / +443 Elo over the heuristic: stronger everywhere "
        "(docs/strategies.md, issue 47's round 9)"),
}


def margin_source(meta: dict[str, Any]) -> str:
    """Where a model's margin came from: given to the fit (``--margin`` in its command) or chosen on the validation
    games (the fit's default)."""
    if "--margin" in (meta.get("fit_command") or "").split():
        return "given with `--margin`, not chosen on the validation games"
    return "chosen on the validation games"


def rule_set(meta: dict[str, Any]) -> str:
    """The rule set a model was trained under, as its preset and the knobs that differ from it."""
    variant = meta["variant"]
    preset = load_rules(variant).formatted()
    changed = [f"{k}={v}" for k, v in sorted(meta["rules"].items()) if preset.get(k) != v]
    return f"the `{variant}` preset" + (f" with {', '.join(f'`{c}`' for c in changed)}" if changed else "")


def rules_text(meta: dict[str, Any]) -> str:
    """A specialist's rule set and digest, or a general model's catalogue: its knobs and the rule sets drawn."""
    catalogue = meta.get("catalogue")
    if not isinstance(catalogue, dict):
        return f"{rule_set(meta)} (digest `{meta['rules_digest']}`)"
    knobs = catalogue["knobs"]
    low, high = catalogue.get("changes", [1, 3])
    return (f"general: the `{meta['variant']}` preset and its catalogue of {len(knobs)} house-rule knobs "
            f"({', '.join(f'`{k}`' for k in knobs)}); each game the preset (a share of "
            f"{catalogue.get('preset_share', 0.25):g}) or {low} to {high} knobs changed, "
            f"{int(meta.get('rule_sets', 0)):,} distinct rule sets in the data")


def data_parts(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The data folders a model was fitted to (one, or several fitted together: ``data_parts``)."""
    return list(meta.get("data_parts") or [{"data_command": meta["data_command"], "data_seed": meta["data_seed"],
                                            "rules": [], "data": meta["data"]}])


def data_text(meta: dict[str, Any]) -> str:
    """The games a model was fitted to: ``N games of seed S``, one such a folder, each with its ``--rule``
    settings (the base its catalogue's draws change) after the first."""
    texts = []
    for i, part in enumerate(data_parts(meta)):
        pinned = ", ".join(f"`{k}={v}`" for k, v in part["rules"]) if i else ""
        texts.append(f"{part['data']['games']:,} games of seed {part['data_seed']}"
                     + (f" drawn around {pinned}" if pinned else ""))
    return (" and ".join(texts) if len(texts) < 3 else ", ".join(texts[:-1]) + " and " + texts[-1])


def ensemble_text(meta: dict[str, Any]) -> str:
    """`` each, an ensemble of K fits (seeds ...)`` for a model fitted with ``--ensemble K`` (else nothing)."""
    k = int(meta.get("ensemble", 1))
    if k > 1 and meta.get("distilled"):
        return f", fitted to the mean of {k} fits of as many units (seeds {meta['seed']} to {meta['seed'] + k - 1})"
    return f" a fit, the mean of {k} fits (seeds {meta['seed']} to {meta['seed'] + k - 1})" if k > 1 else ""


def section(path: Path) -> str:
    """One model's section: its commands, data and held-out figures (a retired one's: why it was retired)."""
    meta = load_model(path).meta
    data = meta["data"]
    held = meta["held_out"]
    kb = path.stat().st_size / 1024
    retired = path.parent == RETIRED
    name = f"retired/{path.name}" if retired else path.name
    return "\n".join([
        f"## {name} ({kb:.0f} KB)", "",
        *([f"Retired: {RETIRED_WHY[path.name]}. Play it by name (`net:model={path.stem}`) or among the retired "
           "models as `auto` chose when they were shipped (`net:model=retired`).", ""] if retired else []),
        "```",
        *[replay_command(part["data_command"], part["data"]["games"]) for part in data_parts(meta)],
        meta["fit_command"] or f"simcli train fit DATA strategies/learnt/models/{path.name}",
        "```", "",
        f"Rule set: {rules_text(meta)}, feature version {meta['feature_version']}"
        f"{' (upgraded from feature version 1)' if meta.get('upgraded_from') == 1 else ''}, simcli "
        f"{meta['simcli_version']}. Data: {data_text(meta)} ({data['rows']:,} candidate rows, {data['cpu_seconds']:,} "
        "CPU s to play). Model: "
        f"{'ridge regression' if meta['hidden'] == 0 else str(meta['hidden']) + ' hidden units'}"
        f"{ensemble_text(meta)}, "
        f"{meta['epochs']} epochs, alpha {meta.get('alpha', 1e-4):g}, seed {meta['seed']}; margin "
        f"{meta['margin']:g} points ({margin_source(meta)}).", "",
        f"Held out (games `i % 10 == 9`, {held['decisions']:,} decisions): picks the search's choice "
        f"{held['top1_search']:.1%} (the heuristic's choice is the search's {held['top1_heuristic_baseline']:.1%}); "
        f"value error {held['rmse']:.1f} points (predicting 0: {held['rmse_zero_baseline']:.1f}); the search's value "
        f"of its pick over the heuristic's choice {held['gain_over_heuristic']:+.2f} points a decision (the search's "
        f"own pick, chosen on those values: {held['search_gain_over_heuristic']:+.2f}).", ""])


def opponents_section() -> str:
    """The section of opponents.json, the inference's opponent models fitted to ``mc`` (``mc:opponent=mc``)."""
    path = MODELS / "opponents.json"
    if not path.exists():
        return ""
    fits = json.loads(path.read_text())
    lines = [f"## opponents.json ({path.stat().st_size / 1024:.0f} KB): how `mc` discards and passes piles", "",
             "Not a `net` model: the opponent model `mc:infer=S,opponent=mc` weighs its sampled worlds with "
             "(strategies/search/inference.py), a conditional logit over the naturals held fitted to today's `mc`'s "
             "discards and the share of takeable piles it passed holding a pair, one a variant. Its command "
             "(`PYTHONPATH=` a compiled build for speed; the games and the fit are the same):", "", "```"]
    lines += [fit["command"] for fit in fits.values()]
    lines += ["```", "", "| variant | games (seed) | discards | mean log-likelihood a discard, fitted / soft greedy "
              "T=20 | piles passed holding a pair |", "|---|---|---:|---|---|"]
    for variant, fit in fits.items():
        lines.append(f"| {variant} | {fit['games']} ({fit['seed']}) | {fit['discards']:,} | {fit['loglik_fit']:.3f} / "
                     f"{fit['loglik_soft_greedy_T20']:.3f} | {fit['passed_with_pair']} of "
                     f"{fit['takeable_with_pair']} ({fit['passing']:.3f}, smoothed) |")
    return "\n".join(lines) + "\n"


def render() -> str:
    """The README's text."""
    retired = sorted(RETIRED.glob("*.npz"))
    return (HEAD + "\n" + "\n".join(section(path) for path in model_files() + retired) + "\n"
            + opponents_section())


def main() -> int:
    """Write (or with ``--check``, compare) the README."""
    text = render()
    readme = MODELS / "README.md"
    if "--check" in sys.argv[1:]:
        if not readme.exists() or readme.read_text(encoding="utf-8") != text:
            print(f"{readme} is stale: run python scripts/net_models.py")
            return 1
        print(f"ok: {readme} says what the models say")
        return 0
    readme.write_text(text, encoding="utf-8")
    print(f"wrote {readme}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
