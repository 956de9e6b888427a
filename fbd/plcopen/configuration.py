"""A PLCopen file's first ``<configuration>`` as :class:`fbd.project.Configuration`.

* ``globalVars`` of the configuration and of its resources: the globals every
  program instance shares;
* each ``<task>`` (``interval``, ``priority``, ``single``: the BOOL global
  whose rising edge runs an event task, as Beremiz writes it) and its
  ``pouInstance`` s, then the resource's own ``pouInstance`` s (without a
  task): one :class:`~fbd.project.TaskSpec` each, in the order Beremiz
  declares them to matiec (task by task, then those without one);
* ``configVars`` (TC6's VAR_CONFIG, which no editor writes and Beremiz does
  not read): ``configVariable instancePathAndName="RES.INST.VAR"`` with a
  type and an initial value, one :class:`~fbd.project.InstanceInit` each; a
  function block's ``structValue`` one per member.

How the configuration runs: :mod:`fbd.runtime.configuration`.
"""

from __future__ import annotations

from .. import address
from ..errors import FbdError
from ..project import Configuration, InstanceInit, TaskSpec
from .interface import RETENTIVE, read_var, type_of
from .source import NS_100, PlcOpenError, child, children, quote, tag
from .values import interval_us


def read_configuration(root, path, ns, dtypes) -> Configuration | None:
    for insts in children(root, "instances"):
        for confs in children(insts, "configurations"):
            for conf in children(confs, "configuration"):
                return _read(conf, path, ns, dtypes)
    return None


def _read(conf, path, ns, dtypes) -> Configuration:
    c = Configuration(conf.get("name") or "config")
    where = f"{path}: configuration {quote(c.name)}"

    def add_globals(el, owner):
        for group in children(el, "globalVars"):
            for v in children(group, "variable"):
                var = read_var(v, "globalVars", owner, dtypes)
                if var.address:
                    var.location = _located(var, f"{owner}: global {quote(var.name)}")
                var.constant = (group.get("constant") or "").strip().lower() in ("true", "1")
                var.retain = next((q for q, attribute in RETENTIVE
                                   if (group.get(attribute) or "").strip().lower()
                                   in ("true", "1")), None)
                if var.name.upper() in {k.upper() for k in c.variables}:
                    raise PlcOpenError(f"{where}: the global {quote(var.name)} is declared "
                                       f"twice")
                c.variables[var.name] = var
                if var.init is not None:
                    c.globals[var.name] = var.init

    add_globals(conf, where)
    instances = set()
    for res in children(conf, "resource"):
        rname = res.get("name") or "resource"
        c.resources.append(rname)
        add_globals(res, f"{where}, resource {quote(rname)}")
        for task in children(res, "task"):
            us, prio, single = _task(task, path)
            for inst in children(task, "pouInstance"):
                c.tasks.append(_instance(inst, ns, TaskSpec("", "", task.get("name"), us, prio,
                                                            rname, single), where, instances))
        for inst in children(res, "pouInstance"):
            c.tasks.append(_instance(inst, ns, TaskSpec("", "", "", None, 0, rname), where,
                                     instances))
    for group in children(conf, "configVars"):
        for v in children(group, "configVariable"):
            c.inits += _config_variable(v, where, dtypes)
    return c


def _located(var, where: str):
    """A located global's address (``address="%IW0"``), checked as a program's
    located variable's is: the size its type needs, %Q for what only programs write."""
    try:
        found = address.parse(var.address, where)
        address.check(found, var.type, "output" if found.area == "Q" else "input", where)
    except FbdError as e:
        raise PlcOpenError(str(e)) from None
    return found


def _task(task, path):
    """(interval in µs or None, priority, the SINGLE global or None) of a ``<task>``."""
    twhere = f"{path}: task {quote(task.get('name') or '')}"
    interval = task.get("interval")
    single = (task.get("single") or "").strip() or None
    if single is not None and not single.replace("_", "a").isalnum():
        # Beremiz's MULTI ("[a, b]") and anything else that is not a name
        raise PlcOpenError(f"{twhere}: single={quote(single)}: an event task is triggered by "
                           f"the name of a BOOL global variable")
    us = None
    if interval:
        try:
            us = interval_us(interval, twhere)
        except PlcOpenError as e:
            raise PlcOpenError(f"{twhere}: interval {quote(interval)} is not a "
                               f"duration ({str(e).split(': ', 2)[-1]})") from None
        if us <= 0:
            raise PlcOpenError(f"{twhere}: interval {quote(interval)} must be positive")
    prio_text = (task.get("priority") or "0").strip()
    if not prio_text.lstrip("+-").isdigit() or len(prio_text) > 9:
        raise PlcOpenError(f"{twhere}: priority {quote(task.get('priority'))} is not "
                           f"a number from 0 to 99999999")
    return us, int(prio_text), single


def _instance(inst, ns, spec: TaskSpec, where, seen) -> TaskSpec:
    name = inst.get("name") or ""
    # TC6 1.0 (matiec's tests) names the program in "type"
    program = inst.get("typeName") or (inst.get("type") if ns == NS_100 else None) or ""
    if name.upper() in seen:
        raise PlcOpenError(f"{where}: two program instances are named {quote(name)}")
    seen.add(name.upper())
    spec.name, spec.program = name, program
    return spec


def _config_variable(v, where, dtypes) -> list:
    """The InstanceInits of one ``configVariable`` (none without an initial value)."""
    text = v.get("instancePathAndName") or ""
    path = tuple(part.strip() for part in text.split("."))
    vwhere = f"{where}: configVariable {quote(text)}"
    if len(path) < 2 or not all(path):
        raise PlcOpenError(f"{vwhere}: give the variable as RESOURCE.INSTANCE.VARIABLE")
    if v.get("address"):
        raise PlcOpenError(f"{vwhere}: a location given in VAR_CONFIG (address="
                           f"{quote(v.get('address'))}) is not supported; give the variable "
                           f"its address where the program declares it")
    iv = child(v, "initialValue")
    if iv is None:
        return []
    tp, type_name = type_of(child(v, "type"), vwhere, dtypes)
    if tp is not None:
        return [InstanceInit(path, tp, lambda _tp, iv=iv, tp=tp: dtypes.value(iv, tp, vwhere),
                             vwhere)]
    form = next((c for c in iv if tag(c) == "structValue"), None)
    if form is None:
        raise PlcOpenError(f"{vwhere}: {type_name} is a function block: initialise it with a "
                           f"structValue naming its members")
    # a function block's members, each at the type the instance gives it
    return [InstanceInit(path + (m.get("member") or "",), None,
                         lambda tp, m=m: dtypes.value(m, tp, f"{vwhere}.{m.get('member')}"),
                         vwhere)
            for m in children(form, "value")]


__all__ = ["read_configuration"]
