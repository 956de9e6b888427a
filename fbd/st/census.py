"""What the Python writer needs to know about a whole body before it writes a
statement, found in one walk (:func:`census`) and kept with the body.

* how many times each temporary is read and set, and which statement reads
  it (:mod:`.pyemit` writes a temporary read once, by a statement just
  after it, as its expression inside that statement);
* the statements whose own expressions call a FUNCTION (which can fault:
  nothing is moved across them);
* the FUNCTIONs and FB instances the body calls (the generated code's
  globals need them);
* the variables the body stores to (the Python engine writes back only
  those of the variables it holds in locals for a call);
* whether it has a RETURN (a long body's parts look for theirs only then).

A body of 100,000 statements is walked once here instead of once per
question: the generic walkers of :mod:`.ir` (``walk``, ``exprs_of``,
``iter_exprs``) ask ``isinstance`` of every node for every kind it may be.
The counts of the temporaries are most of it (28 MB for 100,000
statements) and only the writer needs them: once a POU's Python is written,
:func:`release` keeps the rest (:class:`Summary`) with the body.
"""

from __future__ import annotations

from . import ir

#: expressions and what they are made of (the others have no parts)
_PARTS = {
    ir.Compare: lambda e: (e.a, e.b), ir.Logic: lambda e: (e.a, e.b),
    ir.Bits: lambda e: (e.a, e.b), ir.Not: lambda e: (e.a,), ir.Invert: lambda e: (e.a,),
    ir.Neg: lambda e: (e.a,), ir.Narrow: lambda e: (e.a,), ir.Copy: lambda e: (e.a,),
    ir.Elem: lambda e: [e.base] + [term for term, _lo, _stride in e.terms],
    ir.Field: lambda e: (e.base,), ir.FnCall: lambda e: e.args,
}


class Census:
    """See the module docstring; ``reader[name]`` is the statement reading a
    temporary, or the ``(pre, condition, body)`` branch of an IF whose
    condition reads it."""
    __slots__ = ("uses", "sets", "reader", "calling", "functions", "instances", "stored",
                 "returns")

    def __init__(self):
        self.uses: dict = {}
        self.sets: dict = {}
        self.reader: dict = {}
        self.calling: set = set()       # id() of each statement calling a FUNCTION itself
        self.functions: dict = {}       # fn_name -> PouInfo of each FUNCTION called
        self.instances: dict = {}       # fn_name -> PouInfo of each FB instance called
        self.stored: set = set()        # the paths of the variables it stores to (upper case)
        self.returns = False            # it has a RETURN


class Summary:
    """What a :class:`Census` says of a body beyond its temporaries: what the
    namespace of its code and the write-back of its locals need for as long as
    the POU runs."""
    __slots__ = ("functions", "instances", "stored", "returns")

    def __init__(self, found: Census):
        self.functions = found.functions
        self.instances = found.instances
        self.stored = found.stored
        self.returns = found.returns


_INPUTS: dict = {}      # (block type, its n) -> the names of its inputs


def inputs_of(block) -> frozenset:
    """The names of a library block's inputs (its other names are places)."""
    key = (type(block), block.n)
    names = _INPUTS.get(key)
    if names is None:
        names = _INPUTS[key] = frozenset(p.name for p in block.input_ports())
    return names


def census(code: ir.PouCode) -> Census:
    """The body's :class:`Census`, made on first use (again after :func:`release`)."""
    found = code.census
    if type(found) is not Census:
        found = code.census = _count(code.body)
    return found


def summary(code: ir.PouCode) -> Census | Summary:
    """The body's functions, FB instances and stored variables (a whole
    :class:`Census` while one is kept)."""
    return code.census or census(code)


def release(code: ir.PouCode) -> None:
    """Let the counts of the body's temporaries go, keeping its :class:`Summary`
    (the writer walks the body again if it writes it again)."""
    if type(code.census) is Census:
        code.census = Summary(code.census)


def _count(body: list) -> Census:
    c = Census()
    sets, stored = c.sets, c.stored
    stack = [body]
    while stack:
        for st in stack.pop():
            kind = type(st)
            if kind is ir.Line:
                continue
            if kind is ir.Return:
                c.returns = True
                continue
            if kind is ir.Assign:
                roots = [st.value, st.target]
                _stores(st.target, stored)
            elif kind is ir.SetTemp:
                sets[st.temp.name] = sets.get(st.temp.name, 0) + 1
                roots = [st.value]
            elif kind is ir.Code:
                inputs = inputs_of(st.block)
                roots, outs = [], []
                for port, e in st.names.items():
                    if port in inputs:
                        roots.append(e)
                    else:
                        outs.append(e)
                for e in outs:
                    if type(e) is ir.Temp:
                        sets[e.name] = sets.get(e.name, 0) + 1
                    else:
                        _stores(e, stored)
                        roots.append(e)
            elif kind is ir.Check:
                sets[st.temp.name] = sets.get(st.temp.name, 0) + 1
                roots = [st.value]
            elif kind is ir.CallFunction:
                sets[st.name] = sets.get(st.name, 0) + 1
                c.functions[st.info.fn_name] = st.info
                roots = list(st.args)
            elif kind is ir.CallFb:
                c.instances.setdefault(st.info.fn_name, st.info)
                roots = list(st.inouts)
                for e in roots:
                    _stores(e, stored)
            elif kind is ir.If:
                roots = []
                for branch in st.branches:     # a condition's reader is its branch
                    pre, cond, body_ = branch
                    if _read([cond], branch, c):
                        c.calling.add(id(st))
                    stack.append(pre)
                    stack.append(body_)
                if st.else_body is not None:
                    stack.append(st.else_body)
            else:
                roots = ir.exprs_of(st)
                stack.extend(ir.children(st))
                if kind is ir.For:
                    _stores(st.var, stored)
            if _read(roots, st, c):
                c.calling.add(id(st))
    return c


def _stores(place, stored: set) -> None:
    var = ir.root_var(place)
    if var is not None:
        stored.add(var.path.upper())


def _read(roots, owner, c: Census) -> bool:
    """Counts the temporaries ``roots`` read (by ``owner``); whether they call a
    FUNCTION."""
    calls = False
    todo = list(roots)
    parts, uses, functions = _PARTS, c.uses, c.functions
    while todo:
        e = todo.pop()
        kind = type(e)
        if kind is ir.Temp:
            uses[e.name] = uses.get(e.name, 0) + 1
            c.reader[e.name] = owner
            continue
        part = parts.get(kind)
        if part is not None:
            todo.extend(part(e))
            if kind is ir.FnCall:
                calls = True
                functions[e.info.fn_name] = e.info
    return calls


__all__ = ["Census", "Summary", "census", "summary", "release", "inputs_of"]
