"""The names of a configuration's variables, as IEC 61131-3 spells them.

A variable of a program instance is named by the instance: ``a.n`` is the
variable ``n`` of ``PROGRAM a WITH fast : counter``, ``a.t1.Q`` a member of
its FB instance ``t1``, whatever the program's type and whichever instance
runs first. The resource and the configuration may qualify it, as matiec's
variable list and the Beremiz and OpenPLC debuggers write it:
``CONF.RES.A.N`` and ``RES.A.N`` name the same variable. A global is named
alone (``g``), or under its configuration or resource (``CONF.G``). Names
ignore case where IEC's do: the instance, resource and configuration names.

Inside, each program instance is a PLC task running its program's network,
whose own paths differ: an FBD program's variables are the network's paths
(``n``), a text program's are its block's (``counter.n``). The older
spelling ``instance:network-path`` (``a:counter.n``), and a path of the main
task's network alone (``counter.n``), still name what they named.
"""

from __future__ import annotations

from ..errors import UnknownSignal


class Instance:
    """One program instance: its name, the task running it, and where its
    variables are in the task's network (``body``: the block holding them, or
    None when they are the network's own paths)."""

    def __init__(self, name: str, task, body: str | None, resource: str):
        self.name = name
        self.task = task
        self.body = body
        self.resource = resource
        self._folded: dict[str, str] | None = None    # PATH -> path, made when first needed

    def program_path(self, rest: str) -> str:
        """The task's path of the instance's variable ``rest`` (IEC names ignore case)."""
        program = self.task.program
        # a text program's located inputs are the network's inputs too, and that is
        # what a write from outside must reach (set latches it); its outputs are
        # published from its own variables, which are read before
        port = next((p for p in program.inputs if p.upper() == rest.upper()),
                    None) if self.body is not None else None
        path = rest if self.body is None else port or f"{self.body}.{rest}"
        signals = program.signals
        if path not in signals:
            path = self._fold().get(path.upper(), path)
        return path

    def _fold(self) -> dict:
        if self._folded is None:
            self._folded = {}
            for path in self.task.program.signals:
                self._folded.setdefault(path.upper(), path)
        return self._folded

    def iec_path(self, program_path: str) -> str:
        """The IEC name of one of the task's paths."""
        if self.body is not None and program_path.startswith(self.body + "."):
            program_path = program_path[len(self.body) + 1:]
        return f"{self.name}.{program_path}"

    def signal(self, rest: str):
        try:
            info = self.task.program.signal(self.program_path(rest))
        except UnknownSignal:
            raise UnknownSignal(f"{self.name}.{rest}", self.paths()) from None
        return info._replace(path=f"{self.name}.{rest}")

    def paths(self) -> list[str]:
        return list(dict.fromkeys(self.iec_path(p) for p in self.task.program.signals))


class ConfigurationNames:
    """Every variable of a running configuration by its IEC name: what
    :meth:`Plc.get` and the other verbs look a path up in first."""

    def __init__(self, configuration: str, resources, globals_table):
        self.configuration = configuration
        self.resources = {r.upper() for r in resources if r}
        self.globals = globals_table
        self.instances: dict[str, Instance] = {}
        self._by_task: dict[int, Instance] = {}

    def add(self, instance: Instance) -> None:
        self.instances[instance.name.upper()] = instance
        self._by_task[id(instance.task)] = instance

    def instance_of(self, task) -> Instance | None:
        return self._by_task.get(id(task))

    def locate(self, path: str):
        """(task, SignalInfo) of an IEC name, or None when ``path`` is not one
        (it may then be an older spelling)."""
        parts = path.split(".")
        start, resource = 0, None
        if len(parts) > 1 and parts[0].upper() == self.configuration.upper():
            start = 1
        if len(parts) > start + 1 and parts[start].upper() in self.resources:
            resource = parts[start].upper()
            start += 1
        head = parts[start].upper()
        instance = self.instances.get(head)
        if instance is not None and resource not in (None, instance.resource.upper()):
            instance = None         # another resource's instance
        if instance is not None and len(parts) > start + 1:
            return instance.task, instance.signal(".".join(parts[start + 1:]))
        if len(parts) == start + 1 and head in self.globals.index:
            return self.globals, self.globals.signal(parts[start])
        if start:       # qualified by the configuration or a resource, yet no variable
            raise UnknownSignal(path, self.paths())
        return None

    def paths(self) -> list[str]:
        """Every IEC name: the globals, then each instance's variables."""
        out = list(self.globals.names)
        for instance in self.instances.values():
            out += instance.paths()
        return out


__all__ = ["Instance", "ConfigurationNames"]
