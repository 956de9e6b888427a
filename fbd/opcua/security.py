"""Who may connect to the OPC UA server, and how (docs/opcua.md, *Security*).

On this machine only (``--bind 127.0.0.1``, the default) the server takes
anonymous clients without security, as a development PLC does. Bound to any
other address it takes only users named by ``--opcua-user NAME:PASSWORD``,
over the Basic256Sha256 policies (Sign, SignAndEncrypt) with a self-signed
certificate it makes on first use (kept in ``~/.fbd/opcua``): a simulator
reachable from a network is a PLC on that network, and must not be writable
by whoever finds it. A refused login is logged and refused; the server goes on.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import socket
from pathlib import Path

from ..tools.cli import CliError

log = logging.getLogger("fbd.opcua")
CERT_DIR = Path.home() / ".fbd" / "opcua"


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def security_for(bind: str, users, cert_dir) -> "Security | None":
    """The security ``fbd serve --bind BIND --opcua-user ...`` asks for; None:
    anonymous, no security (loopback, no users)."""
    parsed = {}
    for entry in users or ():
        name, colon, password = entry.partition(":")
        if not (colon and name and password):
            raise CliError(f"--opcua-user {entry.split(':')[0]}:...: give NAME:PASSWORD")
        parsed[name] = password
    loopback = is_loopback(bind)
    if loopback and not parsed:
        return None
    if not parsed:
        raise CliError(f"--bind {bind}: an OPC UA server reachable from other machines takes "
                       f"only users with passwords; add --opcua-user NAME:PASSWORD")
    return Security(parsed, Path(cert_dir) if cert_dir else CERT_DIR, anonymous=loopback)


class Security:
    """Users with passwords, Basic256Sha256, a self-signed certificate; anonymous
    clients too when ``anonymous`` (the server is on this machine only)."""

    def __init__(self, users: dict, cert_dir: Path, anonymous: bool = False):
        self.users = users
        self.cert_dir = cert_dir
        self.anonymous = anonymous

    @property
    def summary(self) -> str:
        who = "users" + (" or anonymous" if self.anonymous else "")
        return f"{who}; Basic256Sha256 Sign, SignAndEncrypt" + \
            (", or none" if self.anonymous else "")

    async def apply(self, server) -> None:
        from asyncua import ua
        from asyncua.crypto.cert_gen import setup_self_signed_certificate
        from cryptography.x509.oid import ExtendedKeyUsageOID

        try:
            self.cert_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CliError(f"--opcua-cert-dir {self.cert_dir}: {e.strerror}") from None
        key, cert = self.cert_dir / "server-key.pem", self.cert_dir / "server-cert.der"
        host = socket.gethostname()
        await setup_self_signed_certificate(
            key, cert, "urn:fbd-sim:server", host, [ExtendedKeyUsageOID.SERVER_AUTH],
            {"commonName": "fbd-sim OPC UA server", "organizationName": "fbd-sim"})
        await server.load_certificate(str(cert))
        await server.load_private_key(str(key))
        await server.set_application_uri("urn:fbd-sim:server")
        policies = [ua.SecurityPolicyType.Basic256Sha256_SignAndEncrypt,
                    ua.SecurityPolicyType.Basic256Sha256_Sign]
        tokens = [ua.UserNameIdentityToken]
        if self.anonymous:
            policies.append(ua.SecurityPolicyType.NoSecurity)
            tokens.append(ua.AnonymousIdentityToken)
        server.set_security_policy(policies)
        server.set_identity_tokens(tokens)
        server.iserver.set_user_manager(_Users(self))

    def may_write(self, user) -> bool:
        return user is None or getattr(user, "name", None) in self.users or self.anonymous


class _Users:
    """asyncua's user manager: a known name with its password, or (when allowed)
    anonymous; anything else is refused, and logged."""

    def __init__(self, security: Security):
        self.security = security

    def get_user(self, iserver, username=None, password=None, certificate=None):
        from asyncua.crypto.permission_rules import User, UserRole
        if username is None and certificate is None:
            if self.security.anonymous:
                return User(role=UserRole.User)
            log.warning("refused an anonymous login")
            return None
        expected = self.security.users.get(username or "")
        given = password.encode() if isinstance(password, str) else (password or b"")
        if expected is not None and hmac.compare_digest(expected.encode(), given):
            return User(role=UserRole.User, name=username)
        log.warning("refused a login as %r: wrong user name or password", username)
        return None


__all__ = ["security_for", "Security", "is_loopback", "CERT_DIR"]
