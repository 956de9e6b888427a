"""PLCopen TC6 XML: projects saved by Beremiz and OpenPLC Editor in (:mod:`.reader`),
networks out (:mod:`.writer`).

    project = fbd.plcopen.load_project("plc.xml")
    fbd.plcopen.save(network, "out.xml")
"""

from .reader import Configuration, PlcOpenError, Project, TaskSpec, load, load_project, save
from .writer import ExportError, native_st, schema_path, to_xml, validate, write_tree

__all__ = ["PlcOpenError", "Project", "Configuration", "TaskSpec", "load_project", "load", "save",
           "to_xml", "native_st", "schema_path", "validate", "ExportError",
           "write_tree"]
