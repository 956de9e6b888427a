"""The syntax tree's nodes as the parser builds them fast: still frozen
dataclasses with their defaults, classes the compiler may dispatch on by
identity, and names and integer texts stored once per spelling."""

import dataclasses

import pytest

from fbd.st import ast as A
from fbd.st import parse_body


def _node_classes():
    return [c for c in vars(A).values() if isinstance(c, type) and issubclass(c, A.Node)]


def test_no_node_class_has_a_subclass_so_dispatch_by_identity_is_exact():
    # resolution and typing test `e.__class__ is A.Name` ...: a subclass would slip past
    assert [c.__name__ for c in _node_classes() if c is not A.Node and c.__subclasses__()] == []


def test_a_node_keeps_the_defaults_and_the_checks_of_its_dataclass():
    lit = A.Literal(kind="int", value=5, line=3)
    assert (lit.type_name, lit.text, lit.line, lit.col) == (None, "", 3, 0)
    assert A.CompilationUnit(filename="f.st", elements=()).source == ""
    assert dataclasses.replace(lit, value=6).value == 6
    with pytest.raises(dataclasses.FrozenInstanceError):
        lit.value = 7
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'value'"):
        A.Literal(kind="int")
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        A.Name(name="a", colour=1)
    with pytest.raises(TypeError):
        A.Name("a")                     # keywords only, as the dataclass has it


def test_every_node_class_builds_with_its_own_fields():
    for cls in _node_classes():
        fields = {f.name: None for f in dataclasses.fields(cls)
                  if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
        node = cls(**fields, line=4, col=2)
        assert (node.line, node.col) == (4, 2)
        assert all(getattr(node, name) is None for name in fields)


def test_a_name_or_an_integer_spelled_many_times_is_stored_once():
    body = parse_body("counter := counter + 10;\nlimit := counter * 10;")
    first, second = body.statements
    names = [first.target.name, first.value.left.name, second.value.left.name]
    assert names == ["counter"] * 3 and names[0] is names[1] is names[2]
    assert first.value.right.text == "10" and first.value.right.text is second.value.right.text
