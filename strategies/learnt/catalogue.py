"""A catalogue of house rules (issue 47): the knobs a general ``net`` model is trained over, each with its values.

A catalogue is a TOML file (the shipped ones: ``strategies/learnt/catalogues/<variant>.toml``, installed as
``simcli/strategies/learnt/catalogues/``; docs/strategies.md, "Catalogues", has the format)::

    variant = "classic"
    preset_share = 0.25        # share of the games played under the preset itself
    changes = [1, 3]           # the other games change this many knobs (inclusive), drawn uniformly

    [knobs.going_out_bonus]
    values = [0, 100, 200, 300, 500, 1000]   # what training draws (as on the command line)
    weight = 3                               # how often the knob is drawn, relative to the others (default 1)

    [knobs.initial_meld_table]
    values = ["CLASSIC", "PENNIES", "AM_PAGAT", "AM_MODERN_2020S"]
    probes = [-1, 0, 1500, 3000, 5000]       # a table is read at these keys ...
    scale = 200                              # ... and its values divided by this

It does three things, from the rule set alone:

* :meth:`Catalogue.draw` draws a game's house rules: the preset, or the preset with one to three knobs changed, from
  the game's own stream (``SeedSequence(seed, spawn_key=(game, 3))``, simcli/primitives/seeding.py): the same game
  gets the same rules whoever plays it;
* :meth:`Catalogue.encode` turns a rule set into the model's rule features: numbers scaled by the range of their
  values (and a flag for ``null`` where it is one of them), enums one-hot over their values, flags, sets one flag
  a member, tables by their values at the probes, requirements by the canastas of each type;
* :meth:`Catalogue.outside` says which knob of a rule set is outside the catalogue (a knob the catalogue does not
  vary away from the preset, or a value it does not know), in one line, or ``None``.

A catalogue is stored inside every model trained on it (its metadata's ``"catalogue"``), so a model reads its own
rules whatever catalogue files a later version ships. Variants are data here: a new variant (Hand and Foot) needs
only its catalogue file.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simcli.rules.knob_values import Knob, RuleError
from simcli.rules.knobs import CANASTA_TYPES, knob
from simcli.rules.presets import load_rules, preset_values
from simcli.rules.ruleset import RuleSet

__all__ = ["CATALOGUES", "Catalogue", "CatalogueError", "CatalogueKnob", "load_catalogue", "shipped_catalogue"]

#: Where the shipped catalogues are: ``<variant>.toml``.
CATALOGUES = Path(__file__).resolve().parent / "catalogues"

#: The spawn key's last word of a game's house-rule draw (simcli/primitives/seeding.py: ``(game, 3)``).
RULES_STREAM = 3

#: The kinds of knob whose values a model reads as a number, so that any value in the range is inside.
_NUMERIC = ("int", "float")


class CatalogueError(ValueError):
    """A catalogue file that cannot be used: missing, not TOML, an unknown knob, a value the knob refuses."""


@dataclass(frozen=True)
class CatalogueKnob:
    """One knob of a catalogue: its values as on the command line, the draw weight, and how it is read."""

    name: str
    values: tuple[str, ...]
    weight: float = 1.0
    probes: tuple[int, ...] = ()
    scale: float = 1.0

    @property
    def knob(self) -> Knob:
        """The rule knob (simcli/rules/knobs.py)."""
        return knob(self.name)

    def numbers(self) -> list[float]:
        """The numeric values (``null`` left out) of a number knob."""
        return [float(v) for v in self.values if v != "null"]

    def span(self) -> tuple[float, float]:
        """The lowest and highest numeric value (the range a model knows)."""
        nums = self.numbers()
        return (min(nums), max(nums)) if nums else (0.0, 0.0)

    def members(self) -> list[str]:
        """The columns of a set, ranks or requirement knob: every member any value names, in first-seen order."""
        out: list[str] = []
        kind = self.knob.kind
        for v in self.values:
            parsed = self.knob.parse(v)
            if kind == "requirement":
                items = [t for t, _ in parsed]
            elif kind in ("enumset", "ranks"):
                items = [str(x) for x in parsed]
            else:
                items = []
            for item in items:
                if item not in out:
                    out.append(item)
        if kind == "requirement":  # every type, in the declared order, so two catalogues read alike
            out = [t for t in CANASTA_TYPES if t in out]
        return out

    def columns(self) -> list[str]:
        """The names of this knob's rule-feature columns."""
        kind = self.knob.kind
        if kind in _NUMERIC:
            return [self.name] + ([f"{self.name}=null"] if "null" in self.values else [])
        if kind == "bool":
            return [self.name]
        if kind in ("enumset", "ranks", "requirement"):
            return [f"{self.name}:{m}" for m in self.members()]
        if kind == "table":
            return [f"{self.name}@{p}" for p in self.probes] + ([f"{self.name}=null"] if "null" in self.values
                                                                  else [])
        if kind == "intlist":
            return [f"{self.name}:count", f"{self.name}:sum"]
        return [f"{self.name}={v}" for v in self.values]  # an enum, and any other kind: one-hot over the values

    def encode(self, value: Any) -> list[float]:
        """This knob's columns for the rule set's ``value`` (parsed, as the RuleSet holds it)."""
        kind = self.knob.kind
        if kind in _NUMERIC:
            lo, hi = self.span()
            x = 0.0 if value is None else (float(value) - lo) / ((hi - lo) or 1.0)
            return [x] + ([1.0 if value is None else 0.0] if "null" in self.values else [])
        if kind == "bool":
            return [1.0 if value else 0.0]
        if kind == "requirement":
            counts = dict(value)
            return [counts.get(m, 0) / 4 for m in self.members()]
        if kind in ("enumset", "ranks"):
            held = {str(x) for x in value}
            return [1.0 if m in held else 0.0 for m in self.members()]
        if kind == "table":
            bands = value or ()
            out = [_band(bands, p) / self.scale for p in self.probes]
            return out + ([1.0 if value is None else 0.0] if "null" in self.values else [])
        if kind == "intlist":
            return [len(value) / 4, sum(value) / 10]
        text = self.knob.format(value)
        return [1.0 if text == v else 0.0 for v in self.values]

    def knows(self, value: Any) -> bool:
        """Whether a model trained over this knob knows ``value``: a number in its range (or ``null`` where null is
        one of its values), else one of its values."""
        text = self.knob.format(value)
        if self.knob.kind in _NUMERIC and value is not None and self.numbers():
            lo, hi = self.span()
            return lo <= float(value) <= hi
        return text in self.values

    def describe(self) -> str:
        """The values a model knows, as a phrase: ``0..1000`` for a number (``null`` beside it), else the list."""
        if self.knob.kind in _NUMERIC and self.numbers():
            lo, hi = self.span()
            text = f"{lo:g}..{hi:g}"
            return text + (" or null" if "null" in self.values else "")
        return ", ".join(self.values)


def _band(bands: Sequence[tuple[int | None, int]], at: int) -> float:
    """A table's value at key ``at``: the value of the last band whose key is at most ``at`` (``None``: below all);
    0 below every band."""
    out = 0.0
    for key, value in bands:
        if key is None or key <= at:
            out = float(value)
    return out


@dataclass(frozen=True)
class Catalogue:
    """A variant's catalogue of house rules (see the module)."""

    variant: str
    knobs: tuple[CatalogueKnob, ...]
    preset_share: float = 0.25
    changes: tuple[int, int] = (1, 3)
    #: Where it was read from (for messages), or ``""``.
    source: str = ""
    #: Knobs set away from the preset for every game (``simcli train data --rule``), as on the command line: the
    #: base the draws change, and what a knob outside the catalogue must be.
    base: tuple[tuple[str, str], ...] = ()
    #: Training data stops recording a game after this many deals (0: never): some house-rule combinations make
    #: games that no team can win (the deals end with every team losing points) and would play until the engine's
    #: 400-deal limit. The rules are not changed: the game is just left (``simcli train data``).
    deal_limit: int = 0

    # ----------------------------------------------------------------------------------------------- reading
    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "") -> Catalogue:
        """A catalogue from its TOML table (or a model's metadata), checked: one line names what is wrong."""
        where = source or "catalogue"
        try:
            variant = str(data["variant"])
            raw_knobs = data["knobs"]
        except (KeyError, TypeError):
            raise CatalogueError(f"{where}: a catalogue needs 'variant' and a [knobs.NAME] table a knob") from None
        if not isinstance(raw_knobs, Mapping) or not raw_knobs:
            raise CatalogueError(f"{where}: no knobs ([knobs.NAME] tables with values = [...])")
        try:
            preset = preset_values(variant)
        except Exception as exc:  # an unknown variant: the presets' own one line
            raise CatalogueError(f"{where}: {str(exc).splitlines()[0]}") from None
        share = float(data.get("preset_share", 0.25))
        changes = tuple(int(c) for c in data.get("changes", (1, 3)))
        if not 0 <= share < 1 or len(changes) != 2 or not 1 <= changes[0] <= changes[1]:
            raise CatalogueError(f"{where}: preset_share must be in [0, 1) and changes [LOW, HIGH] with 1 <= LOW <= "
                                 f"HIGH, got {share} and {list(changes)}")
        knobs: list[CatalogueKnob] = []
        for name, spec in raw_knobs.items():
            try:
                k = knob(name)
            except RuleError as exc:
                raise CatalogueError(f"{where}: {exc}") from None
            if not isinstance(spec, Mapping) or not isinstance(spec.get("values"), list) or not spec["values"]:
                raise CatalogueError(f"{where}: knob {name} needs values = [...] (its values as on the command line)")
            try:
                values = tuple(k.format(k.parse(v if not isinstance(v, bool) else str(v).lower()))
                               for v in spec["values"])
            except RuleError as exc:
                raise CatalogueError(f"{where}: {exc}") from None
            base = k.format(preset[k.name])
            if base not in values:  # the preset's own value is always one the model knows
                values = (base, *values)
            probes = tuple(int(p) for p in spec.get("probes", ()))
            if k.kind == "table" and not probes:
                raise CatalogueError(f"{where}: table knob {name} needs probes = [...] (the keys it is read at)")
            weight = float(spec.get("weight", 1.0))
            if not math.isfinite(weight) or weight <= 0:
                raise CatalogueError(f"{where}: knob {name}'s weight must be a positive number, got {weight}")
            knobs.append(CatalogueKnob(k.name, tuple(dict.fromkeys(values)), weight, probes,
                                       float(spec.get("scale", 1.0)) or 1.0))
        base = data.get("base", {})
        if not isinstance(base, Mapping):
            raise CatalogueError(f"{where}: base must be a table of knob = value, got {base!r}")
        try:
            fixed = tuple(sorted((knob(k).name, knob(k).format(knob(k).parse(str(v)))) for k, v in base.items()))
            load_rules(variant, dict(fixed))
        except RuleError as exc:
            raise CatalogueError(f"{where}: base: {exc}") from None
        pinned = dict(fixed)
        knobs = [k if k.name not in pinned or pinned[k.name] in k.values
                 else CatalogueKnob(k.name, (pinned[k.name], *k.values), k.weight, k.probes, k.scale) for k in knobs]
        limit = data.get("deal_limit", 0)
        if not isinstance(limit, int) or limit < 0:
            raise CatalogueError(f"{where}: deal_limit must be a whole number of deals from 0, got {limit!r}")
        return cls(variant, tuple(knobs), share, (changes[0], changes[1]), source, fixed, limit)

    def to_dict(self) -> dict[str, Any]:
        """The catalogue as a TOML-like table (what a model's metadata and a data folder's settings record)."""
        knobs: dict[str, Any] = {}
        for k in self.knobs:
            entry: dict[str, Any] = {"values": list(k.values)}
            if k.weight != 1.0:
                entry["weight"] = k.weight
            if k.probes:
                entry["probes"], entry["scale"] = list(k.probes), k.scale
            knobs[k.name] = entry
        out: dict[str, Any] = {"variant": self.variant, "preset_share": self.preset_share,
                               "changes": list(self.changes), "knobs": knobs}
        if self.base:
            out["base"] = dict(self.base)
        if self.deal_limit:
            out["deal_limit"] = self.deal_limit
        return out

    # --------------------------------------------------------------------------------------------- features
    def same_features(self, other: Catalogue) -> bool:
        """Whether ``other`` encodes every rule set as this one does (the same knobs, values, probes and scales, in
        order): data drawn from either can be fitted together; the draw weights, base and shares may differ."""
        def layout(cat: Catalogue) -> list[tuple[Any, ...]]:
            return [(k.name, k.values, k.probes, k.scale) for k in cat.knobs]
        return self.variant == other.variant and layout(self) == layout(other)

    def columns(self) -> list[str]:
        """The names of the rule-feature columns, in order."""
        return [c for k in self.knobs for c in k.columns()]

    def encode(self, rules: RuleSet) -> np.ndarray:
        """The rule features of ``rules`` (one value a column of :meth:`columns`): constant for a game."""
        out: list[float] = []
        for k in self.knobs:
            out.extend(k.encode(getattr(rules, k.knob.field)))
        return np.array(out, dtype=np.float64)

    def outside(self, rules: RuleSet) -> str | None:
        """The first way ``rules`` is outside this catalogue, as ``(knob, value, what the model knows)`` text, or
        ``None`` inside it: the variant, every knob not in the catalogue at its preset value (the preset for the
        rule set's table, with :attr:`base`), every catalogue knob at a value it knows."""
        if rules.variant != self.variant:
            return f"variant {rules.variant} (the model knows {self.variant})"
        from simcli.rules.presets import diff

        mine = {k.name: k for k in self.knobs}
        base = dict(self.base)
        players = int(base.get("num_players", preset_values(self.variant)["num_players"]))
        if rules.num_players != players and "num_players" not in mine:  # diff() compares within a player count
            return f"num_players={rules.num_players} (the model knows only {players})"
        changed = diff(rules, load_rules(self.variant, base)) if base else diff(rules)
        for name, (preset, value) in changed.items():
            entry = mine.get(name)
            if entry is None:
                return f"{name}={value} (the model knows only {preset})"
            if not entry.knows(getattr(rules, entry.knob.field)):
                return f"{name}={value} (the model knows {entry.describe()})"
        return None

    # ------------------------------------------------------------------------------------------------- draws
    def draw(self, seed: int, game: int, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The house rules of game ``game``: ``{}`` (the preset, or ``base``) with probability ``preset_share``,
        else one to three catalogue knobs changed to another of their values, from the game's own stream; a draw
        the rules refuse (an impossible combination) is drawn again from the same stream."""
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(game, RULES_STREAM)))
        base = dict(base or {})
        start = load_rules(self.variant, base)
        if rng.random() < self.preset_share:
            return {}
        weights = np.array([k.weight for k in self.knobs], dtype=np.float64)
        for _ in range(100):
            n = int(rng.integers(self.changes[0], self.changes[1] + 1))
            n = min(n, len(self.knobs))
            chosen = rng.choice(len(self.knobs), size=n, replace=False, p=weights / weights.sum())
            changes: dict[str, str] = {}
            for i in sorted(int(c) for c in chosen):
                k = self.knobs[i]
                now = k.knob.format(getattr(start, k.knob.field))
                others = [v for v in k.values if v != now]
                if others:
                    changes[k.name] = others[int(rng.integers(len(others)))]
            if not changes:
                continue
            try:
                load_rules(self.variant, {**base, **changes})
            except RuleError:
                continue
            return dict(sorted(changes.items()))
        return {}


def shipped_catalogue(variant: str) -> Path:
    """The path of a variant's shipped catalogue (it may not exist for a new variant)."""
    return CATALOGUES / f"{variant}.toml"


def load_catalogue(name: str | Path) -> Catalogue:
    """A catalogue from a TOML file, or a shipped one by its variant's name (``classic``)."""
    path = Path(name).expanduser()
    if not path.is_file() and path.name == str(name) and path.suffix != ".toml":  # a bare name (a folder of that
        # name, as a data folder called after its variant, is not a catalogue)
        shipped = shipped_catalogue(str(name))
        if not shipped.is_file():
            have = ", ".join(sorted(p.stem for p in CATALOGUES.glob("*.toml")))
            raise CatalogueError(f"no catalogue {name}: a TOML file, or a shipped one ({have})")
        path = shipped
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CatalogueError(f"catalogue file {path} not found") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CatalogueError(f"catalogue file {path} does not read: {str(exc).splitlines()[0]}") from None
    return Catalogue.from_dict(data, str(path))

