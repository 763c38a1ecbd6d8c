"""The package's shape holds (docs/architecture.md): no import cycle, each layer
imports only the layers below it, short classes and modules in the league and
seats layers, a backend is one module. `bench/architecture.py` measures the same
graph and sizes and prints them."""

from __future__ import annotations

import pytest
from bench.architecture import cycles, import_graph, sizes

from coworld.league.backends import backend_names, make_backend

#: The goals of the league and seats layers (lines).
MAX_CLASS, MAX_MODULE = 200, 450

#: Each layer, bottom up, by module prefix; a module imports only its own layer and
#: those below (the core, `coworld._core`, is below them all).
LAYERS = [
    (
        "foundation",
        (
            "coworld.errors",
            "coworld.usage",
            "coworld.prices",
            "coworld.clock",
            # the reply format every seat sends and every family parses
            "coworld.seats.reply",
            "coworld.seats.jsonreply",
        ),
    ),
    ("games", ("coworld.sdk", "coworld.games")),
    ("seats", ("coworld.seats",)),
    ("episode", ("coworld.episode", "coworld.replay", "coworld.calls", "coworld.streams")),
    ("league", ("coworld.league",)),
    ("faces", ("coworld.viewer", "coworld.cli")),
]


#: The one import up the layers: a league that fields a person serves the seat's
#: page with the viewer (started only then, from inside the function that needs it).
UPWARD = {("coworld.league.human_host", "coworld.viewer")}


def layer_of(module: str) -> int | None:
    for i, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return i
    return None


def test_no_import_cycle_in_the_package():
    """Function-local and type-checking imports count: a cycle is a cycle."""
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_each_layer_imports_only_the_layers_below():
    upward = []
    for module, targets in import_graph().items():
        mine = layer_of(module)
        for target in targets:
            theirs = layer_of(target)
            if mine is not None and theirs is not None and theirs > mine:
                upward.append((module, target))
    assert set(upward) == UPWARD


@pytest.mark.parametrize("layer", ["coworld.league", "coworld.seats"])
def test_the_league_and_seats_layers_keep_classes_and_modules_short(layer):
    modules, classes = sizes()
    long_modules = [(n, m) for n, m in modules if m.startswith(layer) and n > MAX_MODULE]
    long_classes = [(n, c) for n, c in classes if c.startswith(layer) and n > MAX_CLASS]
    assert long_modules == [] and long_classes == []


def test_a_backend_is_a_module_of_the_backends_package():
    assert backend_names() == ["local", "ray"]
    backend = make_backend("local")
    try:
        assert backend.in_driver and not backend.interrupted
    finally:
        backend.close()


def test_an_unknown_backend_names_the_known_ones():
    from coworld.errors import ConfigError

    with pytest.raises(ConfigError, match="backends: local, ray"):
        make_backend("nowhere")
    with pytest.raises(ConfigError, match="unknown backend 'base'"):
        make_backend("base")  # a module of the package that is not a backend
