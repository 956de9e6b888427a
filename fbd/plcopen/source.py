"""Reading a PLCopen file safely: bytes in, a checked element tree out.

A PLCopen file comes from anywhere (a colleague, a forum, a repository), so
the parse trusts nothing in it:

* only a regular file is read (a FIFO or ``/dev/zero`` is refused at once:
  :func:`fbd.files.open_regular`), and at most :data:`MAX_FILE_BYTES` of it;
* no entity is expanded, no DTD is loaded, nothing is fetched from the
  network, and libxml2's limits on depth and text size stay on (``huge_tree``
  off);
* a document type declaration with an internal subset is refused outright:
  PLCopen files have none, and one can declare attribute defaults that change
  what the body means (``<!ATTLIST variable negated CDATA "true">`` would turn
  every variable read into its negation);
* the root must be a ``<project>`` in a namespace of the TC6 schema this
  reader knows (:data:`NAMESPACES`), and the error says which one was found.

Element helpers compare local names: Beremiz, OpenPLC Editor and older tools
write the same element names under the 2.01, 2.0 and 1.0 namespaces.
"""

from __future__ import annotations

from ..errors import QUOTE_CHARS, FbdError, quote
from ..files import open_regular

#: TC6 namespaces read, newest first, and what wrote them
NS_201 = "http://www.plcopen.org/xml/tc6_0201"
NS_200 = "http://www.plcopen.org/xml/tc6_0200"
NS_100 = "http://www.plcopen.org/xml/tc6.xsd"
NAMESPACES = {
    NS_201: "TC6 XML 2.01 (Beremiz, OpenPLC Editor)",
    NS_200: "TC6 XML 2.0 (older Beremiz and other editors)",
    NS_100: "TC6 XML 1.0 (matiec's test projects, early Beremiz)",
}
MAX_FILE_BYTES = 64 * 1024 * 1024


class PlcOpenError(FbdError):
    """A PLCopen file that cannot be read or a POU that cannot be imported.

    ``detail`` is the message without the file's name (what an error about a
    POU placed in another adds to its own)."""

    def __init__(self, message: str, detail: str | None = None):
        super().__init__(message)
        self.detail = detail if detail is not None else message


def in_file(path, detail: str) -> PlcOpenError:
    """An error about something in the file ``path``: the message names the file."""
    return PlcOpenError(f"{path}: {detail}", detail)


def parse(path):
    """The root ``<project>`` of the file at ``path`` and its namespace."""
    from lxml import etree
    try:
        with open_regular(path) as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise PlcOpenError(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > MAX_FILE_BYTES:
        raise PlcOpenError(f"{path}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MB; "
                           f"this is not a PLCopen project")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                             load_dtd=False, remove_comments=True, remove_pis=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as e:
        raise PlcOpenError(f"{path}: not well-formed XML: {_flat(str(e))}") from None
    if root is None:
        raise PlcOpenError(f"{path}: not well-formed XML: no root element")
    info = root.getroottree().docinfo
    if info.doctype and _has_internal_subset(data, info.encoding):
        raise PlcOpenError(f"{path}: the file declares a DTD internal subset "
                           f"(<!DOCTYPE ... [ ... ]>); PLCopen files have none, and its "
                           f"entities or attribute defaults could change what the file "
                           f"says, so it is refused")
    if tag(root) != "project":
        raise PlcOpenError(f"{path}: the root element is <{tag(root)}>, not a PLCopen <project>")
    ns = namespace(root)
    if ns not in NAMESPACES:
        found = f"namespace {quote(ns)}" if ns else "no namespace"
        known = "; ".join(f"{uri} ({what})" for uri, what in NAMESPACES.items())
        raise PlcOpenError(f"{path}: <project> is in {found}, not a PLCopen TC6 namespace "
                           f"this reader knows: {known}")
    return root, ns


def _has_internal_subset(data: bytes, encoding: str | None) -> bool:
    """Whether the prolog's ``<!DOCTYPE`` has a ``[...]`` part: scanned from the
    text, because lxml shows an ATTLIST-only subset nowhere in its API."""
    try:
        text = data[:1 << 20].decode(encoding or "utf-8", errors="replace")
    except LookupError:
        text = data[:1 << 20].decode("utf-8", errors="replace")
    i, n = (1 if text.startswith("\ufeff") else 0), len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if text.startswith("<?", i):
            j = text.find("?>", i)
        elif text.startswith("<!--", i):
            j = text.find("-->", i)
        elif text.startswith("<!DOCTYPE", i):
            i += len("<!DOCTYPE")
            while i < n and text[i] not in "[>":
                if text[i] in "'\"":
                    close = text.find(text[i], i + 1)
                    i = n if close < 0 else close
                i += 1
            return i < n and text[i] == "["
        else:
            return False      # the root element: no doctype before it
        if j < 0:
            return False
        i = j + 2
    return False


def _flat(text: str) -> str:
    return " ".join(text.split())[:2 * QUOTE_CHARS]


def tag(el) -> str:
    """An element's local name ("" for comments and other non-elements)."""
    t = el.tag if isinstance(el.tag, str) else ""
    return t.split("}", 1)[-1]


def namespace(el) -> str:
    t = el.tag if isinstance(el.tag, str) else ""
    return t[1:].split("}", 1)[0] if t.startswith("{") else ""


def children(el, name):
    return [c for c in el if tag(c) == name] if el is not None else []


def child(el, name):
    if el is None:
        return None
    for c in el:
        if tag(c) == name:
            return c
    return None


def descendants(el, name):
    """Every element called ``name`` below ``el``, in document order."""
    return [c for c in el.iter() if tag(c) == name]


def text(el) -> str:
    """All the text of an element (an ``<expression>``, a ``<variable>``), stripped."""
    return "".join(el.itertext()).strip() if el is not None else ""


def true(value) -> bool:
    """An xs:boolean attribute: "true" or "1" (any case, spaces around)."""
    return (value or "").strip().lower() in ("true", "1")


def documentation(el) -> str:
    return text(child(el, "documentation"))


def has_data(el, name: str) -> bool:
    """Whether ``el`` carries an ``<addData><data name=...>`` entry."""
    return any(d.get("name") == name for d in children(child(el, "addData"), "data"))


__all__ = ["PlcOpenError", "in_file", "parse", "quote", "tag", "namespace", "children", "child",
           "descendants", "text", "true", "documentation", "has_data", "NAMESPACES",
           "NS_201", "NS_200", "NS_100", "MAX_FILE_BYTES"]
