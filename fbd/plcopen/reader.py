"""Reading PLCopen files: the entry points, as the CLI and the Modbus server use them.

The work is done by :mod:`.source` (the safe parse), :mod:`.interface`
(variables and data types), :mod:`.body` (a body's statements in Beremiz's
order), :mod:`.builder` (statements into a network) and :mod:`.project` (POUs
and the configuration). What is imported and what is refused, with which
error: ``docs/plcopen.md``.
"""

from __future__ import annotations

from ..network import Network
from .project import Configuration, Project, TaskSpec, load, load_project
from .source import PlcOpenError


def save(network: Network, path, **options) -> None:
    """Write ``network`` (and its macros) as a PLCopen project: see
    :mod:`fbd.plcopen.writer`."""
    from .writer import save as _save
    _save(network, path, **options)


__all__ = ["PlcOpenError", "Project", "Configuration", "TaskSpec", "load_project", "load", "save"]
