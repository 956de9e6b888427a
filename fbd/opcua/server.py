"""The OPC UA server: a PLC's address space served by asyncua, on a thread of its own.

:class:`OpcuaServer` runs asyncua's server on its own event loop in a thread,
as :class:`fbd.modbus.server.ModbusServer` runs its own: the PLC runs
elsewhere (``fbd serve``'s real-time runner, the HMI's loop) and the two meet
only in a :class:`~.image.ScanImage`.

* **Publishing.** Every ``publish_ms`` the server takes the last scan's
  snapshot, compares it with the one before slot by slot, and writes only the
  variables that changed, straight into asyncua's attribute store (what
  ``Server.write_attribute_value`` does, without its per-call checks), then
  runs the data-change callbacks of their monitored items. Nothing yields
  between two variables, so a subscription's notifications come from one scan.
* **Client writes** are checked here (access, type, range: ``BadNotWritable``,
  ``BadTypeMismatch``, ``BadOutOfRange``), converted to run-time values and
  queued for the next scan; they read back once that scan has published them.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import math
import threading
from dataclasses import dataclass

from asyncua import Server, ua
from asyncua.server.address_space import AttributeService

from ..errors import FbdError
from .codec import Refused, codec
from .image import ScanImage
from .space import Folder, build_space

log = logging.getLogger("fbd.opcua")

DEFAULT_PORT = 4840
NAMESPACE = "urn:fbd-sim:plc"
PUBLISH_MS = 50
_VALUE = ua.AttributeIds.Value
_READ = ua.AccessLevel.CurrentRead.mask
_READ_WRITE = _READ | ua.AccessLevel.CurrentWrite.mask


@dataclass
class OpcuaStats:
    """What the server did: clients' writes applied or refused, publishes, values sent."""
    writes: int = 0
    refused: int = 0
    publishes: int = 0
    values: int = 0


class _Served:
    """One variable node: its variable, codec and asyncua attribute."""
    __slots__ = ("var", "codec", "attribute", "real")

    def __init__(self, var, cd, attribute):
        self.var = var
        self.codec = cd
        self.attribute = attribute
        self.real = var.type.kind == "real"


class OpcuaServer:
    """Serves ``plc`` over OPC UA on ``host:port`` (see the module). ``expose``,
    ``writable``, ``readonly``: patterns choosing what is served and written
    (:func:`~.space.build_space`). :meth:`start` returns once clients can connect."""

    def __init__(self, plc, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
                 expose=None, writable=None, readonly=None, publish_ms: float = PUBLISH_MS,
                 security=None):
        self.plc = plc
        self.host = host
        self.port = port
        self.rules = dict(expose=expose, writable=writable, readonly=readonly)
        self.publish_s = publish_ms / 1000
        self.security = security
        self.stats = OpcuaStats()
        self.space = None
        self.image: ScanImage | None = None
        self.server: Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._stopping: asyncio.Event | None = None
        self._by_id: dict = {}
        self._watch: list = []      # per owner: {slot: [_Served, ...]}
        self._last = None           # the snapshot published last
        self.extra_nodes: list = []   # callables(server, ns) adding nodes beside the space

    @property
    def endpoint(self) -> str:
        return f"opc.tcp://{self.host}:{self.port}/"

    @property
    def security_summary(self) -> str:
        if self.security is None:
            return "anonymous, no security: this machine only"
        return self.security.summary

    @property
    def clients(self) -> int:
        """Connections open now."""
        bserver = self.server.bserver if self.server is not None else None
        return len(bserver.clients) if bserver is not None else 0

    # -- life ---------------------------------------------------------------------------
    def start(self, timeout: float = 60.0) -> "OpcuaServer":
        self._thread = threading.Thread(target=self._run, name="fbd-opcua", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise FbdError(f"OPC UA server on {self.host}:{self.port} did not start in "
                           f"{timeout:g} s")
        if self._error is not None:
            self._thread.join()
            error = self._error
            if isinstance(error, FbdError):
                raise error
            raise FbdError(f"cannot serve OPC UA on {self.host}:{self.port}: "
                           f"{_reason(error)}") from None
        return self

    def stop(self) -> None:
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(stopping.set)
            except RuntimeError:
                pass    # the loop has ended already
        if self._thread is not None:
            self._thread.join()
        if self.image is not None:
            self.image.detach()

    def follow(self, plc) -> None:
        """Serve ``plc`` from now on (a new game, a new program): its address space
        replaces the old one; clients stay connected."""
        future = asyncio.run_coroutine_threadsafe(self._rebuild(plc), self._loop)
        future.result()

    def _run(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._main())
        except BaseException as e:      # noqa: BLE001 - reported by start(), never lost
            if self._ready.is_set():
                log.error("OPC UA server stopped: %s", _reason(e))
            self._error = e
            self._ready.set()
        finally:
            loop.close()

    async def _main(self) -> None:
        self._stopping = asyncio.Event()
        server = self.server = Server()
        await server.init()
        server.set_endpoint(self.endpoint)
        server.set_server_name("fbd-sim")
        if self.security is not None:
            await self.security.apply(server)
        else:
            server.set_security_policy([ua.SecurityPolicyType.NoSecurity])
            server.set_identity_tokens([ua.AnonymousIdentityToken])
        self.ns = await server.register_namespace(NAMESPACE)
        server.iserver.attribute_service.write = self._client_write(
            server.iserver.attribute_service)
        self._attach(self.plc)
        for add in self.extra_nodes:
            await add(server, self.ns)
        await server.start()
        if self.port == 0:
            self.port = server.bserver.port
        self._ready.set()
        try:
            while not self._stopping.is_set():
                try:
                    await asyncio.wait_for(self._stopping.wait(), self.publish_s)
                except asyncio.TimeoutError:
                    pass
                await self.publish()
        finally:
            await server.stop()

    # -- the address space ----------------------------------------------------------------
    def _attach(self, plc) -> None:
        self.plc = plc
        self.space = build_space(plc, **self.rules)
        items, served = [], []
        self._add_folder(self.space.root, ua.NodeId(ua.ObjectIds.ObjectsFolder),
                         ua.ObjectIds.Organizes, items, served)
        iserver = self.server.iserver
        for result in iserver.node_mgt_service.add_nodes(items):
            result.StatusCode.check()
        self.image = ScanImage(plc, self.space.variables)
        self._by_id = {}
        self._watch = [{} for _ in self.image.owners]
        for var, cd, nodeid in served:
            entry = _Served(var, cd, iserver.aspace[nodeid].attributes[_VALUE])
            self._by_id[nodeid] = entry
            k = self.image.owner_index[id(var.owner)]
            self._watch[k].setdefault(var.slot, []).append(entry)
        self._last = None

    async def _rebuild(self, plc) -> None:
        old = [ua.DeleteNodesItem(NodeId=nodeid, DeleteTargetReferences=True)
               for nodeid in self._all_ids]
        self.image.detach()
        self.server.iserver.node_mgt_service.delete_nodes(
            ua.DeleteNodesParameters(NodesToDelete=old))
        self._attach(plc)
        await self.publish()

    def _add_folder(self, folder: Folder, parent: ua.NodeId, reference: int, items,
                    served) -> None:
        nodeid = ua.NodeId(folder.path, self.ns)
        item = ua.AddNodesItem(
            RequestedNewNodeId=nodeid, BrowseName=ua.QualifiedName(folder.name, self.ns),
            ParentNodeId=parent, ReferenceTypeId=ua.NodeId(reference),
            NodeClass=ua.NodeClass.Object, TypeDefinition=ua.NodeId(ua.ObjectIds.BaseObjectType))
        attrs = ua.ObjectAttributes()
        attrs.DisplayName = ua.LocalizedText(folder.name)
        attrs.Description = ua.LocalizedText(folder.description)
        attrs.EventNotifier = 0
        item.NodeAttributes = attrs
        items.append(item)
        if reference == ua.ObjectIds.Organizes:
            self._all_ids = [nodeid]
        else:
            self._all_ids.append(nodeid)
        for child in folder.children.values():
            if isinstance(child, Folder):
                self._add_folder(child, nodeid, ua.ObjectIds.HasComponent, items, served)
            else:
                self._add_variable(child, nodeid, items, served)

    def _add_variable(self, var, parent: ua.NodeId, items, served) -> None:
        cd = codec(var.type)
        nodeid = ua.NodeId(var.path, self.ns)
        attrs = ua.VariableAttributes()
        attrs.DisplayName = ua.LocalizedText(var.name)
        attrs.Description = ua.LocalizedText(var.description)
        attrs.DataType = cd.data_type
        raw = _at(var.owner.s[var.slot], var.steps)
        attrs.Value = ua.Variant(cd.encode(raw), cd.variant)
        if cd.dims:
            attrs.ValueRank = len(cd.dims)
            attrs.ArrayDimensions = list(cd.dims)
        else:
            attrs.ValueRank = ua.ValueRank.Scalar
        attrs.AccessLevel = attrs.UserAccessLevel = _READ_WRITE if var.writable else _READ
        attrs.Historizing = False
        items.append(ua.AddNodesItem(
            RequestedNewNodeId=nodeid, BrowseName=ua.QualifiedName(var.name, self.ns),
            ParentNodeId=parent, ReferenceTypeId=ua.NodeId(ua.ObjectIds.HasComponent),
            NodeClass=ua.NodeClass.Variable,
            TypeDefinition=ua.NodeId(ua.ObjectIds.BaseDataVariableType), NodeAttributes=attrs))
        self._all_ids.append(nodeid)
        served.append((var, cd, nodeid))

    # -- publishing -------------------------------------------------------------------------
    async def publish(self) -> None:
        """Publish the scan copied since the last publish: the variables that changed."""
        snap = self.image.take()
        if snap is None:
            return
        last, self._last = self._last, snap
        stamp = datetime.datetime.fromtimestamp(snap.wall, datetime.timezone.utc)
        changed = []
        for k, watch in enumerate(self._watch):
            new = snap.tables[k]
            old = last.tables[k] if last is not None else None
            if old is not None and new == old:
                continue
            for slot, entries in watch.items():
                value = new[slot]
                if old is not None:
                    before = old[slot]
                    if value == before and not (entries[0].real and _zero_sign(value, before)):
                        continue
                for entry in entries:
                    raw = _at(value, entry.var.steps)
                    if old is not None and entry.var.steps:
                        was = _at(before, entry.var.steps)
                        if raw == was and not (entry.real and _zero_sign(raw, was)):
                            continue
                    changed.append((entry, raw))
        self.stats.publishes += 1
        self.stats.values += len(changed)
        for entry, raw in changed:
            cd = entry.codec
            dv = ua.DataValue(Value=ua.Variant(cd.encode(raw), cd.variant),
                              SourceTimestamp=stamp, ServerTimestamp=stamp)
            attribute = entry.attribute
            attribute.value = dv
            for handle, callback in attribute.datachange_callbacks.items():
                await callback(handle, dv)

    # -- client writes ------------------------------------------------------------------------
    def _client_write(self, service: AttributeService):
        original = service.write

        async def write(params: ua.WriteParameters, user=None, **kw) -> list:
            results = []
            for wv in params.NodesToWrite:
                entry = self._by_id.get(wv.NodeId)
                if entry is None:
                    args = (ua.WriteParameters(NodesToWrite=[wv]),)
                    results += await (original(*args, user=user) if user is not None
                                      else original(*args))
                    continue
                results.append(ua.StatusCode(self._write(entry, wv, user)))
            return results
        return write

    def _write(self, entry: _Served, wv, user) -> int:
        var, cd = entry.var, entry.codec
        status = ua.StatusCodes.Good
        if wv.AttributeId != _VALUE or not var.writable:
            status = ua.StatusCodes.BadNotWritable
        elif self.security is not None and not self.security.may_write(user):
            status = ua.StatusCodes.BadUserAccessDenied
        elif wv.IndexRange:
            status = ua.StatusCodes.BadWriteNotSupported   # a whole value only
        else:
            variant = wv.Value.Value if wv.Value is not None else None
            if variant is None or variant.VariantType != cd.variant \
                    or isinstance(variant.Value, list) != bool(cd.dims):
                status = ua.StatusCodes.BadTypeMismatch
            else:
                try:
                    self.image.queue(var, cd.decode(variant.Value))
                except Refused as refused:
                    status = refused.status
        if status == ua.StatusCodes.Good:
            self.stats.writes += 1
        else:
            self.stats.refused += 1
        return status


def _at(value, steps: tuple):
    for k in steps:
        value = value[k]
    return value


def _zero_sign(a, b) -> bool:
    """0.0 and -0.0 compare equal, yet are two REALs."""
    return a == 0 and math.copysign(1.0, a) != math.copysign(1.0, b)


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.errno == 98:
        return "the port is in use"
    text = str(error) or type(error).__name__
    return text.splitlines()[0] if text else type(error).__name__


__all__ = ["OpcuaServer", "OpcuaStats", "DEFAULT_PORT", "NAMESPACE"]
