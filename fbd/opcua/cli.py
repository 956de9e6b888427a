"""``fbd serve --opcua``: the options, and the server they make.

Imported on every ``fbd`` start (the serve verb registers its options), so it
imports asyncua only when a server is made, and a missing extra is one line.
"""

from __future__ import annotations

from ..tools.cli import CliError


def add_options(p) -> None:
    p.add_argument("--opcua", action="store_true",
                   help="serve every variable over OPC UA (asyncua: pip install "
                        "'fbd-sim[opcua]'), on --bind's address")
    p.add_argument("--opcua-port", default=None, metavar="PORT",
                   help="the OPC UA port (default 4840)")
    p.add_argument("--opcua-expose", action="append", default=None, metavar="PATTERN",
                   help="serve only the variables matching PATTERN, a glob on the path below "
                        "the configuration (res.inst.*, *.SPEED); repeat for more")
    p.add_argument("--opcua-writable", action="append", default=None, metavar="PATTERN",
                   help="make the variables matching PATTERN writable (where the program "
                        "keeps their value); repeat for more")
    p.add_argument("--opcua-readonly", action="append", default=None, metavar="PATTERN",
                   help="make the variables matching PATTERN read-only; repeat for more")
    p.add_argument("--opcua-publish", default=None, metavar="MS",
                   help="sample the PLC and publish changed values every MS milliseconds "
                        "(default 100; 10 at least)")
    p.add_argument("--opcua-user", action="append", default=None, metavar="NAME:PASSWORD",
                   help="a user allowed to log in (required, with a certificate, when bound "
                        "to an address other than this machine's); repeat for more")
    p.add_argument("--opcua-cert-dir", default=None, metavar="DIR",
                   help="where the server's self-signed certificate is kept (default "
                        "~/.fbd/opcua)")
    p.add_argument("--opcua-trust", default=None, metavar="DIR",
                   help="accept only client certificates in DIR (.der or .pem; or issued by a "
                        "CA there); refused ones are logged and kept in DIR/rejected")


def make_server(plc, args, port: int | None):
    """The OpcuaServer the options ask for (not started)."""
    try:
        from .server import DEFAULT_PORT, OpcuaServer
    except ImportError:
        raise CliError("--opcua needs the opcua extra (asyncua is not installed): "
                       "pip install 'fbd-sim[opcua]'") from None
    from .security import security_for
    from .server import PUBLISH_MS
    publish = PUBLISH_MS
    if args.opcua_publish is not None:
        text = args.opcua_publish.strip()
        if not (text.isdigit() and len(text) <= 7 and 10 <= int(text) <= 3_600_000):
            raise CliError(f"--opcua-publish {args.opcua_publish[:40]}: milliseconds, a whole "
                           f"number 10..3600000")
        publish = int(text)
    security = security_for(args.bind, args.opcua_user, args.opcua_cert_dir,
                            args.opcua_trust)
    return OpcuaServer(plc, host=args.bind, port=DEFAULT_PORT if port is None else port,
                       expose=args.opcua_expose, writable=args.opcua_writable,
                       readonly=args.opcua_readonly, publish_ms=publish, security=security)
