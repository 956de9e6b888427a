"""``--opcua-trust DIR``'s check of a client's certificate, on certificates made here:
one of DIR's, one a CA of DIR issued, one another CA issued, one out of its dates
(the server's own test, test_serve_opcua.py, connects with asyncua's client)."""

import asyncio
import datetime

import pytest

pytest.importorskip("asyncua")
from asyncua import ua  # noqa: E402
from asyncua.common.utils import ServiceError  # noqa: E402
from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402

from fbd.opcua.security import TrustList  # noqa: E402

NOW = datetime.datetime.now(datetime.timezone.utc)
DAY = datetime.timedelta(days=1)


def _certificate(name, issuer=None, ca=False, days=(-1, 365)):
    """(certificate, key): self-signed, or signed by ``issuer`` (certificate, key)."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    by_cert, by_key = issuer if issuer else (None, key)
    cert = (x509.CertificateBuilder().subject_name(subject)
            .issuer_name(by_cert.subject if by_cert else subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(NOW + days[0] * DAY).not_valid_after(NOW + days[1] * DAY)
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
            .sign(by_key, hashes.SHA256()))
    return cert, key


def _verdict(folder, cert):
    """'trusted', or the status code the client is refused with."""
    try:
        asyncio.run(TrustList(folder)(cert, None))
    except ServiceError as e:
        return e.code
    return "trusted"


def test_a_certificate_in_the_folder_or_issued_by_a_ca_there_is_trusted_and_no_other(tmp_path):
    ca = _certificate("plant CA", ca=True)
    other_ca = _certificate("other CA", ca=True)
    known = _certificate("known")[0]
    (tmp_path / "ca.pem").write_bytes(ca[0].public_bytes(serialization.Encoding.PEM))
    (tmp_path / "known.der").write_bytes(known.public_bytes(serialization.Encoding.DER))
    (tmp_path / "notes.txt").write_text("not a certificate")
    (tmp_path / "broken.der").write_bytes(b"not a certificate either")
    by_ca = _certificate("by the plant CA", issuer=ca)[0]
    by_other = _certificate("by another CA", issuer=other_ca)[0]
    stranger = _certificate("stranger")[0]
    not_a_ca = _certificate("signed by a leaf", issuer=(known, _certificate("x")[1]))[0]
    assert _verdict(tmp_path, known) == "trusted"
    assert _verdict(tmp_path, by_ca) == "trusted"
    codes = {_verdict(tmp_path, c) for c in (by_other, stranger, not_a_ca)}
    assert codes == {ua.StatusCodes.BadCertificateUntrusted}
    kept = sorted(p.name for p in (tmp_path / "rejected").iterdir())
    assert [name.split("-")[0] for name in kept] == ["by_another_CA", "signed_by_a_leaf",
                                                     "stranger"]


def test_a_certificate_out_of_its_dates_is_refused_even_in_the_folder(tmp_path):
    old = _certificate("old", days=(-30, -1))[0]
    (tmp_path / "old.der").write_bytes(old.public_bytes(serialization.Encoding.DER))
    assert _verdict(tmp_path, old) == ua.StatusCodes.BadCertificateTimeInvalid
    assert not (tmp_path / "rejected").exists()
