"""Exporting a ``.st`` project and loading the file back, scan for scan: the values
of every signal of every task for some scans, BOOL inputs set TRUE before scan 3
and FALSE before scan 7."""

from __future__ import annotations

from fbd.plcopen import validate, write_tree
from fbd.plcopen.st_export import project_xml
from fbd.plcopen.textpous import program_network
from fbd.runtime.plc import Plc
from fbd.st.project import StProject, load

SCANS = 10


def export(st_path, xml_path):
    """``fbd export st_path -o xml_path --validate``: the loaded .st project (a
    ``.txt`` file of matiec's tests too)."""
    project = load(st_path)
    write_tree(project_xml(project), xml_path)
    validate(xml_path)
    return project


def runnable(project) -> bool:
    return project.configuration is not None and project.configuration_error is None \
        and not any(spec.program in project.errors for spec in project.configuration.tasks)


def scans(project, scans: int = SCANS, alone=()) -> list:
    """Each scan's values of every signal of every task (one row per scan), names
    upper-cased (IEC names are; a file may spell one two ways). A project without
    a configuration to run runs each POU of ``alone`` (PROGRAMs and FUNCTION_BLOCKs,
    :func:`stateful`) as a network of its own."""
    if runnable(project):
        plc = project.plc()
        tasks = [(spec.name, plc.task(spec.name).program)
                 for spec in project.configuration.tasks]
        return _rows(plc, tasks, scans, lambda name, path: f"{name}:{path}")
    rows = []
    for name in alone:
        net = program_network(name, project.blocks[name]()) if isinstance(project, StProject) \
            else project.network(name)
        plc = Plc(net, 0.005)
        rows.append(_rows(plc, [(name, plc.program)], scans, lambda _n, path: path))
    return rows


def stateful(project) -> list:
    """The PROGRAMs and FUNCTION_BLOCKs of a loaded ``.st`` file: what runs alone."""
    return sorted(n for n, cls in project.blocks.items() if cls.st_info.kind != "FUNCTION")


def _rows(plc, tasks, scans, key) -> list:
    rows = []
    for k in range(1, scans + 1):
        value = {3: True, 7: False}.get(k)
        if value is not None:
            for name, program in tasks:
                for path, info in program.signals.items():
                    if info.kind == "input" and info.type is not None \
                            and info.type.name == "BOOL":
                        plc.set(key(name, path), value)
        plc.scan()
        rows.append({f"{name}:{path}".upper(): plc.get_raw(key(name, path))
                     for name, program in tasks for path in sorted(program.signals)})
    return rows
