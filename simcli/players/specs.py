"""Strategy specs: the text ``NAME:key=value,...`` that names a strategy and its options, and lists of specs.

A strategy spec is ``NAME`` or ``NAME:key=value,...``; the options are passed to the class as keyword
arguments (``Class(rng, **options)``), checked against its ``__init__`` signature (:func:`typed_options`). A
``--strategies`` value is a comma-separated list of specs (:func:`split_strategy_list`): one for every seat, one
per team (seated alternately) or one per seat (:func:`seat_specs`).

This module reads the text only and imports no strategy: :mod:`simcli.players.loading` finds the class a spec
names (``load_strategy``) and builds it with its options (``strategy_options``, ``strategy_factory``).
"""

from __future__ import annotations

import inspect
from typing import Any


class StrategyLookupError(ValueError):
    """A strategy name that is neither built in, importable, nor registered."""


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``NAME:key=value,key=value`` into NAME and the raw option texts.

    The options follow the LAST colon when what follows it contains ``=`` (so ``module:Class`` and
    ``mine.py:Class`` keep their colon).
    """
    head, colon, tail = spec.rpartition(":")
    if not colon or "=" not in tail:
        return spec, {}
    if not head:
        raise StrategyLookupError(f"bad strategy '{spec}': no strategy name before the options")
    raw: dict[str, str] = {}
    for token in tail.split(","):
        key, eq, value = token.partition("=")
        key = key.strip()
        if not eq or not key.isidentifier():
            raise StrategyLookupError(f"bad option '{token}' in strategy '{spec}': expected key=value")
        if key in raw:
            raise StrategyLookupError(f"option '{key}' given twice in strategy '{spec}'")
        raw[key] = value.strip()
    return head, raw


def parse_option_value(text: str) -> Any:
    """An option value: an int, a float, ``true``/``false``, else the string itself."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _coerce(value: Any, text: str, default: Any, key: str, spec: str) -> Any:
    """``value`` checked against the type of the option's default (no default: taken as parsed)."""
    def bad(expected: str) -> StrategyLookupError:
        return StrategyLookupError(
            f"bad value '{text}' for option '{key}' of strategy '{spec}': expected {expected} (default {default!r})"
        )

    if default is inspect.Parameter.empty or default is None:
        return value
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("an integer")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise bad("a number")
        return float(value)
    if isinstance(default, str):
        return text
    return value


def typed_options(cls: type, spec: str) -> tuple[tuple[str, Any], ...]:
    """The options of ``spec`` (``NAME:key=value,...``) as ``(key, value)`` pairs, typed and checked against the
    ``__init__`` of ``cls``, the class ``NAME`` names: each key must be a parameter (or ``cls`` takes ``**kwargs``),
    each value fit the type of the parameter's default, and every parameter without a default be given."""
    target, raw = split_spec(spec)
    if not raw:
        return ()
    try:
        params = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        params = []
    params = params[1:]  # the first parameter is the random stream
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params)
    named = {p.name: p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    allowed = ", ".join(f"{k}={p.default!r}" if p.default is not p.empty else k for k, p in named.items())
    out = []
    for key, text in raw.items():
        if key not in named and not takes_any:
            hint = f"allowed: {allowed}" if named else "it takes no options"
            raise StrategyLookupError(f"unknown option '{key}' for strategy '{target}' in '{spec}'; {hint}")
        default = named[key].default if key in named else inspect.Parameter.empty
        out.append((key, _coerce(parse_option_value(text), text, default, key, spec)))
    missing = [k for k, p in named.items() if p.default is p.empty and k not in raw]
    if missing:
        raise StrategyLookupError(f"strategy '{spec}' needs option(s) {', '.join(missing)}; allowed: {allowed}")
    return tuple(out)


def seat_specs(names: list[str], num_players: int, n_teams: int | None = None) -> list[str]:
    """One spec per seat from a ``--strategies`` list: one spec fills every seat; one per team (when teams have
    several players) seats them alternately, as teams sit (seat ``s`` plays for team ``s % n_teams``, as ``match``
    seats A and B); otherwise one per seat. ``n_teams`` defaults to one team per seat (cut-throat)."""
    teams = num_players if n_teams is None else n_teams
    if len(names) == 1:
        return names * num_players
    if len(names) == num_players:
        return list(names)
    if len(names) == teams:
        return [names[s % teams] for s in range(num_players)]
    if teams == num_players:
        # Cut-throat (or heads-up): every player is a team of its own, so there is no "one per team" to fill.
        why = "each player is a team of its own" if num_players > 2 else "heads-up"
        raise StrategyLookupError(
            f"got {len(names)} strategies for {num_players} seats ({why}); give one name for every seat or one "
            f"per seat ({num_players})"
        )
    raise StrategyLookupError(
        f"got {len(names)} strategies for {num_players} seats in {teams} teams of {num_players // teams}; give "
        f"one name for every seat, one per team ({teams}, seated alternately: seat s plays for team s % {teams}) "
        f"or one per seat ({num_players})"
    )


def split_strategy_list(text: str) -> list[str]:
    """Split a comma-separated ``--strategies`` value into specs.

    A ``key=value`` token without a colon continues the previous entry's options:
    ``mc:samples=32,depth=2,greedy`` is ``["mc:samples=32,depth=2", "greedy"]``.
    """
    entries: list[str] = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        if "=" in token and ":" not in token:
            if not entries or not split_spec(entries[-1])[1]:
                after = f" after '{entries[-1]}'" if entries else ""
                raise StrategyLookupError(
                    f"option '{token}'{after} belongs to no strategy; write NAME:{token}"
                )
            entries[-1] += "," + token
        else:
            entries.append(token)
    return entries
