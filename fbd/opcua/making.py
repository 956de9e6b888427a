"""Nodes made straight into asyncua's store: the address space of a program of
thousands of variables in a fraction of a second.

asyncua's AddNodes service wraps each of a node's twenty-odd attributes in a
Variant and a DataValue it checks anew, and looks through the parent's
references for every child: a millisecond and more a node, seconds for
2048's 5,568. :class:`NodeMaker` makes the same node (the same attributes,
the same references both ways and to its type, as ``tests/fbd/opcua`` checks
against AddNodes) with one DataValue shared by every node for each constant
attribute (asyncua replaces an attribute's DataValue on a write, never
changes it), and only the node's own ids, names and value made for it.
"""

from __future__ import annotations

import datetime

from asyncua import ua
from asyncua.server.address_space import AttributeValue, NodeData

_A = ua.AttributeIds
_OBJECT, _VARIABLE = ua.NodeClass.Object, ua.NodeClass.Variable


def _dv(value, vt: ua.VariantType, is_array: bool = False) -> ua.DataValue:
    return ua.DataValue(ua.Variant(value, vt, is_array=is_array))


class NodeMaker:
    """Makes objects and variables under existing nodes of ``aspace``, in namespace ``ns``."""

    def __init__(self, aspace, ns: int):
        self.aspace = aspace
        self.ns = ns
        self._shared: dict = {}
        self._types = {cls: self._type_reference(ua.NodeId(ident)) for cls, ident in (
            (_OBJECT, ua.ObjectIds.BaseObjectType),
            (_VARIABLE, ua.ObjectIds.BaseDataVariableType))}
        self._class = {cls: _dv(cls, ua.VariantType.Int32) for cls in (_OBJECT, _VARIABLE)}

    def _type_reference(self, nodeid: ua.NodeId) -> ua.ReferenceDescription:
        data = self.aspace[nodeid]
        return ua.ReferenceDescription(
            ReferenceTypeId=ua.NodeId(ua.ObjectIds.HasTypeDefinition), IsForward=True,
            NodeId=nodeid, NodeClass=data.attributes[_A.NodeClass].value.Value.Value,
            BrowseName=data.attributes[_A.BrowseName].value.Value.Value,
            DisplayName=data.attributes[_A.DisplayName].value.Value.Value)

    def _constant(self, key, value, vt: ua.VariantType, is_array: bool = False):
        dv = self._shared.get(key)
        if dv is None:
            dv = self._shared[key] = _dv(value, vt, is_array)
        return dv

    def _node(self, nodeid, name: str, description: str, cls, parent: ua.NodeId,
              reference: int) -> NodeData:
        node = NodeData(nodeid)
        qname = ua.QualifiedName(name, self.ns)
        text = ua.LocalizedText(name)
        a = node.attributes
        a[_A.NodeId] = AttributeValue(_dv(nodeid, ua.VariantType.NodeId))
        a[_A.BrowseName] = AttributeValue(_dv(qname, ua.VariantType.QualifiedName))
        a[_A.NodeClass] = AttributeValue(self._class[cls])
        a[_A.DisplayName] = AttributeValue(_dv(text, ua.VariantType.LocalizedText))
        a[_A.Description] = AttributeValue(_dv(ua.LocalizedText(description),
                                               ua.VariantType.LocalizedText))
        for attr in (_A.WriteMask, _A.UserWriteMask):
            a[attr] = AttributeValue(self._constant(attr, 0, ua.VariantType.UInt32))
        parent_data = self.aspace[parent]
        typedef = self._types[cls]
        parent_data.references.append(ua.ReferenceDescription(
            ReferenceTypeId=ua.NodeId(reference), IsForward=True, NodeId=nodeid, NodeClass=cls,
            BrowseName=qname, DisplayName=text, TypeDefinition=typedef.NodeId))
        pa = parent_data.attributes
        back = ua.ReferenceDescription(
            ReferenceTypeId=ua.NodeId(reference), IsForward=False, NodeId=parent,
            NodeClass=pa[_A.NodeClass].value.Value.Value,
            BrowseName=pa[_A.BrowseName].value.Value.Value,
            DisplayName=pa[_A.DisplayName].value.Value.Value)
        if back.NodeClass in (_OBJECT, _VARIABLE):
            back.TypeDefinition = next((r.NodeId for r in parent_data.references
                                        if r.IsForward and r.ReferenceTypeId
                                        == typedef.ReferenceTypeId), ua.NodeId())
        node.references += [back, typedef]
        self.aspace[nodeid] = node
        return node

    def add_object(self, nodeid, name: str, description: str, parent, reference: int) -> None:
        node = self._node(nodeid, name, description, _OBJECT, parent, reference)
        node.attributes[_A.EventNotifier] = AttributeValue(
            self._constant(_A.EventNotifier, 0, ua.VariantType.Byte))

    def add_variable(self, nodeid, name: str, description: str, parent, *, data_type,
                     value: ua.Variant, dims: tuple, writable: bool) -> NodeData:
        node = self._node(nodeid, name, description, _VARIABLE, parent,
                          ua.ObjectIds.HasComponent)
        a = node.attributes
        now = datetime.datetime.now(datetime.timezone.utc)
        a[_A.Value] = AttributeValue(ua.DataValue(value, SourceTimestamp=now))
        a[_A.DataType] = AttributeValue(self._constant(("type", data_type), data_type,
                                                       ua.VariantType.NodeId))
        rank = len(dims) if dims else ua.ValueRank.Scalar
        a[_A.ValueRank] = AttributeValue(self._constant(("rank", rank), rank,
                                                        ua.VariantType.Int32))
        if dims:
            a[_A.ArrayDimensions] = AttributeValue(self._constant(
                ("dims", dims), list(dims), ua.VariantType.UInt32, is_array=True))
        access = (ua.AccessLevel.CurrentRead.mask | ua.AccessLevel.CurrentWrite.mask
                  if writable else ua.AccessLevel.CurrentRead.mask)
        for attr in (_A.AccessLevel, _A.UserAccessLevel):
            a[attr] = AttributeValue(self._constant(("access", access), access,
                                                    ua.VariantType.Byte))
        a[_A.MinimumSamplingInterval] = AttributeValue(self._constant(
            _A.MinimumSamplingInterval, 0.0, ua.VariantType.Double))
        a[_A.Historizing] = AttributeValue(self._constant(_A.Historizing, False,
                                                          ua.VariantType.Boolean))
        return node


__all__ = ["NodeMaker"]
