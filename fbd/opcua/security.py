"""Who may connect to the OPC UA server, and how (docs/opcua.md, *Security*).

On this machine only (``--bind 127.0.0.1``, the default) the server takes
anonymous clients without security, as a development PLC does. Bound to any
other address it takes only users named by ``--opcua-user NAME:PASSWORD``,
over the Basic256Sha256 policies (Sign, SignAndEncrypt) with a self-signed
certificate it makes on first use (kept in ``~/.fbd/opcua``): a simulator
reachable from a network is a PLC on that network, and must not be writable
by whoever finds it. With ``--opcua-trust DIR`` a client's certificate must be
one of DIR's too (or issued by one of them), as a PLC's trust list. A refused
login or certificate is logged and refused; the server goes on.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import ipaddress
import logging
import re
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


def security_for(bind: str, users, cert_dir, trust=None) -> "Security | None":
    """The security ``fbd serve --bind BIND --opcua-user ... --opcua-trust DIR``
    asks for; None: anonymous, no security (loopback, no users)."""
    parsed = {}
    for entry in users or ():
        name, colon, password = entry.partition(":")
        if not (colon and name and password):
            raise CliError(f"--opcua-user {entry.split(':')[0]}:...: give NAME:PASSWORD")
        parsed[name] = password
    loopback = is_loopback(bind)
    if trust is not None:
        if not parsed:
            raise CliError(f"--opcua-trust {trust}: client certificates come with Basic256Sha256, "
                           f"which the server offers to users; add --opcua-user NAME:PASSWORD")
        if not Path(trust).is_dir():
            raise CliError(f"--opcua-trust {trust}: not a directory (of trusted client "
                           f"certificates, .der or .pem)")
    if loopback and not parsed:
        return None
    if not parsed:
        raise CliError(f"--bind {bind}: an OPC UA server reachable from other machines takes "
                       f"only users with passwords; add --opcua-user NAME:PASSWORD")
    return Security(parsed, Path(cert_dir) if cert_dir else CERT_DIR, anonymous=loopback,
                    trust=Path(trust).resolve() if trust is not None else None)


class Security:
    """Users with passwords, Basic256Sha256, a self-signed certificate; anonymous
    clients too when ``anonymous`` (the server is on this machine only)."""

    def __init__(self, users: dict, cert_dir: Path, anonymous: bool = False,
                 trust: Path | None = None):
        self.users = users
        self.cert_dir = cert_dir
        self.anonymous = anonymous
        self.trust = trust

    @property
    def summary(self) -> str:
        who = "users" + (" or anonymous" if self.anonymous else "")
        trusted = f", client certificates trusted in {self.trust}" if self.trust else ""
        return f"{who}; Basic256Sha256 Sign, SignAndEncrypt{trusted}" + \
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
        if self.trust is not None:
            server.set_certificate_validator(TrustList(self.trust))

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


class TrustList:
    """asyncua's certificate validator for ``--opcua-trust DIR``: a client's
    certificate is trusted if it is one of DIR's certificates (.der or .pem), or
    is issued by one of them (a CA), and is within its dates. DIR is read at
    every new session, so a certificate copied there is trusted from the next
    connection on, without a restart. A refused certificate is logged and kept
    in DIR/rejected, to be moved to DIR once the engineer has checked it, as
    UaExpert and most PLCs' servers do; the client gets BadCertificateUntrusted
    (or BadCertificateTimeInvalid)."""

    def __init__(self, folder: Path):
        self.folder = folder

    async def __call__(self, certificate, _application) -> None:
        from asyncua import ua
        from asyncua.common.utils import ServiceError
        from cryptography.hazmat.primitives.serialization import Encoding

        der = certificate.public_bytes(Encoding.DER)
        name = _common_name(certificate)
        now = datetime.datetime.now(datetime.timezone.utc)
        if not certificate.not_valid_before_utc <= now <= certificate.not_valid_after_utc:
            log.warning("refused the client certificate %r: out of its dates (%s to %s)", name,
                        certificate.not_valid_before_utc.date(),
                        certificate.not_valid_after_utc.date())
            raise ServiceError(ua.StatusCodes.BadCertificateTimeInvalid)
        trusted = self._certificates()
        if der in trusted or _issued_by_one_of(certificate, trusted):
            return
        kept = self._keep_rejected(name, der)
        log.warning("refused the client certificate %r: not in the trust list %s%s", name,
                    self.folder, f"; kept as rejected/{kept.name}: move it up to trust it"
                    if kept else "")
        raise ServiceError(ua.StatusCodes.BadCertificateUntrusted)

    def _certificates(self) -> dict:
        """DIR's certificates, DER bytes to the certificate (unreadable files left out)."""
        from cryptography import x509
        from cryptography.hazmat.primitives.serialization import Encoding
        out = {}
        for path in sorted(self.folder.glob("*")):
            if path.suffix.lower() not in (".der", ".pem", ".crt", ".cer") or not path.is_file():
                continue
            try:
                data = path.read_bytes()
                cert = x509.load_pem_x509_certificate(data) if data.lstrip().startswith(
                    b"-----BEGIN") else x509.load_der_x509_certificate(data)
            except (OSError, ValueError) as e:
                log.warning("trust list: %s is not a certificate (%s)", path, e)
                continue
            out[cert.public_bytes(Encoding.DER)] = cert
        return out

    def _keep_rejected(self, name: str, der: bytes) -> Path | None:
        folder = self.folder / "rejected"
        stem = re.sub(r"[^\w.-]+", "_", name)[:60] or "client"
        path = folder / f"{stem}-{hashlib.sha1(der).hexdigest()[:16]}.der"
        try:
            folder.mkdir(exist_ok=True)
            path.write_bytes(der)
        except OSError:
            return None         # a read-only trust list: the log line is enough
        return path


def _common_name(certificate) -> str:
    from cryptography.x509.oid import NameOID
    names = certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[0].value) if names else certificate.subject.rfc4514_string()


def _issued_by_one_of(certificate, trusted: dict) -> bool:
    """Whether one of ``trusted`` that is a CA signed ``certificate``."""
    from cryptography import x509
    from cryptography.exceptions import InvalidSignature
    for issuer in trusted.values():
        if issuer.subject != certificate.issuer:
            continue
        try:
            if not issuer.extensions.get_extension_for_class(x509.BasicConstraints).value.ca:
                continue
            certificate.verify_directly_issued_by(issuer)
        except (x509.ExtensionNotFound, ValueError, TypeError, InvalidSignature):
            continue
        return True
    return False


__all__ = ["security_for", "Security", "TrustList", "is_loopback", "CERT_DIR"]
