"""Nodes made straight into asyncua's store (fbd.opcua.making) are the nodes its
AddNodes service makes: the same attributes with the same values, the same
references both ways and to their type, so a client browses and reads them alike."""

import asyncio

import pytest

pytest.importorskip("asyncua")
from asyncua import Server, ua  # noqa: E402

from fbd.opcua.making import NodeMaker  # noqa: E402

OWN = {ua.AttributeIds.NodeId, ua.AttributeIds.BrowseName, ua.AttributeIds.DisplayName,
       ua.AttributeIds.Description}


def attributes(node):
    out = {}
    for attr, value in node.attributes.items():
        if attr in OWN:
            continue
        dv = value.value
        out[attr] = (dv.Value.Value, dv.Value.VariantType) if attr != ua.AttributeIds.Value \
            else (dv.Value.Value, dv.Value.VariantType, dv.StatusCode)
    return out


def references(node, ns_ids):
    """The references, with our two node ids named alike."""
    return sorted((str(r.ReferenceTypeId), r.IsForward, ns_ids.get(r.NodeId, str(r.NodeId)),
                   r.NodeClass, str(r.TypeDefinition)) for r in node.references)


@pytest.mark.slow
def test_a_made_object_and_variable_are_what_addnodes_makes():
    async def main():
        server = Server()
        await server.init()
        ns = await server.register_namespace("urn:test")
        aspace = server.iserver.aspace
        objects = server.nodes.objects
        # asyncua's own way
        obj = await objects.add_object(ua.NodeId("a", ns), ua.QualifiedName("a", ns))
        var = await obj.add_variable(ua.NodeId("a.v", ns), ua.QualifiedName("v", ns),
                                     ua.Variant([1, 2, 3], ua.VariantType.Int16),
                                     datatype=ua.NodeId(ua.ObjectIds.Int16))
        await var.write_array_dimensions([3])
        await var.write_value_rank(1)
        await var.set_writable()
        # ours
        maker = NodeMaker(aspace, ns)
        maker.add_object(ua.NodeId("b", ns), "b", "an object", ua.NodeId(
            ua.ObjectIds.ObjectsFolder), ua.ObjectIds.Organizes)
        maker.add_variable(ua.NodeId("b.v", ns), "v", "a variable", ua.NodeId("b", ns),
                           data_type=ua.NodeId(ua.ObjectIds.Int16),
                           value=ua.Variant([1, 2, 3], ua.VariantType.Int16), dims=(3,),
                           writable=True)
        alike = {ua.NodeId("a", ns): "X", ua.NodeId("b", ns): "X",
                 ua.NodeId("a.v", ns): "V", ua.NodeId("b.v", ns): "V"}
        pairs = [(aspace[ua.NodeId(x, ns)], aspace[ua.NodeId(y, ns)])
                 for x, y in (("a", "b"), ("a.v", "b.v"))]
        children = [await n.read_browse_name() for n in await server.get_node(
            ua.NodeId("b", ns)).get_children()]
        return pairs, alike, children
    pairs, alike, children = asyncio.run(main())
    for theirs, ours in pairs:
        assert attributes(ours) == attributes(theirs)
        assert references(ours, alike) == references(theirs, alike)
    assert [c.Name for c in children] == ["v"]
