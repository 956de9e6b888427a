"""Located addresses on network ports: ``at="%IX0.0"`` parsed, checked and kept."""

import pytest

import blocks
from fbd import BOOL, INT, LREAL, REAL, WORD, Network, ValidationError, WiringError, compile_network
from fbd.address import Address, parse


def test_parse_reads_area_size_index_and_bit():
    assert parse("%IX0.3") == Address("I", "X", 0, 3)
    assert parse("%qw12") == Address("Q", "W", 12)
    assert parse("%MD2") == Address("M", "D", 2)
    assert parse("%I1.7") == Address("I", "X", 1, 7)   # IEC: no size letter means a bit
    assert str(parse("%ml4")) == "%ML4"


def test_hierarchical_addresses_are_kept_as_written():
    """IEC allows any number of fields; Beremiz's CANopen and MQTT projects use them."""
    for text in ("%QX75", "%QD0.2", "%IW0.0.2.8192.0", "%IX0.0.1"):
        address = parse(text)
        assert str(address) == text and address.hierarchical
    assert parse("%IW0.0.2.8192.0").fields == (0, 0, 2, 8192, 0)
    assert not parse("%IX0.3").hierarchical and not parse("%QW3").hierarchical


@pytest.mark.parametrize("text, says", [
    ("IX0.0", "not a located address"),
    ("%IX0.8", "out of range"),
    ("%IW" + "9" * 5000, "not a located address"),
    ("%IW0.1.2.3.4.5.6.7.8", "not a located address"),
    ("%ZW0", "not a located address"),
])
def test_parse_rejects_malformed_addresses_naming_the_place(text, says):
    with pytest.raises(WiringError, match=says) as err:
        parse(text, "Prog.X")
    assert "Prog.X" in str(err.value)


def test_network_keeps_the_locations_of_its_inputs_and_outputs():
    net = Network("Io")
    a = net.input("A", BOOL, at="%IX0.0")
    n = net.input("N", INT, at="%IW3")
    net.output("Q", net.add("inv", blocks.NOT(), IN=a).OUT, at="%QX0.1")
    net.output("W", n, at="%QW0")
    net.output("R", 1.5, REAL, at="%MD0")
    assert {k: str(v) for k, v in net.addresses.items()} == {
        "A": "%IX0.0", "N": "%IW3", "Q": "%QX0.1", "W": "%QW0", "R": "%MD0"}


@pytest.mark.parametrize("declare, says", [
    (lambda net: net.input("A", BOOL, at="%QX0.0"), "an input cannot be located at %QX0.0"),
    (lambda net: net.input("A", INT, at="%IX0.0"), "INT needs %IW"),
    (lambda net: net.input("A", LREAL, at="%MD0"), "LREAL needs %ML"),
    (lambda net: net.output("Q", True, BOOL, at="%IX0.0"), "an output cannot be located"),
])
def test_a_location_that_cannot_hold_the_port_is_refused(declare, says):
    net = Network("Bad")
    with pytest.raises(WiringError, match=says):
        declare(net)
    assert not net.addresses


def test_two_ports_at_one_location_are_refused_naming_both():
    net = Network("Twice")
    net.input("A", WORD, at="%IW0")
    with pytest.raises(WiringError, match=r"Twice\.B: %IW0 is already the location of Twice\.A"):
        net.input("B", WORD, at="%IW0")
    assert "B" not in net.inputs


def test_a_polymorphic_output_is_checked_against_its_location_once_its_type_is_known():
    net = Network("Late")
    a = net.input("A", INT)
    net.output("Q", net.add("neg", blocks.NEG(), IN=a).OUT, at="%QX0.0")
    with pytest.raises(ValidationError, match=r"- Q: %QX0\.0 holds 1 bit but INT needs %QW"):
        compile_network(net)
