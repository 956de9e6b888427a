"""The POUs of a project written in ST, IL or SFC: parsed, checked, compiled.

Each such POU becomes the syntax tree a ``.st`` file would give
(:mod:`.textual`, :mod:`.sfc`); the trees of the whole file, with its data
types, are checked together by the semantic layer (:func:`fbd.st.analyze`),
the project's FBD and LD POUs standing in its library as the function blocks
and functions they are, so an ST body may call them. A POU's errors are its
own: one POU that does not check does not stop the others.

Each is then compiled on its own (:func:`fbd.st.compile_unit`), in one unit
with the text POUs it uses and the FBD and LD ones as the ST Beremiz writes
for them (:mod:`.graphical_pou`), this library's own blocks handed to the
compiler as they were built, the file's
data types as the FBD networks have them; its VAR_EXTERNALs hold the
configuration's initial values (:meth:`TextPous.with_globals`). The block
type it gives is what FBD and LD POUs place; :func:`program_network` runs it
alone, as a program or under ``Harness``.
"""

from __future__ import annotations

from ..block import REQUIRED
from ..errors import FbdError
from ..network import Network
from ..st import analyze
from ..st import ast as A
from ..st.errors import StError
from ..st.project import keep_written_inputs
from ..st.stdlib import STANDARD, LibraryPou
from ..types import DataType
from .source import PlcOpenError, child, children, in_file, quote, tag
from .textual import POU_KINDS, PouText, language_of, st_error

#: body languages compiled by the ST compiler (fbd.st); the rest are networks
TEXT_LANGUAGES = ("ST", "IL", "SFC")


class TextPous:
    """The ST, IL and SFC POUs of one file (``importer`` gives the others)."""

    def __init__(self, importer, root):
        self.imp = importer
        self.path = importer.project.path
        self.pt = PouText(self.path)
        self.root = root
        self.trees: dict = {}          # POU name -> ast.Pou
        self.converted: dict = {}      # FBD or LD POU name -> its ST ast.Pou (or its error)
        self.errors: dict = {}         # POU name -> PlcOpenError
        self._types = None
        self._analysis = None
        self._globals = None

    def names(self) -> list:
        return [n for n, el in self.imp.pou_els.items() if n not in self.imp.natives
                and language_of(child(el, "body"))[1] in TEXT_LANGUAGES]

    def tree(self, name: str) -> A.Pou:
        if name in self.errors:
            raise self.errors[name]
        if name not in self.trees:
            try:
                self.trees[name] = self.pt.pou(self.imp.pou_els[name])
            except PlcOpenError as e:
                self.errors[name] = e
                raise
        return self.trees[name]

    def uses(self, name: str) -> list:
        """The project's POUs ``name`` uses: the types of its instances, the functions
        it calls (those others must be built first)."""
        try:
            tree = self.tree(name)
        except PlcOpenError:
            return []
        out = []
        for node in A.iter_nodes(tree):
            used = None
            if isinstance(node, A.NamedType):
                used = node.name
            elif isinstance(node, (A.Call, A.Invoke, A.IlFunction, A.IlFormalCall)):
                used = node.name
            if used is not None:
                pou = self.imp.pou_name(used)
                if pou is not None and pou != name and pou not in out:
                    out.append(pou)
        return out

    def data_type_elements(self) -> list:
        return [dt for types_el in children(self.root, "types")
                for dts in children(types_el, "dataTypes") for dt in children(dts, "dataType")]

    # ------------------------------------------------------------ checking
    def types(self) -> tuple:
        if self._types is None:
            try:
                self._types = self.pt.data_types(self.root)
            except PlcOpenError as e:
                self._types = e
        if isinstance(self._types, PlcOpenError):
            raise self._types
        return self._types

    def analysis(self):
        """The semantic layer's analysis of every text POU that parses, with the data
        types; its errors stay in ``Analysis.errors``, each naming its POU."""
        if self._analysis is None:
            pous = []
            for name in self.names():
                try:
                    pous.append(self.tree(name))
                except PlcOpenError:
                    pass
            unit = A.CompilationUnit(filename=self.path, elements=self.types() + tuple(pous))
            self._analysis = analyze(unit, library=STANDARD.extended(self._graphical()),
                                     check=False)
        return self._analysis

    def check(self, name: str) -> A.Pou:
        """The tree of ``name``, checked: its first semantic error is raised."""
        tree = self.tree(name)
        label = f"{tree.kind} {tree.name}".upper()
        for e in self.analysis().errors:
            if (e.pou or "").upper() == label:
                raise st_error(e)
        return tree

    def _graphical(self, but=frozenset()) -> list:
        """The project's FBD and LD function blocks and functions, and the POUs our
        export wrote for library blocks (all but the names, in capitals, ``but``),
        as the library entries an ST call is checked against."""
        out = []
        for name, el in self.imp.pou_els.items():
            kind = POU_KINDS.get(el.get("pouType") or "")
            if kind not in ("FUNCTION", "FUNCTION_BLOCK") or name.upper() in but:
                continue
            if name not in self.imp.natives and \
                    language_of(child(el, "body"))[1] in TEXT_LANGUAGES:
                continue
            groups = {tag(g): [v.get("name") or "" for v in children(g, "variable")]
                      for g in (child(el, "interface") if child(el, "interface") is not None
                                else [])}
            upper = [[n.upper() for n in groups.get(g, [])]
                     for g in ("inputVars", "outputVars", "inOutVars", "localVars")]
            outputs = tuple(upper[1]) + (("OUT",) if kind == "FUNCTION" else ())
            out.append(LibraryPou(name, kind, tuple(upper[0]), outputs, tuple(upper[2]),
                                  internals=tuple(upper[3]) if kind == "FUNCTION_BLOCK" else ()))
        return out

    # ------------------------------------------------------------ building
    def build(self, name: str):
        """The block class the POU ``name`` compiles to."""
        tree = self.check(name)
        try:
            return self._compile(tree)
        except PlcOpenError:
            raise
        except StError as e:
            raise st_error(e) from None
        except FbdError as e:
            raise in_file(self.path, f"POU {quote(tree.name)}: {e}") from None

    def _compile(self, tree):
        from ..st import compile_unit
        texts, extra = self.dependencies(tree.name)
        unit = A.CompilationUnit(filename=self.path,
                                 elements=tuple(self.with_globals(self.unit_tree(n))
                                                for n in texts) + (self.with_globals(tree),),
                                 source=self.pt.source.text())
        # the FBD and LD POUs in the unit are its POUs, not library entries
        library = STANDARD.extended(self._graphical(but={tree.name.upper()} | {
            n.upper() for n in texts}))
        compiled = compile_unit(unit, filename=self.path, library=library,
                                types=self.engine_types(), extra_blocks=extra)
        if tree.name in compiled.errors:
            raise in_file(self.path, f"POU {quote(tree.name)}: {compiled.errors[tree.name]}")
        return compiled[tree.name]

    def dependencies(self, name: str):
        """What POU ``name`` uses, all the way down: the POUs compiled with it, in one
        unit, as a ``.st`` file's (the text POUs, and the FBD and LD ones as the ST
        Beremiz writes for them, :mod:`.graphical_pou`), and the blocks handed over
        as built (this library's own). A POU used that did not build raises its
        error."""
        texts, extra, seen = [], {}, {name}
        stack = list(reversed(self.uses(name) if self.is_text(name) else self.imp._uses(name)))
        while stack:
            used = stack.pop()
            if used in seen:
                continue
            seen.add(used)
            built = self.imp.placeable(used)      # its own error, if it has one
            if used in self.imp.natives:
                extra[used] = built
                continue
            texts.append(used)
            stack.extend(reversed(self.uses(used) if self.is_text(used)
                                  else self.imp._uses(used)))
        return texts, extra

    def is_text(self, name: str) -> bool:
        return self.imp.project.languages.get(name) in TEXT_LANGUAGES

    def unit_tree(self, name: str) -> A.Pou:
        """The tree POU ``name`` has in a unit: its own (ST, IL, SFC) or, for an FBD or
        LD POU, the ST Beremiz writes for it."""
        if self.is_text(name):
            return self.tree(name)
        if name not in self.converted:
            from .graphical_pou import graphical_pou
            try:
                self.converted[name] = graphical_pou(self.imp, name)
            except PlcOpenError as e:
                self.converted[name] = e
        if isinstance(self.converted[name], PlcOpenError):
            raise self.converted[name]
        return self.converted[name]

    def as_text_block(self, name: str):
        """The block class the FBD or LD POU ``name`` compiles to as the ST Beremiz
        writes for it: what a text POU holding it runs (and what the tests compare
        with the POU's network)."""
        try:
            return self._compile(self.unit_tree(name))
        except PlcOpenError:
            raise
        except StError as e:
            raise st_error(e) from None
        except FbdError as e:
            raise in_file(self.path, f"POU {quote(name)}: {e}") from None

    def engine_types(self) -> dict:
        """The file's data types as the FBD networks have them (one DataType each, so
        a wire between an FBD block and an ST one joins the same type)."""
        out = {}
        for dt in self.data_type_elements():
            name = dt.get("name") or ""
            try:
                tp = self.imp.data_types.named(name)
            except PlcOpenError:
                continue          # its error is the error of the POUs using it
            if tp is not None:
                out[name.upper()] = tp
        return out

    def _global_vars(self) -> dict:
        """The first configuration's globals: NAME -> (<variable>, constant)."""
        out = {}
        for insts in children(self.root, "instances"):
            for confs in children(insts, "configurations"):
                for conf in children(confs, "configuration")[:1]:
                    for holder in [conf] + children(conf, "resource"):
                        for group in children(holder, "globalVars"):
                            constant = (group.get("constant") or "").strip().lower() in (
                                "true", "1")
                            for v in children(group, "variable"):
                                out.setdefault((v.get("name") or "").upper(), (v, constant))
        return out

    def globals_decls(self) -> dict:
        """The configuration's globals: NAME -> (VarDecl, constant)."""
        if self._globals is None:
            self._globals = {}
            for key, (v, constant) in self._global_vars().items():
                try:
                    self._globals[key] = (self.pt.var_decl(v, "configuration"), constant)
                except PlcOpenError:
                    continue      # the configuration reports it
        return self._globals

    def global_elements(self, name: str) -> list:
        """The globals the VAR_EXTERNALs of POU ``name`` name: (<variable>, constant)."""
        el = self.imp.pou_els[name]
        wanted = {(v.get("name") or "").upper() for g in children(child(el, "interface"),
                                                                 "externalVars")
                  for v in children(g, "variable")}
        found = self._global_vars()
        return [found[k] for k in sorted(wanted) if k in found]

    def with_globals(self, tree):
        """``tree`` with each VAR_EXTERNAL a variable of its own holding the global's
        initial value (CONSTANT if the global is): what an FBD POU's external is
        when it runs alone or inside a block; a configuration shares a program's
        through :meth:`externals`."""
        blocks = []
        for vb in tree.var_blocks:
            if vb.kind != "VAR_EXTERNAL":
                blocks.append(vb)
                continue
            decls = []
            for d in vb.decls:
                glob = self.globals_decls().get((d.name or "").upper())
                init = glob[0].init if glob is not None else None
                decls.append(A.VarDecl(name=d.name, spec=d.spec, init=init, line=d.line,
                                       col=d.col))
            constant = vb.qualifier == "CONSTANT"
            blocks.append(A.VarBlock(kind="VAR", qualifier="CONSTANT" if constant else None,
                                     decls=tuple(decls), line=vb.line, col=vb.col))
        return A.Pou(kind=tree.kind, name=tree.name, return_type=tree.return_type,
                     var_blocks=tuple(blocks), body=tree.body, line=tree.line, col=tree.col)

    def externals(self, name: str) -> dict:
        """The non-constant VAR_EXTERNALs of the program ``name``: NAME -> declared name."""
        tree = self.tree(name)
        return {d.name.upper(): d.name for vb in tree.var_blocks if vb.kind == "VAR_EXTERNAL"
                and vb.qualifier != "CONSTANT" for d in vb.decls if d.name}


def program_network(name: str, block, doc: str = "") -> Network:
    """The network that runs ``block`` alone, one instance named like the POU: its
    inputs the network's (with their defaults; a PROGRAM's ``AT %I`` variables at
    their address), its outputs the network's, so the POU runs, is traced and
    forced like an FBD one (``Harness``, ``project.plc()``); its state reads as
    ``Name.x``, ``Name.T1.Q``."""
    net = Network(name, doc=doc)
    info = getattr(type(block), "st_info", None)
    where = {}
    for v in (info.inputs + info.outputs) if info is not None else ():
        loc = getattr(getattr(v, "node", None), "location", None)
        if loc is not None:
            where[v.name] = loc.text
    wires = {}
    for port in block.input_ports():
        default = port.default
        if default is REQUIRED and isinstance(port.type, DataType):
            default = port.type.to_python(port.type.default)
        wires[port.name] = net.input(port.name, port.type, default, at=where.get(port.name))
    inst = net.add(name, block, **wires)
    if info is not None:
        keep_written_inputs(net, inst)
    for port in block.output_ports():
        net.output(port.name, inst.port(port.name),
                   port.type if isinstance(port.type, DataType) else None, at=where.get(port.name))
    return net


__all__ = ["TextPous", "TEXT_LANGUAGES", "program_network"]
