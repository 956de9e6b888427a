"""A corpus of hostile and broken PLCopen files, made by code (no file is stored).

Each case is a small file that once crashed, hung, ate memory or misled the
importer, or one that tries to: a DTD that changes attribute defaults, an
entity bomb, a marker asking for five million inputs, numbers with thousands
of digits, chains a thousand elements deep, names a megabyte long.
:func:`cases` yields them with what must happen: the file is refused (at
``stage``: loading it, building a POU, or running its configuration) with an
error containing ``expect``; or, for ``expect=None``, it imports and runs.

    python -m tests.robustness.plcopen_corpus DIR    # write the corpus as files
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

NS = "http://www.plcopen.org/xml/tc6_0201"
HEADER = ('<fileHeader companyName="t" productName="t" productVersion="1" '
          'creationDateTime="2024-01-01T00:00:00"/><contentHeader name="t"><coordinateInfo>'
          '<fbd><scaling x="1" y="1"/></fbd><ld><scaling x="1" y="1"/></ld>'
          '<sfc><scaling x="1" y="1"/></sfc></coordinateInfo></contentHeader>')


@dataclass
class Case:
    name: str
    data: bytes
    stage: str            # "load" | "pou" | "plc"
    expect: str | None    # a fragment of the error, or None: it imports
    pou: str = "Main"


def project(pous: str, config: str = "", ns: str = NS, prolog: str = "", data_types="") -> bytes:
    return (f'<?xml version="1.0" encoding="utf-8"?>{prolog}<project xmlns="{ns}">{HEADER}'
            f"<types><dataTypes>{data_types}</dataTypes><pous>{pous}</pous></types>"
            f"<instances><configurations>{config}</configurations></instances>"
            f"</project>").encode()


def pou(name, iface, body, kind="program", lang="FBD", extra=""):
    return (f'<pou name="{name}" pouType="{kind}"><interface>{iface}</interface>'
            f"<body><{lang}>{body}</{lang}></body>{extra}</pou>")


def st_pou(name, iface, text, kind="program"):
    """A POU whose body is Structured Text, as Beremiz writes one."""
    return pou(name, iface, f'<xhtml:p xmlns:xhtml="http://www.w3.org/1999/xhtml"><![CDATA[{text}]]>'
                            f"</xhtml:p>", kind, lang="ST")


def var(name, tp, init=None, at=None):
    iv = f'<initialValue><simpleValue value="{init}"/></initialValue>' if init is not None else ""
    address = f' address="{at}"' if at else ""
    return f'<variable name="{name}"{address}><type><{tp}/></type>{iv}</variable>'


def inv(lid, expr):
    return (f'<inVariable localId="{lid}"><position x="0" y="0"/><connectionPointOut/>'
            f"<expression>{expr}</expression></inVariable>")


def outv(lid, expr, ref, pin=None):
    fp = f' formalParameter="{pin}"' if pin else ""
    return (f'<outVariable localId="{lid}"><position x="0" y="0"/><connectionPointIn>'
            f'<connection refLocalId="{ref}"{fp}/></connectionPointIn>'
            f"<expression>{expr}</expression></outVariable>")


def task(interval="T#20ms", priority="0", program="Main"):
    return (f'<configuration name="c"><resource name="r"><task name="t" priority="{priority}" '
            f'interval="{interval}"><pouInstance name="i" typeName="{program}"/></task>'
            f"</resource></configuration>")


OUT_INT = "<outputVars>" + var("O", "INT") + "</outputVars>"
MARKED = ('<addData><data name="urn:fbd-sim:native" handleUnknown="preserve">'
          '<fbd:native xmlns:fbd="urn:fbd-sim" block="ADD" types="T=INT" params="{params}"/>'
          "</data></addData>")


def _connector_chain(n: int) -> str:
    """O := 1 through ``n`` connector/continuation pairs, each feeding the next."""
    body = inv(1, "1")
    ref = 1
    for k in range(n):
        c, c2 = 10 + 2 * k, 11 + 2 * k
        body += (f'<connector name="c{k}" localId="{c}"><position x="0" y="0"/>'
                 f'<connectionPointIn><connection refLocalId="{ref}"/></connectionPointIn>'
                 f"</connector>"
                 f'<continuation name="c{k}" localId="{c2}"><position x="0" y="0"/>'
                 f"<connectionPointOut/></continuation>")
        ref = c2
    return body + outv(2, "O", ref)


def _nested_pous(depth: int) -> str:
    """F0 places F1 places ... F<depth>; Main places F0."""
    out = []
    for k in range(depth):
        inner = (f'<block localId="1" typeName="F{k + 1}" instanceName="f"><position x="0" y="0"/>'
                 f"<inputVariables/><inOutVariables/><outputVariables/></block>"
                 if k + 1 < depth else "")
        out.append(pou(f"F{k}", "", inner, kind="functionBlock"))
    main = pou("Main", "", '<block localId="1" typeName="F0" instanceName="f"><position x="0" '
                           'y="0"/><inputVariables/><inOutVariables/><outputVariables/></block>')
    return "".join(out) + main


def _wide_block(n: int) -> str:
    pins = "".join(f'<variable formalParameter="IN{k}"><connectionPointIn><connection '
                   f'refLocalId="1"/></connectionPointIn></variable>' for k in range(1, n + 1))
    return (inv(1, "1") + f'<block localId="2" typeName="ADD"><position x="0" y="0"/>'
            f"<inputVariables>{pins}</inputVariables><inOutVariables/><outputVariables>"
            f'<variable formalParameter="OUT"><connectionPointOut/></variable>'
            f"</outputVariables></block>" + outv(3, "O", 2, "OUT"))


def cases():
    digits = "9" * 400      # beyond any literal's 200 characters
    many = "9" * 100        # a literal, but beyond any TIME
    main_ok = pou("Main", OUT_INT, inv(1, "3") + outv(2, "O", 1))
    yield Case("attlist-default", project(
        pou("Main", "<inputVars>" + var("A", "BOOL") + "</inputVars><outputVars>"
            + var("Q", "BOOL") + "</outputVars>", inv(1, "A") + outv(2, "Q", 1)),
        prolog='<!DOCTYPE project [<!ATTLIST inVariable negated CDATA "true">]>'),
        "load", "declares a DTD internal subset")
    yield Case("billion-laughs", project(main_ok, prolog=(
        "<!DOCTYPE project [" + '<!ENTITY a0 "ha">' + "".join(
            f'<!ENTITY a{i} "{("&a%d;" % (i - 1)) * 10}">' for i in range(1, 10)) + "]>")),
        "load", "")   # not well-formed or an internal subset: either way refused
    yield Case("external-entity", project(main_ok.replace("3", "&x;", 1), prolog=(
        '<!DOCTYPE project [<!ENTITY x SYSTEM "file:///etc/passwd">]>')),
        "load", "declares a DTD internal subset")
    yield Case("marker-five-million-inputs", project(
        pou("FBD_ADD", "", "", kind="functionBlock", lang="FBD",
            extra=MARKED.format(params="{&quot;n&quot;: 5000000}")) + main_ok),
        "pou", "asks for n=5000000 inputs", pou="FBD_ADD")
    yield Case("marker-params-nested", project(
        pou("FBD_ADD", "", "", kind="functionBlock",
            extra=MARKED.format(params="[" * 50_000 + "]" * 50_000)) + main_ok),
        "pou", "has params of 100000 characters", pou="FBD_ADD")
    yield Case("block-ten-thousand-inputs", project(pou("Main", OUT_INT, _wide_block(10_000))),
               "pou", "has 10000 inputs; a block takes at most 256")
    yield Case("interval-hundreds-of-digits", project(main_ok, task(f"T#{digits}d")),
               "plc", "a literal of 403 characters is too long (at most 200)")
    yield Case("interval-a-hundred-digits", project(main_ok, task(f"T#{many}d")),
               "plc", "is out of range for TIME")
    yield Case("interval-bad", project(main_ok, task("T#soon")), "plc", "is not a duration")
    yield Case("priority-thousands-of-digits", project(main_ok, task(priority="9" * 5000)),
               "plc", "is not a number")
    yield Case("literal-hundreds-of-digits", project(
        pou("Main", "<outputVars>" + var("O", "TIME") + "</outputVars>",
            inv(1, f"T#{digits}ms") + outv(2, "O", 1))), "pou", "too long (at most 200)")
    yield Case("literal-a-hundred-digits", project(
        pou("Main", "<outputVars>" + var("O", "TIME") + "</outputVars>",
            inv(1, f"T#{many}ms") + outv(2, "O", 1))), "pou", "is out of range for TIME")
    yield Case("initial-time-hundreds-of-digits", project(
        pou("Main", "<localVars>" + var("L", "TIME", f"T#{digits}s") + "</localVars>", "")),
        "pou", "too long (at most 200)")
    yield Case("initial-time-a-hundred-digits", project(
        pou("Main", "<localVars>" + var("L", "TIME", f"T#{many}s") + "</localVars>", "")),
        "pou", "is out of range for TIME")
    yield Case("initial-int-five-thousand-digits", project(
        pou("Main", "<localVars>" + var("L", "INT", "16#" + "F" * 5000) + "</localVars>", "")),
        "pou", "a literal of 5003 characters is too long")
    yield Case("initial-int-a-hundred-digits", project(
        pou("Main", "<localVars>" + var("L", "LINT", many) + "</localVars>", "")),
        "pou", "is out of range for LINT")
    yield Case("initial-real-abc", project(
        pou("Main", "<localVars>" + var("L", "REAL", "REAL#abc") + "</localVars>", "")),
        "pou", "is not a REAL literal")
    yield Case("literal-1e999", project(
        pou("Main", "<outputVars>" + var("O", "REAL") + "</outputVars>",
            inv(1, "1e999") + outv(2, "O", 1))), "pou", "'1e999' is out of range for LREAL")
    yield Case("initial-1e999", project(
        pou("Main", "<localVars>" + var("L", "LREAL", "1e999") + "</localVars>", "")),
        "pou", "'1e999' is out of range for LREAL")
    yield Case("address-huge-integer", project(
        pou("Main", "<localVars>" + var("B", "BOOL", at=f"%IX{'9' * 5000}.0")
            + "</localVars>", "")), "pou", "is not a located address")
    out_lint = "<outputVars>" + var("O", "LINT") + "</outputVars>"
    yield Case("st-body-integer-thousands-of-digits", project(
        st_pou("Main", out_lint, f"O := {'9' * 5000};")), "pou",
        "in PROGRAM Main: a literal of 5,000 characters is too long (at most 200)")
    yield Case("st-body-name-a-megabyte-long", project(
        st_pou("Main", out_lint, f"O := {'n' * 1_000_000};")), "pou",
        "in PROGRAM Main: a name of 1,000,000 characters is too long (at most 1,024)")
    yield Case("st-body-calls-a-thousand-deep", project(
        "".join(st_pou(f"F{k}", "<returnType><LINT/></returnType><inputVars>" + var("X", "LINT")
                       + "</inputVars>", f"F{k} := F{k + 1}(X);" if k < 999 else f"F{k} := X;",
                       kind="function") for k in range(1000))
        + st_pou("Main", out_lint, "O := F0(1);")), "pou",
        "POUs placed inside one another more than 64 deep")
    yield Case("connector-chain-1000", project(pou("Main", OUT_INT, _connector_chain(1000))),
               "pou", None)
    yield Case("pous-nested-63", project(_nested_pous(63)), "pou", None)
    yield Case("pous-nested-330", project(_nested_pous(330)), "pou",
               "placed inside one another more than 64 deep")
    yield Case("pou-cycle", project(
        pou("A", "", '<block localId="1" typeName="B"><position x="0" y="0"/><inputVariables/>'
                     '<inOutVariables/><outputVariables/></block>', kind="functionBlock")
        + pou("B", "", '<block localId="1" typeName="A"><position x="0" y="0"/><inputVariables/>'
                       '<inOutVariables/><outputVariables/></block>', kind="functionBlock")),
        "pou", "uses itself (through A -> B -> A)", pou="A")
    yield Case("namespace-unknown", project(main_ok, ns="http://example.com/not-plcopen"),
               "load", "namespace 'http://example.com/not-plcopen', not a PLCopen TC6 namespace "
                       "this reader knows: http://www.plcopen.org/xml/tc6_0201")
    yield Case("namespace-none", project(main_ok, ns="").replace(b' xmlns=""', b""),
               "load", "<project> is in no namespace")
    yield Case("namespace-tc6-2.0", project(main_ok, task(), ns="http://www.plcopen.org/xml/"
                                                               "tc6_0200"), "plc", None)
    yield Case("duplicate-pous", project(main_ok + main_ok.replace('"Main"', '"MAIN"')),
               "load", "two POUs are named 'MAIN' and 'Main' (IEC names ignore case)")
    yield Case("duplicate-variables", project(
        pou("Main", "<localVars>" + var("X", "INT") + "</localVars><outputVars>"
            + var("x", "INT") + "</outputVars>", "")), "pou",
        "the variable 'x' is declared twice (IEC names ignore case)")
    yield Case("duplicate-globals", project(main_ok, (
        '<configuration name="c"><globalVars>' + var("G", "INT") + var("G", "INT")
        + '</globalVars><resource name="r"/></configuration>')), "plc",
        "the global 'G' is declared twice")
    yield Case("duplicate-instances", project(main_ok, (
        '<configuration name="c"><resource name="r"><task name="t" priority="0" '
        'interval="T#5ms"><pouInstance name="i" typeName="Main"/><pouInstance name="I" '
        'typeName="Main"/></task></resource></configuration>')), "plc",
        "two program instances are named 'I'")
    long_name = "N" * 1_000_000
    yield Case("name-a-megabyte-long", project(
        pou("Main", OUT_INT, inv(1, long_name) + outv(2, "O", 1))), "pou",
        f"'{'N' * 200}'... (1000000 characters)")
    yield Case("coordinates-1e999", project(pou("Main", OUT_INT, (
        inv(1, "3") + outv(2, "O", 1)).replace('x="0"', 'x="1e999"'))), "pou", None)
    yield Case("execution-order-huge", project(pou("Main", OUT_INT, (
        inv(1, "3") + outv(2, "O", 1).replace("<outVariable ", '<outVariable executionOrderId="'
                                              + "9" * 5000 + '" ')))), "pou", None)
    yield Case("deep-xml", project(pou("Main", OUT_INT, "<a>" * 100_000 + "</a>" * 100_000)),
               "load", "not well-formed XML")
    yield Case("not-xml", bytes(range(256)) * 4, "load", "not well-formed XML")
    yield Case("empty", b"", "load", "not well-formed XML")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m tests.robustness.plcopen_corpus DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for case in cases():
        (out / f"{case.name}.xml").write_bytes(case.data)
    print(f"wrote {sum(1 for _ in cases())} files to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
