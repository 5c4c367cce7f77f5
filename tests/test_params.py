"""Player parameters: every value checked against the player's declaration,
one line naming the parameter, what it got and what it accepts."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import players
from players.params import Param


@pytest.mark.parametrize(
    "spec, message",
    [
        ("uct:c=abc", "player uct: c=abc: expected a number >= 0"),
        ("uct:c=-1", "player uct: c=-1: expected a number >= 0"),
        (
            "uct:reasoner=bogus",
            "player uct: reasoner=bogus: expected one of compiled, demand, reference",
        ),
        ("mast:policy=bogus", "player mast: policy=bogus: expected one of egreedy, gibbs"),
        ("uct:discount=abc", r"player uct: discount=abc: expected a number in \(0, 1\]"),
        ("uct:discount=0", r"player uct: discount=0: expected a number in \(0, 1\]"),
        ("random:seed=x", "player random: seed=x: expected an integer >= 0"),
        ("uct:simulations=abc", "player uct: simulations=abc: expected an integer >= 1"),
        ("uct:simulations=0", "player uct: simulations=0: expected an integer >= 1"),
        ("uct:simulations=2.5", "player uct: simulations=2.5: expected an integer >= 1"),
        ("uct:transpositions=maybe", "player uct: transpositions=maybe: expected true or false"),
        ("mast:tau=0", "player mast: tau=0: expected a number > 0"),
        ("mast:epsilon=1.5", r"player mast: epsilon=1.5: expected a number in \[0, 1\]"),
        ("uct:c=nan", "player uct: c=nan: expected a number >= 0"),
        ("uct:policy=gibbs", "player uct: unknown parameter policy"),
        ("uct:decay=0.5", "player uct: unknown parameter decay"),
        ("efg-uct:gamma=0.5", "player efg-uct: unknown parameter gamma"),
        (
            "smooth-uct:final=average",
            "player smooth-uct: final=average: expected one of visits, sample",
        ),
        ("uct:c=1,c=2", "given twice"),
        # once accepted, then an OverflowError in the C search at every move
        (
            "uct:simulations=99999999999999999999999",
            "player uct: simulations=99999999999999999999999: "
            "expected an integer >= 1 and at most 9,223,372,036,854,775,807 ",
        ),
        (
            "mccfr:iterations=9223372036854775808",
            "iterations=9223372036854775808: expected an "
            "integer >= 1 and at most 9,223,372,036,854,775,807",
        ),
    ],
)
def test_a_bad_value_names_the_parameter_and_what_it_accepts(spec, message):
    with pytest.raises(ValueError, match=message):
        players.make(spec)


def test_values_are_converted_by_the_declaration():
    p = players.make("lgr:c=12,simulations=30,transpositions=true,fallback=mast,k=3,seed=4")
    assert (p.c, p.simulations, p.transpositions, p.fallback, p.k, p.seed) == (
        12.0,
        30,
        True,
        "mast",
        3,
        4,
    )
    assert isinstance(p.c, float)
    assert p.policy_params == {
        "select": "egreedy",
        "epsilon": 0.4,
        "tau": 10.0,
        "max_n": 3,
        "k": 3,
        "fallback": "mast",
        "replies": "both",
        "forget": True,
    }
    assert players.make("uct").simulations is None  # on the clock
    # Python values work as spec text does
    assert players.registry.player_class("uct")(c=3, simulations=5).c == 3.0


def test_every_player_describes_its_parameters():
    listing = {p["name"]: p for p in players.registry.describe()}
    assert set(listing) == set(players.names())
    uct = {p["name"]: p for p in listing["uct"]["params"]}
    assert uct["c"] == {
        "name": "c",
        "type": "number",
        "default": 40.0,
        "accepts": "a number >= 0",
        "help": uct["c"]["help"],
        "min": 0,
        "min_excluded": False,
    }
    assert uct["final"]["choices"] == ["visits", "average", "best", "mixed"]
    assert listing["uct"]["description"]
    for entry in listing.values():  # every default passes its own check
        cls = players.registry.player_class(entry["name"])
        for param in cls.params:
            assert param.convert(param.default) == param.default


def test_the_largest_integer_the_c_code_holds_is_taken():
    assert players.make("uct:simulations=9223372036854775807").simulations == 2**63 - 1
    assert Param("x", int, 1, "", low=1).describe()["max"] == 2**63 - 1


def test_accepts_in_words():
    assert (
        Param("x", float, 1.0, "", low=0, high=1, low_open=True).accepts() == "a number in (0, 1]"
    )
    assert Param("x", int, 1, "", low=1).accepts() == "an integer >= 1"
    assert Param("x", str, "a", "", choices=("a", "b")).accepts() == "one of a, b"


SPEC_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(players.names() + ["nobody", ""]),
    items=st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "c",
                    "seed",
                    "simulations",
                    "discount",
                    "final",
                    "policy",
                    "epsilon",
                    "tau",
                    "k",
                    "fallback",
                    "margin",
                    "reasoner",
                    "gamma",
                    "transpositions",
                    "x",
                ]
            )
            | SPEC_TEXT,
            SPEC_TEXT,
        ),
        max_size=4,
    ),
    raw=SPEC_TEXT,
)
def test_random_specs_make_a_player_or_one_line_error(name, items, raw):
    """Whatever the spec, make() gives a player or a one-line ValueError."""
    spec = name + ":" + ",".join(f"{k}={v}" for k, v in items) + raw
    try:
        player = players.make(spec)
    except ValueError as exc:
        assert "\n" not in str(exc) and str(exc)
    else:
        assert player.name == name


def test_every_player_is_described_by_a_whole_sentence_without_markup():
    """``ggp players`` gives whole sentences without ``:class:`` markup (it once
    cut 6 of 14 descriptions mid-sentence, at the docstring's first line)."""
    for entry in players.registry.describe():
        text = entry["description"]
        assert text.endswith(".") and text.count("(") == text.count(")"), text
        assert ":class:" not in text and "``" not in text and "\n" not in text
