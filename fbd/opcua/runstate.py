"""The PLC itself as an OPC UA object: its state and scan figures as variables,
and methods that stop, start and restart it (docs/opcua.md, *The PLC object*).

``Objects/PLC`` holds, beside the configuration's objects (so it stays when
the server follows another program):

=================  ===========  ==========================================================
variable           type         what
=================  ===========  ==========================================================
State              String       RUN, STOP or FAULT
Fault              String       what stopped the PLC and where ('' in RUN and STOP)
FaultCode          Byte         0 none, 1 index out of bounds, 2 watchdog, 3 native trap,
                                4 a block's error, 5 an internal error (Modbus's codes)
Scans              UInt64       scans the main task has run
ScanTimeLast,      Double       the last, mean and longest scan, in µs of wall time
ScanTimeMean,
ScanTimeMax
Overruns, Late,    UInt64       scans longer than the cycle, scans started late, cycles
Skipped                         skipped (docs/realtime.md)
Cycle              Duration     the main task's cycle
Engine             String       python or native
=================  ===========  ==========================================================

Methods ``Start``, ``Stop``, ``WarmRestart`` and ``ColdRestart`` ask the
PLC (:meth:`fbd.Plc.request`); the thread running it carries the request
out between two scans, in STOP and FAULT too. ``Start`` in FAULT answers
``BadInvalidState``: only a restart runs a program whose scan raised. The
state machine is the PLC's own (:mod:`fbd.runtime.faults`).
"""

from __future__ import annotations

import datetime

from asyncua import ua

from ..runtime.faults import FAULT_CODES, PlcState
from .codec import SharedValue

_VALUE = ua.AttributeIds.Value
_FIGURES = (
    ("State", ua.VariantType.String, "RUN, STOP or FAULT"),
    ("Fault", ua.VariantType.String, "what stopped the PLC, and where ('' unless in FAULT)"),
    ("FaultCode", ua.VariantType.Byte, "0 none, " + ", ".join(
        f"{code} {kind}" for kind, code in FAULT_CODES.items())),
    ("Scans", ua.VariantType.UInt64, "scans the main task has run"),
    ("ScanTimeLast", ua.VariantType.Double, "the last scan's wall time, µs"),
    ("ScanTimeMean", ua.VariantType.Double, "the mean scan's wall time, µs"),
    ("ScanTimeMax", ua.VariantType.Double, "the longest scan's wall time, µs"),
    ("Overruns", ua.VariantType.UInt64, "scans longer than their cycle"),
    ("Late", ua.VariantType.UInt64, "scans that started more than half a cycle late"),
    ("Skipped", ua.VariantType.UInt64, "cycles skipped when the host fell behind"),
    ("Cycle", ua.VariantType.Double, "the main task's cycle (Duration, ms)"),
    ("Engine", ua.VariantType.String, "the engine running the main task: python or native"),
)
COMMANDS = {"Start": "start", "Stop": "stop", "WarmRestart": "warm restart",
            "ColdRestart": "cold restart"}


class RunState:
    """The ``PLC`` object of a :class:`~.nodes.NodeServer`: its figures are what the
    PLC's process sends (:func:`fbd.opcua.server.run_values`), its methods ask it."""

    def __init__(self, node):
        self.node = node
        self.attributes: dict = {}
        self._last: dict = {}

    async def add(self, server, ns: int) -> None:
        objects = server.nodes.objects
        plc_object = await objects.add_object(ua.NodeId("PLC", ns), ua.QualifiedName("PLC", ns))
        await plc_object.write_attribute(ua.AttributeIds.Description, ua.DataValue(
            ua.Variant(ua.LocalizedText("the simulated PLC: its state, figures and commands"))))
        aspace = server.iserver.aspace
        for name, vt, what in _FIGURES:
            node = await plc_object.add_variable(ua.NodeId(f"PLC.{name}", ns),
                                                 ua.QualifiedName(name, ns), _zero(vt), vt)
            if name == "Cycle":
                await node.write_attribute(ua.AttributeIds.DataType, ua.DataValue(
                    ua.Variant(ua.NodeId(ua.ObjectIds.Duration))))
            await node.write_attribute(ua.AttributeIds.Description,
                                       ua.DataValue(ua.Variant(ua.LocalizedText(what))))
            self.attributes[name] = (aspace[node.nodeid].attributes[_VALUE], vt)
        for name, action in COMMANDS.items():
            await plc_object.add_method(ua.NodeId(f"PLC.{name}", ns),
                                        ua.QualifiedName(name, ns), self._command(action), [], [])

    def _command(self, action: str):
        async def call(_parent):
            if action == "start" and self._last.get("State") == str(PlcState.FAULT):
                return ua.StatusCode(ua.StatusCodes.BadInvalidState)
            await self.node.ask("request", action)
            return ua.StatusCode()
        return call

    async def publish(self, values: dict) -> None:
        """Write the figures that changed."""
        stamp = None
        for name, value in values.items():
            if self._last.get(name, _NOTHING) == value:
                continue
            self._last[name] = value
            stamp = stamp or datetime.datetime.now(datetime.timezone.utc)
            attribute, vt = self.attributes[name]
            dv = SharedValue(ua.Variant(value, vt), SourceTimestamp=stamp, ServerTimestamp=stamp)
            attribute.value = dv
            for handle, callback in attribute.datachange_callbacks.items():
                await callback(handle, dv)


def run_values(plc) -> dict:
    """The PLC object's figures, read in the PLC's process (each a number its
    thread writes whole)."""
    st = plc.stats
    fault = plc.fault
    return {
        "State": str(plc.state), "Fault": fault.describe() if fault else "",
        "FaultCode": fault.code if fault else 0, "Scans": plc.scans,
        "ScanTimeLast": st.last_ns / 1000, "ScanTimeMean": st.mean_us,
        "ScanTimeMax": st.max_ns / 1000, "Overruns": st.overruns, "Late": st.late,
        "Skipped": st.skipped, "Cycle": plc.main.cycle_us / 1000, "Engine": str(plc.engine),
    }


_NOTHING = object()


def _zero(vt: ua.VariantType):
    return "" if vt is ua.VariantType.String else 0.0 if vt is ua.VariantType.Double else 0


__all__ = ["RunState", "COMMANDS", "run_values"]
