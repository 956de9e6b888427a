"""The OPC UA server (fbd.opcua) with asyncua's own Client: the address space a PLC
engineer browses, every IEC type read and written bit for bit, writes at the next
scan, whole scans published, refusals by status code. One server for the module
(asyncua takes seconds to start), following each test's PLC; the tests scan the
PLC themselves, so nothing depends on the machine's speed."""

import asyncio
import datetime
import math
import struct

import pytest

asyncua = pytest.importorskip("asyncua")
from asyncua import Client, ua  # noqa: E402

import fbd  # noqa: E402
from fbd import Plc  # noqa: E402
from fbd.opcua.server import NAMESPACE, OpcuaServer  # noqa: E402
from fbd.opcua.space import build_space  # noqa: E402
from programs.game2048 import build as build_2048  # noqa: E402

ELEMENTARY = ["BOOL", "SINT", "INT", "DINT", "LINT", "USINT", "UINT", "UDINT", "ULINT", "BYTE",
              "WORD", "DWORD", "LWORD", "REAL", "LREAL", "STRING", "TIME", "DATE", "TOD", "DT"]

TYPES_ST = """
TYPE
  point : STRUCT x : INT; y : REAL; END_STRUCT;
  percent : INT (0..100);
END_TYPE

FUNCTION_BLOCK counter
  VAR_INPUT up : BOOL; END_VAR
  VAR_OUTPUT cv : INT; END_VAR
  VAR prev : BOOL; END_VAR
  IF up AND NOT prev THEN cv := cv + 1; END_IF;
  prev := up;
END_FUNCTION_BLOCK

PROGRAM prg
  VAR_INPUT
""" + "".join(f"    i_{n.lower()} : {n};\n" for n in ELEMENTARY) + """    level : percent;
    long_text : STRING[200];
    tag : STRING[10];
  END_VAR
  VAR_OUTPUT
""" + "".join(f"    o_{n.lower()} : {n};\n" for n in ELEMENTARY) + """  END_VAR
  VAR
    start AT %IX0.0 : BOOL; (* the start button *)
    lamp AT %QX0.0 : BOOL;
    kept : INT := 42;
    arr : ARRAY[0..3] OF INT;
    grid : ARRAY[1..2, 1..3] OF DINT;
    pt : point;
    c : counter;
    n : DINT;
  END_VAR
  VAR CONSTANT k : INT := 7; END_VAR
""" + "".join(f"  o_{n.lower()} := i_{n.lower()};\n" for n in ELEMENTARY) + """
  n := n + 1;
  lamp := start;
  arr[n MOD 4] := i_int;
  c(up := i_bool);
END_PROGRAM

CONFIGURATION conf
  RESOURCE res ON PLC
    TASK fast(INTERVAL := T#10ms, PRIORITY := 0);
    PROGRAM inst WITH fast : prg;
  END_RESOURCE
END_CONFIGURATION
"""

# A value of every type at an edge: the extremes of the integers, a REAL that is not
# a short decimal, a STRING beyond ASCII, a TIME with a ns part, dates far from 1970.
EDGES = {
    "BOOL": (True, ua.VariantType.Boolean),
    "SINT": (-128, ua.VariantType.SByte), "INT": (-32768, ua.VariantType.Int16),
    "DINT": (-2**31, ua.VariantType.Int32), "LINT": (-2**63, ua.VariantType.Int64),
    "USINT": (255, ua.VariantType.Byte), "UINT": (65535, ua.VariantType.UInt16),
    "UDINT": (2**32 - 1, ua.VariantType.UInt32), "ULINT": (2**64 - 1, ua.VariantType.UInt64),
    "BYTE": (0xA5, ua.VariantType.Byte), "WORD": (0xBEEF, ua.VariantType.UInt16),
    "DWORD": (0xDEADBEEF, ua.VariantType.UInt32),
    "LWORD": (0xFEEDFACECAFEBEEF, ua.VariantType.UInt64),
    "REAL": (struct.unpack("<f", struct.pack("<f", 0.1))[0], ua.VariantType.Float),
    "LREAL": (-1.2345678901234567e-300, ua.VariantType.Double),
    "STRING": ("Größe 20 °C, ok", ua.VariantType.String),
    "TIME": (-1_234_567.891234, ua.VariantType.Double),        # ms: T#-20m34s567ms891us234ns
    "DATE": (datetime.datetime(2261, 12, 31, tzinfo=datetime.timezone.utc),
             ua.VariantType.DateTime),
    "TOD": (86_399_999.999999, ua.VariantType.Double),         # TOD#23:59:59.999999999
    "DT": (datetime.datetime(1678, 1, 1, 0, 0, 0, 1, tzinfo=datetime.timezone.utc),
           ua.VariantType.DateTime),
}
RUN_TIME = {"TIME": -1_234_567_891_234, "TOD": 86_399_999_999_999,
            "DATE": (datetime.date(2261, 12, 31) - datetime.date(1970, 1, 1)).days * 86_400_000_000_000,
            "DT": ((datetime.datetime(1678, 1, 1) - datetime.datetime(1970, 1, 1))
                   // datetime.timedelta(microseconds=1) + 1) * 1000}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    path = tmp_path_factory.mktemp("opcua") / "types.st"
    path.write_text(TYPES_ST)
    plc = fbd.load(str(path)).plc()
    srv = OpcuaServer(plc, port=0, publish_ms=10).start()
    srv.source = str(path)
    yield srv
    srv.stop()


@pytest.fixture
def plc(server):
    """A fresh PLC of the types program, served."""
    plc = fbd.load(server.source).plc()
    server.follow(plc)
    return plc


def run(server, body):
    """Run ``body(client, ns)`` with a client connected to ``server``."""
    async def main():
        async with Client(server.endpoint, timeout=30) as client:
            ns = await client.get_namespace_index(NAMESPACE)
            return await body(client, ns)
    return asyncio.run(main())


def node(client, ns, path):
    return client.get_node(ua.NodeId(f"conf.res.inst.{path}", ns))


async def write(client, ns, path, value, vt) -> ua.StatusCode:
    """The status the server answers a write with (no exception for a bad one)."""
    params = ua.WriteParameters(NodesToWrite=[ua.WriteValue(
        NodeId=ua.NodeId(f"conf.res.inst.{path}", ns), AttributeId=ua.AttributeIds.Value,
        Value=ua.DataValue(ua.Variant(value, vt)))])
    return (await client.uaclient.write(params))[0]


def scan(server, plc, n=1):
    plc.scan(n)
    server.publish_now()


# --------------------------------------------------------------------- the address space
def test_the_space_is_configuration_resource_instance_variable_with_fb_instances_and_structures(
        plc):
    space = build_space(plc)
    inst = space.root.children["res"].children["inst"]
    assert (space.root.name, inst.path) == ("conf", "conf.res.inst")
    assert set(inst.children["c"].children) == {"up", "cv", "prev"}          # an FB instance
    assert set(inst.children["pt"].children) == {"x", "y"}                   # a structure
    assert inst.children["start"].description == \
        "VAR start AT %IX0.0 : BOOL (the start button)"


def test_a_client_browses_to_a_variable_by_its_iec_path_and_reads_its_declaration(server, plc):
    async def body(client, ns):
        var = await client.nodes.objects.get_child(
            [f"{ns}:conf", f"{ns}:res", f"{ns}:inst", f"{ns}:c", f"{ns}:cv"])
        names = [(await n.read_browse_name()).Name
                 for n in await client.get_node(ua.NodeId("conf.res.inst.pt", ns)).get_children()]
        arr, grid = node(client, ns, "arr"), node(client, ns, "grid")
        return (var.nodeid.Identifier, (await var.read_description()).Text, names,
                await arr.read_value(), await arr.read_array_dimensions(),
                await grid.read_value(), await grid.read_value_rank())
    ident, description, members, arr, dims, grid, rank = run(server, body)
    assert ident == "conf.res.inst.c.cv" and description == "VAR_OUTPUT cv : INT"
    assert members == ["x", "y"]
    assert arr == [0, 0, 0, 0] and dims == [4]
    assert grid == [[0, 0, 0], [0, 0, 0]] and rank == 2


def test_every_iec_type_has_its_opc_ua_data_type(server, plc):
    expected = {"BOOL": "Boolean", "SINT": "SByte", "INT": "Int16", "DINT": "Int32",
                "LINT": "Int64", "USINT": "Byte", "UINT": "UInt16", "UDINT": "UInt32",
                "ULINT": "UInt64", "BYTE": "Byte", "WORD": "UInt16", "DWORD": "UInt32",
                "LWORD": "UInt64", "REAL": "Float", "LREAL": "Double", "STRING": "String",
                "TIME": "Duration", "DATE": "DateTime", "TOD": "Duration", "DT": "DateTime"}

    async def body(client, ns):
        out = {}
        for name in ELEMENTARY:
            dt = await node(client, ns, f"o_{name.lower()}").read_data_type()
            out[name] = (await client.get_node(dt).read_browse_name()).Name
        return out
    assert run(server, body) == expected


# ------------------------------------------------------------------- values, both ways
def test_every_type_round_trips_bit_for_bit_through_the_program(server, plc):
    async def body(client, ns):
        for name, (value, vt) in EDGES.items():
            assert (await write(client, ns, f"i_{name.lower()}", value, vt)).is_good(), name
        await asyncio.to_thread(scan, server, plc)
        return {name: (await node(client, ns, f"o_{name.lower()}").read_data_value()).Value
                for name in ELEMENTARY}
    read = run(server, body)
    for name, (value, vt) in EDGES.items():
        assert read[name].VariantType == vt, name
        if vt is ua.VariantType.Float or vt is ua.VariantType.Double:
            assert struct.pack("<d", read[name].Value) == struct.pack("<d", value), name
        else:
            assert read[name].Value == value, name
        assert plc.get_raw(f"inst.o_{name.lower()}") == RUN_TIME.get(name, value), name


def test_what_the_program_computes_reads_identically_in_the_client(server, plc):
    plc.write("inst.i_real", -0.0)
    plc.write("inst.i_lreal", math.inf)
    plc.write("inst.i_time", "T#1d2h3m4s5ms6us")
    scan(server, plc)

    async def body(client, ns):
        return [(await node(client, ns, p).read_value()) for p in ("o_real", "o_lreal", "o_time")]
    real, lreal, time_ms = run(server, body)
    assert math.copysign(1, real) == -1 and lreal == math.inf
    assert time_ms == 93_784_005.006


def test_a_write_lands_at_the_next_scan_and_changes_the_output_then(server, plc):
    async def body(client, ns):
        assert (await write(client, ns, "i_int", 1234, ua.VariantType.Int16)).is_good()
        before = await node(client, ns, "o_int").read_value(), plc.get("inst.i_int")
        await asyncio.to_thread(scan, server, plc)
        return before, await node(client, ns, "o_int").read_value()
    (before_out, before_in), after = run(server, body)
    assert (before_out, before_in, after) == (0, 0, 1234)


def test_nothing_is_written_unless_a_client_writes_it(server, plc):
    plc.write("inst.kept", 99)
    scan(server, plc, 3)

    async def body(client, ns):
        return await node(client, ns, "kept").read_value()
    assert run(server, body) == 99 and plc.get("inst.kept") == 99


def test_writes_to_one_variable_before_a_scan_leave_the_last_one(server, plc):
    async def body(client, ns):
        for v in (1, 2, 3):
            await write(client, ns, "i_dint", v, ua.VariantType.Int32)
        await asyncio.to_thread(scan, server, plc)
        return await node(client, ns, "o_dint").read_value()
    assert run(server, body) == 3


def test_a_declared_string_takes_a_write_of_its_own_length(server, plc):
    async def body(client, ns):
        assert (await write(client, ns, "long_text", "y" * 200, ua.VariantType.String)).is_good()
        await asyncio.to_thread(scan, server, plc)
        return await node(client, ns, "long_text").read_value()
    assert run(server, body) == "y" * 200


def test_a_structure_member_and_a_located_input_are_written_in_place(server, plc):
    async def body(client, ns):
        assert (await write(client, ns, "pt.y", 2.5, ua.VariantType.Float)).is_good()
        assert (await write(client, ns, "start", True, ua.VariantType.Boolean)).is_good()
        await asyncio.to_thread(scan, server, plc)
        return await node(client, ns, "lamp").read_value()
    assert run(server, body) is True
    assert plc.get("inst.pt") == {"x": 0, "y": 2.5}


def test_the_values_of_one_write_request_are_queued_together_for_the_same_scan(
        server, plc, monkeypatch):
    """A client writing a structure's fields in one request never sees the program
    take one field without the other (the refused one is left out)."""
    queued = []
    image_queue = server.image.queue
    monkeypatch.setattr(server.image, "queue",
                        lambda writes: (queued.append([v.path for v, _ in writes]),
                                        image_queue(writes)))

    async def body(client, ns):
        values = [("pt.x", 7, ua.VariantType.Int16), ("o_int", 1, ua.VariantType.Int16),
                  ("pt.y", 0.5, ua.VariantType.Float)]
        answer = await client.uaclient.write(ua.WriteParameters(NodesToWrite=[ua.WriteValue(
            NodeId=ua.NodeId(f"conf.res.inst.{path}", ns), AttributeId=ua.AttributeIds.Value,
            Value=ua.DataValue(ua.Variant(value, vt))) for path, value, vt in values]))
        await asyncio.to_thread(scan, server, plc)
        return [status.name for status in answer]
    assert run(server, body) == ["Good", "BadNotWritable", "Good"]
    assert queued == [["conf.res.inst.pt.x", "conf.res.inst.pt.y"]]
    assert plc.get("inst.pt") == {"x": 7, "y": 0.5}


@pytest.mark.parametrize("path, value, vt, status", [
    ("o_int", 1, ua.VariantType.Int16, "BadNotWritable"),            # an output
    ("lamp", True, ua.VariantType.Boolean, "BadNotWritable"),        # a located output
    ("k", 1, ua.VariantType.Int16, "BadNotWritable"),                # a constant
    ("c.cv", 1, ua.VariantType.Int16, "BadNotWritable"),             # an FB's output
    ("i_int", 1, ua.VariantType.Int64, "BadTypeMismatch"),           # what asyncua guesses for 1
    ("i_real", 1.0, ua.VariantType.Double, "BadTypeMismatch"),
    ("arr", 1, ua.VariantType.Int16, "BadTypeMismatch"),             # a scalar for an array
    ("arr", [1, 2], ua.VariantType.Int16, "BadTypeMismatch"),        # too short
    ("level", 101, ua.VariantType.Int16, "BadOutOfRange"),           # a subrange's bound
    ("i_string", "x" * 127, ua.VariantType.String, "BadOutOfRange"),  # STRING's 126
    ("tag", "x" * 11, ua.VariantType.String, "BadOutOfRange"),       # STRING[10]'s 10
    ("long_text", "x" * 201, ua.VariantType.String, "BadOutOfRange"),
    ("i_date", datetime.datetime(2020, 1, 1, 12), ua.VariantType.DateTime, "BadOutOfRange"),
    ("i_tod", 86_400_000.0, ua.VariantType.Double, "BadOutOfRange"),
    ("i_time", math.nan, ua.VariantType.Double, "BadOutOfRange"),
])
def test_a_refused_write_gets_its_status_code_and_changes_nothing(server, plc, path, value, vt,
                                                                   status):
    async def body(client, ns):
        answer = await write(client, ns, path, value, vt)
        await asyncio.to_thread(scan, server, plc)
        return answer, await node(client, ns, "n").read_value()
    answer, n = run(server, body)
    assert answer.name == status and n == 1           # and the server goes on scanning
    assert server.image.applied == 0


# ------------------------------------------------------------------------- subscriptions
def test_a_subscription_sees_every_variable_of_a_notification_from_one_scan(server, plc):
    async def body(client, ns):
        seen = []

        class Handler:
            def datachange_notification(self, n, value, data):
                seen.append((n.nodeid.Identifier, value, data.monitored_item.Value.SourceTimestamp))
        sub = await client.create_subscription(20, Handler())
        await sub.subscribe_data_change([node(client, ns, "n"), node(client, ns, "c.cv"),
                                         node(client, ns, "o_bool")])
        for k in range(6):
            await write(client, ns, "i_bool", k % 2 == 0, ua.VariantType.Boolean)
            await asyncio.to_thread(scan, server, plc)
            await asyncio.sleep(0.05)
        await sub.delete()
        return seen
    seen = run(server, body)
    by_stamp = {}
    for ident, value, stamp in seen:
        by_stamp.setdefault(stamp, {})[ident] = value
    rows = [r for r in by_stamp.values() if "conf.res.inst.n" in r and "conf.res.inst.c.cv" in r]
    assert rows
    for row in rows:      # cv counts the rising edges of i_bool: scans 1, 3, 5
        assert row["conf.res.inst.c.cv"] == (row["conf.res.inst.n"] + 1) // 2


# -------------------------------------------------------------------------- other programs
def test_2048_is_served_as_config_resource1_and_played_through_its_inputs(server):
    plc = Plc(build_2048())
    server.follow(plc)

    async def body(client, ns):
        game = await client.nodes.objects.get_child([f"{ns}:config", f"{ns}:resource1",
                                                     f"{ns}:Game2048"])
        cmd, seq = await game.get_child(f"{ns}:CMD"), await game.get_child(f"{ns}:CMD_SEQ")
        assert (await cmd.write_value(ua.DataValue(ua.Variant(5, ua.VariantType.Int16)))) is None
        await seq.write_value(ua.DataValue(ua.Variant(1, ua.VariantType.Int16)))
        await asyncio.to_thread(lambda: (plc.run_until(lambda p: p.get("EMPTY") == 14),
                                         server.publish_now()))
        taken = await game.get_child(f"{ns}:TAKEN")
        empty = await game.get_child(f"{ns}:EMPTY")
        cell = await client.nodes.objects.get_child(
            [f"{ns}:config", f"{ns}:resource1", f"{ns}:Game2048", f"{ns}:control"])
        return await taken.read_value(), await empty.read_value(), await cell.get_children()
    taken, empty, inner = run(server, body)
    assert taken == 1 and empty == 14 and inner


def test_a_configuration_of_two_tasks_serves_both_instances_and_its_globals(server, tmp_path):
    path = tmp_path / "two.st"
    path.write_text("""
PROGRAM counter
  VAR_EXTERNAL total : DINT; END_VAR
  VAR n : DINT; END_VAR
  n := n + 1; total := total + 1;
END_PROGRAM
CONFIGURATION plant
  VAR_GLOBAL total : DINT; END_VAR
  RESOURCE cpu ON PLC
    TASK fast(INTERVAL := T#10ms, PRIORITY := 0);
    TASK slow(INTERVAL := T#20ms, PRIORITY := 1);
    PROGRAM a WITH fast : counter;
    PROGRAM b WITH slow : counter;
  END_RESOURCE
END_CONFIGURATION
""")
    plc = fbd.load(str(path)).plc()
    server.follow(plc)
    scan(server, plc, 4)

    async def body(client, ns):
        def get(p):
            return client.get_node(ua.NodeId(p, ns)).read_value()
        external = client.get_node(ua.NodeId("plant.cpu.a.TOTAL", ns))   # as the front end has it
        return (await get("plant.cpu.a.n"), await get("plant.cpu.b.n"), await get("plant.total"),
                (await external.read_description()).Text)
    assert run(server, body) == (4, 2, 6, "VAR_EXTERNAL TOTAL : DINT")


def test_an_online_change_of_a_configuration_is_served_at_once(server, tmp_path):
    source = """
PROGRAM counter
  VAR_EXTERNAL total : DINT; END_VAR
  VAR n : DINT; END_VAR
  n := n + 1; total := total + 1;
END_PROGRAM
CONFIGURATION plant
  VAR_GLOBAL total : DINT; END_VAR
  RESOURCE cpu ON PLC
    TASK fast(INTERVAL := T#10ms, PRIORITY := 0);
    TASK slow(INTERVAL := T#20ms, PRIORITY := 1);
    PROGRAM a WITH fast : counter;
    PROGRAM b WITH slow : counter;
  END_RESOURCE
END_CONFIGURATION
"""
    path = tmp_path / "two.st"
    path.write_text(source)
    plc = fbd.load(str(path)).plc()
    server.follow(plc)
    scan(server, plc, 4)
    path.write_text(source.replace("VAR n : DINT; END_VAR", "VAR n : DINT; twice : DINT; END_VAR")
                    .replace("n := n + 1;", "n := n + 1; twice := 2 * n;"))
    plc.replace_configuration(fbd.load(str(path)))    # between scans, as a reload does
    scan(server, plc, 1)

    async def body(client, ns):
        return [await client.get_node(ua.NodeId(f"plant.{name}", ns)).read_value()
                for name in ("cpu.a.n", "cpu.a.twice", "cpu.b.twice", "total")]
    assert run(server, body) == [5, 10, 6, 8]      # both ran at 40 ms, the new program


# ---------------------------------------------------------------------- the PLC object
FAULTY_ST = """
PROGRAM prg
  VAR_INPUT upto : INT := 3; END_VAR
  VAR a : ARRAY[0..3] OF INT; i : INT; END_VAR
  a[i] := i;
  IF i < upto THEN i := i + 1; ELSE i := i + 2; END_IF;
END_PROGRAM
CONFIGURATION conf
  RESOURCE res ON PLC
    TASK t(INTERVAL := T#10ms, PRIORITY := 0);
    PROGRAM inst WITH t : prg;
  END_RESOURCE
END_CONFIGURATION
"""


def test_the_plc_object_shows_the_state_and_its_methods_stop_start_and_restart(server,
                                                                             tmp_path):
    path = tmp_path / "faulty.st"
    path.write_text(FAULTY_ST)
    plc = fbd.load(str(path)).plc()
    server.follow(plc)
    with pytest.raises(fbd.errors.FbdError):
        plc.scan(6)               # i: 0 1 2 3 5 -> a[5] in scan 5
    server.publish_now()

    async def body(client, ns):
        obj = client.get_node(ua.NodeId("PLC", ns))

        async def state():
            return [await client.get_node(ua.NodeId(f"PLC.{n}", ns)).read_value()
                    for n in ("State", "FaultCode", "Scans", "Engine")]
        faulted = await state()
        fault_text = await client.get_node(ua.NodeId("PLC.Fault", ns)).read_value()
        with pytest.raises(ua.uaerrors.BadInvalidState):
            await obj.call_method(f"{ns}:Start")
        await obj.call_method(f"{ns}:ColdRestart")
        await asyncio.to_thread(lambda: (plc.serve_requests(), plc.scan(2), server.publish_now()))
        running = await state()
        await obj.call_method(f"{ns}:Stop")
        await asyncio.to_thread(lambda: (plc.serve_requests(), server.publish_now()))
        stopped = (await state())[0]
        await obj.call_method(f"{ns}:Start")
        await asyncio.to_thread(lambda: (plc.serve_requests(), server.publish_now()))
        return faulted, fault_text, running, stopped, (await state())[0]
    faulted, fault_text, running, stopped, started = run(server, body)
    assert faulted[:3] == ["FAULT", 1, 4] and faulted[3] in ("python", "native")
    assert fault_text.startswith("scan 5 of task inst")
    assert running[:3] == ["RUN", 0, 6] and (stopped, started) == ("STOP", "RUN")


# ------------------------------------------------------------------------ online change
COUNTER_ST = """
PROGRAM prg
  VAR_INPUT inc : INT := 1; END_VAR
  VAR n : INT; END_VAR
  n := n + inc;
END_PROGRAM
"""


def test_an_online_change_is_served_at_once_and_subscriptions_to_what_stayed_go_on(server,
                                                                                  tmp_path):
    path = tmp_path / "counter.st"
    path.write_text(COUNTER_ST)
    plc = Plc(fbd.load_network(f"{path}:prg"))
    server.follow(plc)
    scan(server, plc, 3)
    base = "config.resource1.prg"

    def change():
        path.write_text(COUNTER_ST.replace("VAR n : INT; END_VAR",
                                           "VAR n : INT; twice : INT; END_VAR")
                        .replace("n := n + inc;", "n := n + inc; twice := 2 * n;"))
        plc.replace_program(fbd.load_network(f"{path}:prg"))  # between scans, as a reload does
        scan(server, plc, 1)

    async def body(client, ns):
        seen = asyncio.Queue()

        class Handler:
            def datachange_notification(self, node, value, data):
                seen.put_nowait(value)
        sub = await client.create_subscription(20, Handler())
        await sub.subscribe_data_change([client.get_node(ua.NodeId(f"{base}.n", ns))])
        assert await asyncio.wait_for(seen.get(), 30) == 3
        await asyncio.to_thread(change)
        after = await asyncio.wait_for(seen.get(), 30)     # the same monitored item
        values = [await client.get_node(ua.NodeId(f"{base}.{name}", ns)).read_value()
                  for name in ("n", "twice")]
        await sub.delete()
        return after, values
    assert run(server, body) == (4, [4, 8])     # n kept its 3 across the change
