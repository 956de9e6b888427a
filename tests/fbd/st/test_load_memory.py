"""What loading an ST source keeps once its POUs are compiled: one of each
thing a long body repeats, nothing the engines no longer need."""

from fbd.library import load_libraries
from fbd.st import compile_unit, ir, parse
from fbd.st.project import load
from fbd.testing import Harness

load_libraries()

_COUNTER = """PROGRAM prg
  VAR a, b : INT; END_VAR
  a := b + b;
  b := a - b;
  IF a > b THEN a := b; END_IF;
END_PROGRAM
"""


def _exprs(code, cls) -> list:
    return [e for stmt in ir.walk(code.body) for top in ir.exprs_of(stmt)
            for e in ir.iter_exprs(top) if isinstance(e, cls)]


def test_every_read_and_write_of_a_variable_in_a_body_is_the_same_ref():
    info = compile_unit(parse(_COUNTER)).infos["prg"]
    refs = _exprs(info.code, ir.Ref)
    by_name = {}
    for r in refs:
        by_name.setdefault(r.var.name, set()).add(id(r))
    assert len(refs) >= 8 and {name: len(ids) for name, ids in by_name.items()} == {"a": 1, "b": 1}


def test_an_integer_literal_repeated_in_a_body_is_one_const_per_value_and_type():
    text = """PROGRAM prg
  VAR a : INT; w : WORD; END_VAR
  a := a + 7; a := a * 7; a := a - 2; w := w OR 7;
END_PROGRAM
"""
    consts = _exprs(compile_unit(parse(text)).infos["prg"].code, ir.Const)
    distinct = {id(c): (c.value, c.type.name) for c in consts}
    assert len(consts) == 4 and sorted(distinct.values()) == [(2, "INT"), (7, "INT"), (7, "WORD")]


def test_the_map_of_each_use_to_its_symbol_is_let_go_once_every_pou_is_compiled():
    compiled = compile_unit(parse(_COUNTER))
    assert compiled.context.analysis.resolved == {}
    h = Harness(load("prg.st", text=_COUNTER).network("prg"), engine="python")
    h.write("prg.b", 3)
    h.scan(1)
    assert (h.get("prg.a"), h.get("prg.b")) == (3, 3)     # matiec's first scan with b = 3


def test_the_python_of_an_st_program_is_not_kept_but_written_again_for_its_source():
    h = Harness(load("prg.st", text=_COUNTER).network("prg"), engine="python")
    program = h.plc.program
    assert program._chunk_src == ["def _chunk_0(s, now):\n    # prg: prg\n    _p0(s, now)\n"]
    assert "def _p0(s, now):" in program.source()
    assert program.source() == program.source()


_WITH_FB = """FUNCTION_BLOCK fb
  VAR_INPUT x : INT; END_VAR
  VAR n : INT; END_VAR
  n := n + x;
END_FUNCTION_BLOCK
PROGRAM prg
  VAR a, b : INT; f : fb; END_VAR
  f(x := a);
  b := f.n + 1;
END_PROGRAM
"""


def test_the_python_writer_is_freed_as_soon_as_it_has_written_without_the_collector(
        monkeypatch):
    import gc
    import weakref

    from fbd.st import pyemit
    made = []
    init = pyemit.PyEmitter.__init__

    def tracked(self, *args, **kwargs):
        made.append(weakref.ref(self))
        init(self, *args, **kwargs)
    monkeypatch.setattr(pyemit.PyEmitter, "__init__", tracked)
    project = load("fb.st", text=_WITH_FB)
    was = gc.isenabled()
    gc.disable()        # as a big build pauses it
    try:
        h = Harness(project.network("prg"), engine="python")
        assert len(made) >= 2 and all(ref() is None for ref in made)
    finally:
        if was:
            gc.enable()
    h.write("prg.a", 4)
    h.scan(2)
    assert (h.get("prg.f.n"), h.get("prg.b")) == (8, 9)


def test_the_counts_of_the_temporaries_are_let_go_once_the_python_is_written():
    from fbd.st.census import Summary
    h = Harness(load("prg.st", text=_COUNTER).network("prg"), engine="python")
    code = h.plc.program.leaves[0].block.procedure.info.code
    assert type(code.census) is Summary and code.census.stored == {"A", "B"}
    h.write("prg.b", 3)
    h.scan(1)
    assert (h.get("prg.a"), h.get("prg.b")) == (3, 3)
