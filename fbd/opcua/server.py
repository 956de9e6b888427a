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
from .codec import Refused, SharedValue, codec
from .image import ScanImage
from .runstate import RunState
from .space import Folder, build_space

log = logging.getLogger("fbd.opcua")

DEFAULT_PORT = 4840
NAMESPACE = "urn:fbd-sim:plc"
#: how often values are sampled from the PLC and published (docs/opcua.md, *Limits*)
PUBLISH_MS = 100
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
        self._halt = threading.Event()          # stop() was called
        self._error: BaseException | None = None
        self._stopping: asyncio.Event | None = None
        self._by_id: dict = {}
        self._entries: list = []    # _Served, in the space's order of variables
        self._all_ids: list = []    # every node served, the configuration's first
        self._watch: list = []      # per owner: {slot: [_Served, ...]}
        self._last = None           # the snapshot published last
        self.runstate = None        # the PLC object (.runstate)

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
    def start(self, timeout: float = 60.0, wait: bool = True) -> "OpcuaServer":
        """Start serving; with ``wait``, return once clients can connect (an error
        raised as an FbdError), else at once (the HMI polls :attr:`ready`). Call it
        from the thread that runs the PLC, between scans: the address space and
        the hooks on the PLC are made here."""
        self.space = build_space(self.plc, **self.rules)
        self.image = ScanImage(self.plc, self.space.variables)
        self._thread = threading.Thread(target=self._run, name="fbd-opcua", daemon=True)
        self._thread.start()
        if wait:
            if not self._ready.wait(timeout):
                raise FbdError(f"OPC UA server on {self.host}:{self.port} did not start in "
                               f"{timeout:g} s")
            self.check()
        return self

    @property
    def ready(self) -> bool:
        """Serving, or failed to (:meth:`check` says why)."""
        return self._ready.is_set()

    def check(self) -> None:
        """Raise why the server could not start, if it could not."""
        if self._error is not None:
            self._thread.join()
            self.image.detach()
            error = self._error
            if isinstance(error, FbdError):
                raise error
            raise FbdError(f"cannot serve OPC UA on {self.host}:{self.port}: "
                           f"{_reason(error)}") from None

    def stop(self) -> None:
        """Stop serving (from any state: a server still starting stops once started)."""
        self._halt.set()
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
        replaces the old one; clients stay connected. From the PLC's thread."""
        space = build_space(plc, **self.rules)
        self.image.detach()
        image = ScanImage(plc, space.variables)
        future = asyncio.run_coroutine_threadsafe(self._rebuild(plc, space, image), self._loop)
        future.result()

    def publish_now(self) -> None:
        """Publish the PLC's values now, not at the next period: for a caller that
        scans the PLC itself (a test), from the PLC's thread, between scans."""
        plc = self.plc
        self.image.record(None, plc.scans, plc.now_us, force=True)

        async def both():
            await self.publish()
            await self.runstate.publish()
        asyncio.run_coroutine_threadsafe(both(), self._loop).result()

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
        self._attach(self.plc, self.space, self.image)
        self.runstate = RunState(self)
        await self.runstate.add(server, self.ns)
        await server.start()
        if self.port == 0:
            self.port = server.bserver.port
        self._ready.set()
        try:
            await self._publish_loop()
        finally:
            await server.stop()

    async def _publish_loop(self) -> None:
        """Every period: ask for the next scan's copy, publish it once made (a PLC
        that does not scan, stopped or paused, has nothing new to publish)."""
        loop = asyncio.get_running_loop()
        copied = asyncio.Event()
        stopping = self._stopping

        def made() -> None:
            try:
                loop.call_soon_threadsafe(copied.set)
            except RuntimeError:
                pass        # the loop has closed: the server is stopping
        while not (stopping.is_set() or self._halt.is_set()):
            try:
                await asyncio.wait_for(stopping.wait(), self.publish_s)
                break
            except asyncio.TimeoutError:
                pass
            image = self.image
            copied.clear()
            image.on_snapshot = made
            image.request()
            try:
                await asyncio.wait_for(copied.wait(), self.publish_s)
            except asyncio.TimeoutError:
                pass        # no scan ended in a period: a slow task, or the PLC stopped
            await self.publish()
            await self.runstate.publish()

    # -- the address space ----------------------------------------------------------------
    def _attach(self, plc, space, image) -> None:
        items, served = [], []
        self._add_folder(space.root, ua.NodeId(ua.ObjectIds.ObjectsFolder),
                         ua.ObjectIds.Organizes, items, served)
        for result in self.server.iserver.node_mgt_service.add_nodes(items):
            result.StatusCode.check()
        self._bind(plc, space, image, served)

    def _bind(self, plc, space, image, served) -> None:
        """Serve ``plc``'s values, copied by ``image``, through the nodes ``served``
        lists: (variable, codec, node id) for each variable of ``space``."""
        self.plc, self.space, self.image = plc, space, image
        aspace = self.server.iserver.aspace
        self._by_id = {}
        self._entries = []
        self._watch = [{} for _ in image.owners]
        for var, cd, path in served:
            nodeid = ua.NodeId(path, self.ns)
            entry = _Served(var, cd, aspace[nodeid].attributes[_VALUE])
            self._by_id[nodeid] = entry
            self._entries.append(entry)
            k = image.owner_index[id(var.owner)]
            self._watch[k].setdefault(var.slot, []).append(entry)
        self._last = None

    async def _rebuild(self, plc, space, image) -> None:
        if _shape(space) == _shape(self.space):
            # the same variables (a new game of the same program): the nodes stay, and
            # with them the clients' monitored items; only where values come from changes
            self._bind(plc, space, image, [(var, entry.codec, entry.var.path) for var, entry
                                           in zip(space.variables, self._entries)])
        else:
            self._remove_nodes()
            self._attach(plc, space, image)
        await self.publish()

    def _remove_nodes(self) -> None:
        """Take the served nodes out of asyncua's address space, in one pass (its
        DeleteNodes service looks through every node of the server for each one
        deleted). Monitored items on them stop receiving values."""
        aspace = self.server.iserver.aspace
        for nodeid in self._all_ids:
            attribute = aspace[nodeid].attributes.get(_VALUE)
            if attribute is not None:
                for handle in list(attribute.datachange_callbacks):
                    aspace.delete_datachange_callback(handle)
        root = self._all_ids[0]
        objects = aspace[ua.NodeId(ua.ObjectIds.ObjectsFolder)]
        objects.references = [r for r in objects.references if r.NodeId != root]
        for nodeid in self._all_ids:
            del aspace[nodeid]

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
        served.append((var, cd, var.path))

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
            dv = SharedValue(Value=ua.Variant(cd.encode(raw), cd.variant),
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


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.errno == 98:
        return "the port is in use"
    text = str(error) or type(error).__name__
    return text.splitlines()[0] if text else type(error).__name__


__all__ = ["OpcuaServer", "OpcuaStats", "DEFAULT_PORT", "NAMESPACE"]
