"""The OPC UA server's process: asyncua serving an address space whose values
come from the PLC's process (:mod:`.server`), and whose clients' writes and
commands go back there (docs/opcua.md).

:class:`NodeServer` makes the nodes of a :class:`~.space.Space` (its variables'
``owner`` is the index of the table holding them), then applies what the PLC's
process sends: the slots that changed in a scan, straight into asyncua's
attribute store (what ``Server.write_attribute_value`` does, without its
per-call checks) with the data-change callbacks of their monitored items run
at once. Nothing yields between two variables, so a subscription's
notifications come from one scan. A client's write is checked here (access,
type, range: ``BadNotWritable``, ``BadTypeMismatch``, ``BadOutOfRange``),
converted to the run-time value and answered once the PLC's process has
queued it for the next scan.
"""

from __future__ import annotations

import datetime
import logging
import math

from asyncua import Server, ua

from .codec import Refused, SharedValue, codec
from .making import NodeMaker
from .runstate import RunState
from .space import Folder

log = logging.getLogger("fbd.opcua")

NAMESPACE = "urn:fbd-sim:plc"
_VALUE = ua.AttributeIds.Value


class _Served:
    """One variable node: its variable, codec, asyncua attribute and index."""
    __slots__ = ("var", "codec", "attribute", "real", "index")

    def __init__(self, var, cd, attribute, index: int):
        self.var = var
        self.codec = cd
        self.attribute = attribute
        self.real = var.type.kind == "real"
        self.index = index


class NodeServer:
    """asyncua's server over a space; ``ask(message)`` sends a message to the PLC's
    process and waits for its answer (a write queued, a command taken)."""

    def __init__(self, host: str, port: int, security, ask):
        self.host, self.port = host, port
        self.security = security
        self.ask = ask
        self.server: Server | None = None
        self.ns = 2
        self.space = None
        self.writes = self.refused = self.values = 0
        self._by_id: dict = {}
        self._entries: list = []
        self._all_ids: list = []
        self._watch: list = []      # per table: {slot: [_Served, ...]}
        self._last: list = []       # per table: {slot: the value published last}
        self.runstate = RunState(self)

    @property
    def clients(self) -> int:
        bserver = self.server.bserver if self.server is not None else None
        return len(bserver.clients) if bserver is not None else 0

    async def start(self, space, tables) -> int:
        """Serve ``space`` with the values of ``tables``; the port clients connect to."""
        server = self.server = Server()
        await server.init()
        server.set_endpoint(f"opc.tcp://{self.host}:{self.port}/")
        server.set_server_name("fbd-sim")
        if self.security is not None:
            await self.security.apply(server)
        else:
            server.set_security_policy([ua.SecurityPolicyType.NoSecurity])
            server.set_identity_tokens([ua.AnonymousIdentityToken])
        self.ns = await server.register_namespace(NAMESPACE)
        # A monitored item keeps the last value of a publishing interval, as OPC UA's
        # default queue of 1 does (asyncua gives a queue of 0, "the default", 10,000
        # places): a client subscribing at 1 s gets one value a second per item, not
        # every change the server published in between.
        server.iserver.max_monitored_item_queue_size = 1
        server.iserver.attribute_service.write = self._client_write(
            server.iserver.attribute_service)
        self._attach(space, tables)
        await self.runstate.add(server, self.ns)
        await server.start()
        return server.bserver.port

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop()

    # -- the address space ----------------------------------------------------------------
    def _attach(self, space, tables, kept: frozenset = frozenset()) -> None:
        """Make the nodes of ``space`` (but those of the paths ``kept``, there already)."""
        served: list = []
        maker = NodeMaker(self.server.iserver.aspace, self.ns)
        self._all_ids = []
        self._add_folder(maker, space.root, ua.NodeId(ua.ObjectIds.ObjectsFolder),
                         ua.ObjectIds.Organizes, served, tables, kept)
        self._bind(space, served, tables)

    def _bind(self, space, served, tables) -> None:
        self.space = space
        aspace = self.server.iserver.aspace
        self._by_id = {}
        self._entries = []
        self._watch = [{} for _ in tables]
        self._last = [{} for _ in tables]
        for index, (var, cd, path) in enumerate(served):
            nodeid = ua.NodeId(path, self.ns)
            entry = _Served(var, cd, aspace[nodeid].attributes[_VALUE], index)
            self._by_id[nodeid] = entry
            self._entries.append(entry)
            self._watch[var.owner].setdefault(var.slot, []).append(entry)
            self._last[var.owner][var.slot] = tables[var.owner][var.slot]

    async def rebuild(self, space, tables) -> None:
        """Serve another space: the same nodes if it has the same shape (a new game of
        the program), else the nodes of what is unchanged (a path with the same type,
        access and declaration, under unchanged objects) kept, with the clients'
        monitored items on them, and the rest made anew (an online change)."""
        if _shape(space) == _shape(self.space):
            self._bind(space, [(var, entry.codec, entry.var.path) for var, entry
                               in zip(space.variables, self._entries)], tables)
        else:
            kept = _kept(self.space, space)
            self._remove_nodes(kept)
            self._attach(space, tables, kept)
        await self.apply(None, [list(t.items()) for t in self._last], force=True)

    def _remove_nodes(self, kept: frozenset = frozenset()) -> None:
        """Take the served nodes but ``kept`` (paths) out of asyncua's address space, in
        one pass (its DeleteNodes service looks through every node of the server for
        each one deleted: minutes for 2048). Monitored items on them stop."""
        aspace = self.server.iserver.aspace
        gone = [nodeid for nodeid in self._all_ids if nodeid.Identifier not in kept]
        gone_set = set(gone)
        for nodeid in gone:
            attribute = aspace[nodeid].attributes.get(_VALUE)
            if attribute is not None:
                for handle in list(attribute.datachange_callbacks):
                    aspace.delete_datachange_callback(handle)
        for nodeid in [ua.NodeId(ua.ObjectIds.ObjectsFolder)] + [
                n for n in self._all_ids if n.Identifier in kept]:
            node = aspace[nodeid]
            node.references = [r for r in node.references if r.NodeId not in gone_set]
        for nodeid in gone:
            del aspace[nodeid]

    def _add_folder(self, maker, folder: Folder, parent: ua.NodeId, reference: int, served,
                    tables, kept) -> None:
        nodeid = ua.NodeId(folder.path, self.ns)
        if folder.path not in kept:
            maker.add_object(nodeid, folder.name, folder.description, parent, reference)
        self._all_ids.append(nodeid)
        for child in folder.children.values():
            if isinstance(child, Folder):
                self._add_folder(maker, child, nodeid, ua.ObjectIds.HasComponent, served, tables,
                                 kept)
                continue
            cd = codec(child.type)
            child_id = ua.NodeId(child.path, self.ns)
            if child.path not in kept:
                raw = _at(tables[child.owner][child.slot], child.steps)
                maker.add_variable(child_id, child.name, child.description, nodeid,
                                   data_type=cd.data_type,
                                   value=ua.Variant(cd.encode(raw), cd.variant), dims=cd.dims,
                                   writable=child.writable)
            self._all_ids.append(child_id)
            served.append((child, cd, child.path))

    # -- publishing -------------------------------------------------------------------------
    async def apply(self, wall: float | None, changes: list, force: bool = False) -> None:
        """Publish one scan: ``changes`` holds, per table, the (slot, value) pairs that
        changed since the last scan sent; ``wall`` is when it was copied."""
        when = datetime.datetime.now(datetime.timezone.utc) if wall is None else \
            datetime.datetime.fromtimestamp(wall, datetime.timezone.utc)
        changed = []
        for k, pairs in enumerate(changes):
            watch, last = self._watch[k], self._last[k]
            for slot, value in pairs:
                entries = watch.get(slot)
                if entries is None:
                    continue
                before = last.get(slot)
                last[slot] = value
                for entry in entries:
                    steps = entry.var.steps
                    raw = _at(value, steps)
                    if steps and not force:
                        was = _at(before, steps)
                        if raw == was and not (entry.real and _zero_sign(raw, was)):
                            continue
                    changed.append((entry, raw))
        self.values += len(changed)
        for entry, raw in changed:
            cd = entry.codec
            dv = SharedValue(Value=ua.Variant(cd.encode(raw), cd.variant),
                             SourceTimestamp=when, ServerTimestamp=when)
            attribute = entry.attribute
            attribute.value = dv
            for handle, callback in attribute.datachange_callbacks.items():
                await callback(handle, dv)

    # -- client writes ------------------------------------------------------------------------
    def _client_write(self, service):
        original = service.write

        async def write(params: ua.WriteParameters, user=None, **kw) -> list:
            results, accepted = [], []
            for wv in params.NodesToWrite:
                entry = self._by_id.get(wv.NodeId)
                if entry is None:
                    args = (ua.WriteParameters(NodesToWrite=[wv]),)
                    results += await (original(*args, user=user) if user is not None
                                      else original(*args))
                    continue
                status, raw = self._check(entry, wv, user)
                if status == ua.StatusCodes.Good:
                    accepted.append((entry.index, raw))
                    self.writes += 1
                else:
                    self.refused += 1
                results.append(ua.StatusCode(status))
            if accepted:
                # one message, queued at once: the values of one Write land in one scan
                await self.ask("writes", accepted)
            return results
        return write

    def _check(self, entry: _Served, wv, user) -> tuple:
        """(status, the value for the PLC) of a client's write to a served node."""
        var, cd = entry.var, entry.codec
        if wv.AttributeId != _VALUE or not var.writable:
            return ua.StatusCodes.BadNotWritable, None
        if self.security is not None and not self.security.may_write(user):
            return ua.StatusCodes.BadUserAccessDenied, None
        if wv.IndexRange:
            return ua.StatusCodes.BadWriteNotSupported, None    # a whole value only
        variant = wv.Value.Value if wv.Value is not None else None
        if variant is None or variant.VariantType != cd.variant \
                or isinstance(variant.Value, list) != bool(cd.dims):
            return ua.StatusCodes.BadTypeMismatch, None
        try:
            return ua.StatusCodes.Good, cd.decode(variant.Value)
        except Refused as refused:
            return refused.status, None


def _signatures(space) -> dict:
    """path -> (what a client sees of the node, values aside; its parent's path), the
    objects before what they hold."""
    out: dict = {}

    def walk(folder: Folder, parent) -> None:
        out[folder.path] = (("object", folder.description), parent)
        for child in folder.children.values():
            if isinstance(child, Folder):
                walk(child, folder.path)
            else:
                out[child.path] = (("variable", child.type.name, child.writable,
                                    child.description), folder.path)
    walk(space.root, None)
    return out


def _kept(old, new) -> frozenset:
    """The paths whose nodes serve ``new`` as they served ``old``: the same node,
    under objects kept too."""
    before = _signatures(old)
    kept: set = set()
    for path, (sig, parent) in _signatures(new).items():
        if before.get(path, (None,))[0] == sig and (parent is None or parent in kept):
            kept.add(path)
    return frozenset(kept)


def _shape(space) -> list:
    """What a client sees of a space, values aside: two spaces of one shape are
    served by the same nodes."""
    return [(v.path, v.type.name, v.writable, v.description) for v in space.variables]


def _at(value, steps: tuple):
    for k in steps:
        value = value[k]
    return value


def _zero_sign(a, b) -> bool:
    """0.0 and -0.0 compare equal, yet are two REALs."""
    return a == 0 and math.copysign(1.0, a) != math.copysign(1.0, b)


__all__ = ["NodeServer", "NAMESPACE"]
