"""``fbd serve PROGRAM --opcua`` as a user runs it: one-line errors, and (slow) a
served .st program driven by asyncua's Client and its command-line tools, a client
vanishing mid-subscription, 50 clients at once and malformed requests, after
which the server still serves. No timed assertions: waits end on the event, with
deadlines a passing run never reaches."""

import asyncio
import contextlib
import datetime
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("asyncua")
from asyncua import Client, ua  # noqa: E402

from fbd.tools import cli  # noqa: E402
from tests.fbd.opcua.test_opcua import EDGES, ELEMENTARY, TYPES_ST  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
AS_FROM_A_TERMINAL = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                      "from fbd.tools.cli import main; sys.exit(main(sys.argv[1:]))")


@pytest.mark.parametrize("argv, message", [
    (["--no-modbus"], "--no-modbus leaves nothing to serve; add --opcua"),
    (["--opcua", "--opcua-port", "70000"], "--opcua-port 70000: a TCP port is a whole"),
    (["--opcua", "--bind", "0.0.0.0"], "takes only users with passwords; add --opcua-user"),
    (["--opcua", "--opcua-user", "op"], "--opcua-user op:...: give NAME:PASSWORD"),
    (["--opcua", "--opcua-publish", "5"], "--opcua-publish 5: milliseconds"),
    (["--opcua", "--opcua-trust", "."], "--opcua-trust .: client certificates come with "
                                        "Basic256Sha256, which the server offers to users"),
    (["--opcua", "--opcua-user", "op:pw", "--opcua-trust", "nowhere"],
     "--opcua-trust nowhere: not a directory"),
])
def test_serve_opcua_user_errors_are_one_line_and_status_2(capsys, tmp_path, argv, message):
    path = tmp_path / "types.st"
    path.write_text(TYPES_ST)
    assert cli.main(["serve", str(path), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fbd: error: ") and message in err and err.count("\n") == 1, err


def test_serve_opcua_without_the_extra_says_how_to_install_it(capsys, monkeypatch, tmp_path):
    path = tmp_path / "types.st"
    path.write_text(TYPES_ST)
    monkeypatch.setitem(sys.modules, "fbd.opcua.server", None)     # as if asyncua were missing
    assert cli.main(["serve", str(path), "--opcua"]) == 2
    assert "pip install 'fbd-sim[opcua]'" in capsys.readouterr().err


@pytest.mark.slow
def test_serve_opcua_port_in_use_is_one_line(capsys, tmp_path):
    path = tmp_path / "types.st"
    path.write_text(TYPES_ST)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        assert cli.main(["serve", str(path), "--opcua", "--opcua-port",
                         str(s.getsockname()[1])]) == 2
    err = capsys.readouterr().err
    assert "the port is in use" in err and err.count("\n") == 1


@contextlib.contextmanager
def fbd_serve(path, *options):
    """``fbd serve PATH --opcua --opcua-port 0 OPTIONS`` in a process of its own:
    yields (its endpoint, the process); Ctrl-C must end it with status 0."""
    proc = subprocess.Popen([sys.executable, "-c", AS_FROM_A_TERMINAL, "serve", str(path),
                             "--opcua", "--opcua-port", "0", *options],
                            cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline()
        assert "over OPC UA at opc.tcp://" in first, first
        endpoint = first.split(" at ")[1].split(" ")[0]
        yield endpoint, proc
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        proc.rest = proc.stderr.read()
        assert "Traceback" not in proc.rest, proc.rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


async def until(read, wanted, what):
    """Read until ``read()`` gives ``wanted`` (a scan later, however loaded the machine)."""
    for _ in range(3000):
        got = await read()
        if got == wanted:
            return got
        await asyncio.sleep(0.01)
    raise AssertionError(f"{what}: still {got!r}, not {wanted!r}")


@pytest.mark.slow
def test_a_client_browses_subscribes_writes_every_type_and_sees_the_outputs_change(tmp_path):
    """The issue's 'done when': only asyncua's client, against fbd serve prog.st --opcua."""
    path = tmp_path / "prog.st"
    path.write_text(TYPES_ST)

    async def main(endpoint):
        async with Client(endpoint, timeout=30) as client:
            ns = await client.get_namespace_index("urn:fbd-sim:plc")
            inst = await client.nodes.objects.get_child([f"{ns}:conf", f"{ns}:res",
                                                         f"{ns}:inst"])
            changes = asyncio.Queue()

            class Handler:
                def datachange_notification(self, node, value, data):
                    changes.put_nowait((node.nodeid.Identifier, value))
            sub = await client.create_subscription(50, Handler())
            outputs = {n: await inst.get_child(f"{ns}:o_{n.lower()}") for n in ELEMENTARY}
            await sub.subscribe_data_change(list(outputs.values()))
            for name in ELEMENTARY:
                value, vt = EDGES[name]
                node = await inst.get_child(f"{ns}:i_{name.lower()}")
                await node.write_value(ua.DataValue(ua.Variant(value, vt)))
                wanted = f"conf.res.inst.o_{name.lower()}"
                while True:     # the subscription tells the output's change
                    ident, seen = await asyncio.wait_for(changes.get(), 60)
                    if ident == wanted and seen == value:
                        break
                read = await outputs[name].read_data_value()
                assert read.Value.Value == value and read.Value.VariantType == vt, name
    with fbd_serve(path) as (endpoint, _proc):
        asyncio.run(main(endpoint))


def tool(name, *args):
    done = subprocess.run([str(BIN / name), *args], capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.slow
def test_asyncuas_command_line_tools_browse_read_write_and_subscribe(tmp_path):
    path = tmp_path / "prog.st"
    path.write_text(TYPES_ST)
    with fbd_serve(path) as (url, proc):
        rc, out = tool("uals", "-u", url, "-p", "0:Objects,2:conf,2:res,2:inst,2:c", "-l", "1")
        assert rc == 0 and "ns=2;s=conf.res.inst.c.cv" in out, out
        rc, out = tool("uawrite", "-u", url, "-n", "ns=2;s=conf.res.inst.i_string", "-t", "string",
                       "hello OPC UA")
        assert rc == 0, out

        async def echoed():
            async with Client(url, timeout=30) as client:
                node = client.get_node("ns=2;s=conf.res.inst.o_string")
                return await until(node.read_value, "hello OPC UA", "o_string")
        asyncio.run(echoed())
        rc, out = tool("uaread", "-u", url, "-n", "ns=2;s=conf.res.inst.o_string")
        assert rc == 0 and out.splitlines()[0] == "hello OPC UA", out
        rc, out = tool("uawrite", "-u", url, "-n", "ns=2;s=conf.res.inst.o_int", "-t", "int16", "5")
        assert "BadNotWritable" in out
        sub = subprocess.Popen([str(BIN / "uasubscribe"), "-u", url, "-n",
                                "ns=2;s=conf.res.inst.n"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        try:
            lines = [sub.stdout.readline() for _ in range(4)]
        finally:
            sub.kill()          # a client gone mid-subscription, without closing its session
            sub.wait()
            sub.stdout.close()
        assert sum("conf.res.inst.n" in line for line in lines) >= 2, lines
        rc, out = tool("uaread", "-u", url, "-n", "ns=2;s=PLC.State")
        assert rc == 0 and out.splitlines()[0] == "RUN", out
    assert "OPC UA: 2 writes, 1 refused" in proc.rest or "OPC UA: 1 writes, 1 refused" in proc.rest


@pytest.mark.slow
def test_fifty_clients_at_once_and_malformed_requests_leave_the_server_serving(tmp_path):
    path = tmp_path / "prog.st"
    path.write_text(TYPES_ST)

    async def one(endpoint, k):
        async with Client(endpoint, timeout=60) as client:
            node = client.get_node("ns=2;s=conf.res.inst.i_dint")
            await node.write_value(ua.DataValue(ua.Variant(k, ua.VariantType.Int32)))
            sub = await client.create_subscription(100, None)
            await sub.subscribe_data_change([client.get_node("ns=2;s=conf.res.inst.n")])
            return await client.get_node("ns=2;s=PLC.State").read_value()

    async def fifty(endpoint):
        return await asyncio.gather(*(one(endpoint, k) for k in range(50)))

    def malformed(host, port):
        garbage = [b"\x00" * 64, b"HELF\xff\xff\xff\xff", b"HELF" + (8).to_bytes(4, "little"),
                   b"MSGF" + (1 << 30).to_bytes(4, "little") + os.urandom(64),
                   b"HELF" + (60).to_bytes(4, "little") + os.urandom(52), os.urandom(4096)]
        for data in garbage:
            with socket.create_connection((host, port), timeout=30) as s:
                s.sendall(data)
                s.shutdown(socket.SHUT_WR)
                with contextlib.suppress(OSError):
                    while s.recv(4096):
                        pass

    with fbd_serve(path) as (url, proc):
        host, port = url[len("opc.tcp://"):].rstrip("/").rsplit(":", 1)
        assert asyncio.run(fifty(url)) == ["RUN"] * 50
        malformed(host, int(port))

        async def still():
            async with Client(url, timeout=30) as client:
                return await client.get_node("ns=2;s=PLC.State").read_value(), \
                    await client.get_node("ns=2;s=conf.res.inst.k").read_value()
        assert asyncio.run(still()) == ("RUN", 7)
        assert proc.poll() is None


def test_a_written_date_reads_back_as_the_same_instant_in_utc():
    from fbd.opcua.codec import codec
    from fbd.types import DT
    cd = codec(DT)
    when = datetime.datetime(2026, 12, 5, 15, 30, 0, 123456, tzinfo=datetime.timezone.utc)
    assert cd.encode(cd.decode(when)) == when
    naive = when.replace(tzinfo=None)       # asyncua decodes DateTime naive, meaning UTC
    assert cd.decode(naive) == cd.decode(when)


@pytest.mark.slow
def test_bound_elsewhere_only_users_over_basic256sha256_get_in_and_a_bad_login_is_logged(
        tmp_path, capfd):
    from asyncua.crypto.cert_gen import setup_self_signed_certificate
    from cryptography.x509.oid import ExtendedKeyUsageOID

    import fbd
    from fbd.opcua.security import security_for
    from fbd.opcua.server import OpcuaServer
    path = tmp_path / "prog.st"
    path.write_text(TYPES_ST)
    security = security_for("0.0.0.0", ["op:s3cret"], str(tmp_path / "server"))
    server = OpcuaServer(fbd.load(str(path)).plc(), host="0.0.0.0", port=0,
                         security=security).start()
    url = f"opc.tcp://127.0.0.1:{server.port}/"
    key, cert = tmp_path / "client-key.pem", tmp_path / "client-cert.der"

    async def attempt(policy, user, password):
        client = Client(url, timeout=30)
        if policy:
            await client.set_security_string(f"Basic256Sha256,{policy},{cert},{key}")
        if user:
            client.set_user(user)
            client.set_password(password)
        try:
            async with client:
                node = client.get_node("ns=2;s=conf.res.inst.i_int")
                answer = await client.uaclient.write(ua.WriteParameters(NodesToWrite=[
                    ua.WriteValue(NodeId=node.nodeid, AttributeId=ua.AttributeIds.Value,
                                  Value=ua.DataValue(ua.Variant(7, ua.VariantType.Int16)))]))
                return answer[0].name
        except Exception as e:   # noqa: BLE001 - the refusal is what is looked at
            return type(e).__name__

    async def main():
        await setup_self_signed_certificate(key, cert, "urn:fbd-sim:test-client", "localhost",
                                            [ExtendedKeyUsageOID.CLIENT_AUTH],
                                            {"commonName": "test client"})
        return [await attempt("SignAndEncrypt", "op", "s3cret"),
                await attempt("Sign", "op", "s3cret"),
                await attempt("SignAndEncrypt", "op", "wrong"),
                await attempt("Sign", None, None),
                await attempt(None, None, None)]
    try:
        results = asyncio.run(main())
        assert results[:2] == ["Good", "Good"]
        assert results[2] == "BadUserAccessDenied" and results[3] == "BadIdentityTokenRejected"
        assert results[4] == "UaError"                     # no endpoint without security
        assert server.running
    finally:
        server.stop()
    err = capfd.readouterr().err       # the server's process logs on the shared stderr
    assert "fbd: opcua: refused a login as 'op': wrong user name or password" in err


@pytest.mark.slow
def test_with_a_trust_list_an_unknown_client_certificate_is_refused_logged_and_kept(
        tmp_path, capfd):
    from asyncua.crypto.cert_gen import setup_self_signed_certificate
    from cryptography.x509.oid import ExtendedKeyUsageOID

    import fbd
    from fbd.opcua.security import security_for
    from fbd.opcua.server import OpcuaServer
    path = tmp_path / "prog.st"
    path.write_text(TYPES_ST)
    trust = tmp_path / "trusted"
    trust.mkdir()
    security = security_for("0.0.0.0", ["op:s3cret"], str(tmp_path / "server"), str(trust))
    server = OpcuaServer(fbd.load(str(path)).plc(), host="0.0.0.0", port=0,
                         security=security).start()
    url = f"opc.tcp://127.0.0.1:{server.port}/"

    async def attempt(name, policy="SignAndEncrypt"):
        client = Client(url, timeout=30)
        await client.set_security_string(f"Basic256Sha256,{policy},{tmp_path / name}-cert.der,"
                                         f"{tmp_path / name}-key.pem")
        client.set_user("op")
        client.set_password("s3cret")
        try:
            async with client:
                return (await client.get_node("ns=2;s=PLC.State").read_value())
        except Exception as e:   # noqa: BLE001 - the refusal is what is looked at
            return type(e).__name__

    async def main():
        for name in ("known", "stranger"):
            await setup_self_signed_certificate(
                tmp_path / f"{name}-key.pem", tmp_path / f"{name}-cert.der", f"urn:test:{name}",
                "localhost", [ExtendedKeyUsageOID.CLIENT_AUTH], {"commonName": name})
        (trust / "known.der").write_bytes((tmp_path / "known-cert.der").read_bytes())
        results = [await attempt("known"), await attempt("known", "Sign"),
                   await attempt("stranger"), await attempt("stranger", "Sign")]
        rejected = sorted((trust / "rejected").iterdir())
        rejected[0].rename(trust / rejected[0].name)        # the engineer trusts it
        return results + [await attempt("stranger"), len(rejected)]
    try:
        results = asyncio.run(main())
        assert results == ["RUN", "RUN", "BadCertificateUntrusted", "BadCertificateUntrusted",
                           "RUN", 1]
        assert server.running
    finally:
        server.stop()
    err = capfd.readouterr().err
    assert ("fbd: opcua: refused the client certificate 'urn:test:stranger': not in the trust "
            f"list {trust}; kept as rejected/urn_test_stranger-") in err
    assert ".der: move it up to trust it\n" in err


@pytest.mark.slow
def test_the_benchmark_runs_and_prints_its_table_a_round_at_a_time(capsys):
    from fbd.opcua import bench
    assert bench.main(["2048", "--seconds", "1", "--clients", "2", "--items", "0,100",
                       "--sampling", "1000", "--rounds", "2"]) == 0
    out, err = capsys.readouterr()
    rows = [line.split("  ")[0] for line in out.splitlines()
            if line.startswith(("no server", "idle server", "100 items", "0 items"))]
    assert rows == ["no server", "idle server", "100 items @ 1000 ms"] * 2     # interleaved
    assert "lost" not in out.split("100 items @ 1000 ms")[1].splitlines()[0]
    assert "opcua_bench: 100 items @ 1000 ms (2 clients) ..." in err


@pytest.mark.slow
def test_ctrl_c_in_a_terminal_stops_the_plc_and_the_servers_process_without_a_traceback(
        tmp_path):
    """A terminal's Ctrl-C reaches the whole process group, the server's process too."""
    path = tmp_path / "prog.st"
    path.write_text(TYPES_ST)
    proc = subprocess.Popen([sys.executable, "-c", AS_FROM_A_TERMINAL, "serve", str(path),
                             "--opcua", "--opcua-port", "0"], cwd=ROOT, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        assert "over OPC UA at" in proc.stderr.readline()
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        rest = proc.stderr.read()
        assert "fbd: stopped after" in rest and "Traceback" not in rest, rest
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stderr.close()
