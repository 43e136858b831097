"""FIDO metadata downloaded from a metadata server on a schedule (docs/operators/metadata.md),
from outside: a local HTTPS server (its certificate from a test CA, trusted through
UMFA_METADATA_CA) serves MDS3 BLOBs that this test signs itself under a test root
(UMFA_METADATA_ROOT). A good BLOB is loaded; later ones with a bad signature, signed by an
expired certificate, without a nextUpdate date, or with a smaller serial number are refused and
the last good one kept, as it is when the download fails; a newer good one replaces it without a
restart (a model it reports REVOKED is refused at registration) and is not asked for again at
once. The BLOB taken is stored in the data directory: after a restart it is in force though the
download fails, and an older BLOB is still refused. /metrics shows the serial number, age and
refusals; a download the server cannot trust, or a plain http URL, is refused. Dates are UTC."""

from __future__ import annotations

import base64
import datetime
import json
import re
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID

from support import Device, free_port
from tls_support import make_pki

# The AAGUID of `umfa authenticator`, the device the registrations here use.
SOFTWARE_AAGUID = "554d4641-0000-4000-8000-736f66747761"
OTHER_AAGUID = "0bb43545-fd2c-4185-87dd-feb0b2916ace"
UTC = datetime.timezone.utc


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "UMFA Test")])


class MetadataSigner:
    """A test stand-in for the FIDO Alliance: a root, a signing certificate valid now and one
    that expired yesterday, each EC P-256; BLOBs are ES256 JWS with the signer in `x5c`."""

    def __init__(self, directory: Path):
        directory.mkdir(parents=True, exist_ok=True)
        now = datetime.datetime.now(UTC)
        self.root_key = ec.generate_private_key(ec.SECP256R1())
        self.root = (x509.CertificateBuilder().subject_name(_name("UMFA Test Metadata Root"))
                     .issuer_name(_name("UMFA Test Metadata Root")).public_key(self.root_key.public_key())
                     .serial_number(x509.random_serial_number())
                     .not_valid_before(now - datetime.timedelta(days=365))
                     .not_valid_after(now + datetime.timedelta(days=365))
                     .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                     .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False),
                                    critical=True)
                     .sign(self.root_key, hashes.SHA256()))
        self.root_path = directory / "metadata-root.pem"
        self.root_path.write_bytes(self.root.public_bytes(serialization.Encoding.PEM))
        self.current = self._signer("UMFA Test Metadata Signer", now - datetime.timedelta(days=1),
                                    now + datetime.timedelta(days=60))
        self.expired = self._signer("UMFA Test Metadata Signer (expired)", now - datetime.timedelta(days=60),
                                    now - datetime.timedelta(days=1))

    def _signer(self, common_name: str, not_before, not_after):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder().subject_name(_name(common_name)).issuer_name(self.root.subject)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(not_before).not_valid_after(not_after)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .sign(self.root_key, hashes.SHA256()))
        return key, cert

    def blob(self, no: int, next_update: datetime.date | str, entries: list[dict], *, expired: bool = False,
             bad_signature: bool = False) -> bytes:
        """An MDS3 metadata BLOB (FIDO MDS 3.0 §3.1.6, §3.1.7) as a compact JWS."""
        key, cert = self.expired if expired else self.current
        header = {"alg": "ES256", "typ": "JWT",
                  "x5c": [base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode()]}
        payload = {"legalHeader": "UMFA interop test metadata; not the FIDO Alliance's.", "no": no,
                   "nextUpdate": next_update if isinstance(next_update, str) else next_update.isoformat(),
                   "entries": entries}
        signing_input = f"{b64u(json.dumps(header).encode())}.{b64u(json.dumps(payload).encode())}"
        r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        if bad_signature:
            signature = bytes([signature[0] ^ 0x01]) + signature[1:]
        return f"{signing_input}.{b64u(signature)}".encode()


def entry(aaguid: str, description: str, *statuses: str) -> dict:
    return {"aaguid": aaguid,
            "metadataStatement": {"description": description, "aaguid": aaguid, "attestationRootCertificates": []},
            "statusReports": [{"status": status, "effectiveDate": "2024-01-01"} for status in statuses],
            "timeOfLastStatusChange": "2024-01-01"}


class MetadataServer:
    """An HTTPS server on a free loopback port answering GET /blob.jwt with `blob` (or, when
    `status` is not 200, that status and no body), counting the requests."""

    def __init__(self, cert: Path, key: Path):
        self.blob = b""
        self.status = 200
        self.requests = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                server.requests += 1
                body = server.blob if server.status == 200 else b""
                self.send_response(server.status if self.path == "/blob.jwt" else 404)
                self.send_header("Content-Type", "application/jwt")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.port = free_port()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(cert), str(key))
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"https://localhost:{self.port}/blob.jwt"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def pki(tmp_path):
    return make_pki(tmp_path)


@pytest.fixture
def signer(tmp_path):
    return MetadataSigner(tmp_path)


@pytest.fixture
def metadata_server(pki):
    server = MetadataServer(pki.server_cert, pki.server_key)
    yield server
    server.close()


def metric(server, name: str, labels: str = "") -> float | None:
    """One sample of GET /metrics (the test is on loopback, so no token is needed), or None."""
    text = server.get("/metrics").text
    found = re.search(r"^%s%s (\S+)$" % (re.escape(name), re.escape(labels)), text, re.M)
    return float(found.group(1)) if found else None


def wait_until(condition, what: str, server, within: float = 60):
    """Polls `condition` until it holds (a state reached, whatever the machine's speed)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not happen within {within} s\n{server.logs()}")


def today_utc() -> datetime.date:
    return datetime.datetime.now(UTC).date()


def failures(server, reason: str) -> float | None:
    return metric(server, "umfa_metadata_refresh_failures_total", '{reason="%s"}' % reason)


def metadata_env(metadata_server, signer, pki) -> dict[str, str]:
    return {"UMFA_METADATA_URL": metadata_server.url, "UMFA_METADATA_ROOT": str(signer.root_path),
            "UMFA_METADATA_CA": str(pki.ca), "UMFA_METADATA_RETRY_SECONDS": "1"}


def test_blobs_are_refreshed_and_a_refused_one_keeps_the_last_good(serve, authenticator, metadata_server, signer,
                                                                    pki):
    today = today_utc()
    # Serial 1 is past its nextUpdate, so the server keeps asking for a newer one, and says once
    # that it is overdue.
    metadata_server.blob = signer.blob(1, today - datetime.timedelta(days=1),
                                       [entry(OTHER_AAGUID, "Other Key", "FIDO_CERTIFIED")])
    server = serve(env=metadata_env(metadata_server, signer, pki))
    assert metric(server, "umfa_metadata_blob_serial") == 1, server.logs()
    assert "the FIDO metadata BLOB is past its nextUpdate" in server.stderr, server.logs()
    assert failures(server, "verification") == 0
    # The age grows between two reads (the gauge is brought up to date every second here).
    first_age = metric(server, "umfa_metadata_blob_age_seconds")
    assert first_age is not None and first_age >= 0, server.get("/metrics").text
    wait_until(lambda: metric(server, "umfa_metadata_blob_age_seconds") > first_age, "the age growing", server)
    device = Device(server, authenticator, server.app_id)
    device.register("before-revocation")

    # The download fails (HTTP 500): counted as `download`, serial 1 kept.
    metadata_server.status = 500
    wait_until(lambda: (failures(server, "download") or 0) >= 1, "counting a failed download", server)
    assert "the download answered HTTP 500" in server.stderr
    assert metric(server, "umfa_metadata_blob_serial") == 1
    metadata_server.status = 200

    # A newer BLOB whose signature does not verify: refused, serial 1 kept.
    metadata_server.blob = signer.blob(2, today + datetime.timedelta(days=30), [], bad_signature=True)
    wait_until(lambda: failures(server, "verification") >= 1, "refusing a bad signature", server)
    assert "the JWS signature does not verify" in server.stderr
    assert metric(server, "umfa_metadata_blob_serial") == 1

    # A newer BLOB signed by a certificate that expired yesterday: refused, serial 1 kept.
    verification = failures(server, "verification")
    metadata_server.blob = signer.blob(3, today + datetime.timedelta(days=30), [], expired=True)
    wait_until(lambda: "does not chain to the FIDO metadata root" in server.stderr, "refusing an expired signer",
               server)
    wait_until(lambda: failures(server, "verification") > verification, "counting the expired signer", server)
    assert metric(server, "umfa_metadata_blob_serial") == 1
    assert "keeping the BLOB with serial 1" in server.stderr
    assert metadata_server.blob.decode()[:40] not in server.stderr, "a BLOB reached the log"

    # A newer, validly signed BLOB whose nextUpdate is not a date (MDS3 §3.1.6): refused.
    verification = failures(server, "verification")
    metadata_server.blob = signer.blob(3, "soon", [])
    wait_until(lambda: failures(server, "verification") > verification, "refusing a nextUpdate that is no date",
               server)
    assert 'nextUpdate "soon" is not a date' in server.stderr
    assert metric(server, "umfa_metadata_blob_serial") == 1

    # A good BLOB with a smaller serial number (a server rolled back, or a replay): refused.
    metadata_server.blob = signer.blob(0, today + datetime.timedelta(days=30),
                                       [entry(SOFTWARE_AAGUID, "UMFA Software", "REVOKED")])
    wait_until(lambda: failures(server, "older") == 1, "refusing serial 0", server)
    assert metric(server, "umfa_metadata_blob_serial") == 1
    assert "its serial number 0 is below 1, the one held" in server.stderr

    # A newer good BLOB reporting the device's model REVOKED: taken without a restart, the age
    # starting again from its download.
    held_age = metric(server, "umfa_metadata_blob_age_seconds")
    next_update = today + datetime.timedelta(days=30)
    metadata_server.blob = signer.blob(4, next_update, [entry(SOFTWARE_AAGUID, "UMFA Software", "REVOKED")])
    wait_until(lambda: metric(server, "umfa_metadata_blob_serial") == 4, "taking serial 4", server)
    wait_until(lambda: metric(server, "umfa_metadata_blob_age_seconds") < held_age, "the age dropping", server)
    assert server.stderr.count("the FIDO metadata BLOB is past its nextUpdate") == 1, server.logs()
    midnight = datetime.datetime.combine(next_update, datetime.time(), UTC).timestamp()
    assert metric(server, "umfa_metadata_blob_next_update_timestamp_seconds") == midnight
    options = device.registration_options("after-revocation")
    response = authenticator.register(options, origin=server.origin)
    refused = server.post("/api/umfa/registration/verify", {"application_id": server.app_id,
                                                           "user_id": "after-revocation",
                                                           "credential": response.data})
    assert refused.status_code == 403, refused.text
    assert "REVOKED" in refused.json()["message"], refused.text

    # Its nextUpdate is a month away: no download in the next seconds (the next is within a day),
    # though retries were every second.
    asked = metadata_server.requests
    time.sleep(4)
    assert metadata_server.requests == asked, "the metadata server was asked again before nextUpdate"


def test_a_download_the_server_cannot_trust_starts_it_without_metadata(serve, metadata_server, signer, pki):
    metadata_server.blob = signer.blob(1, today_utc() + datetime.timedelta(days=30), [])
    env = metadata_env(metadata_server, signer, pki)
    del env["UMFA_METADATA_CA"]  # the system's CAs do not know the test CA
    server = serve(env=env)
    assert failures(server, "download") >= 1, server.logs()
    assert metric(server, "umfa_metadata_blob_serial") is None
    assert "FIDO metadata refused: the download failed" in server.stderr
    assert "no metadata is in use" in server.stderr
    assert server.get("/health/ready").status_code == 200


def test_a_blob_signed_under_another_root_is_refused(serve, metadata_server, signer, pki, tmp_path):
    metadata_server.blob = signer.blob(1, today_utc() + datetime.timedelta(days=30), [])
    other = MetadataSigner(tmp_path / "other")
    env = dict(metadata_env(metadata_server, signer, pki), UMFA_METADATA_ROOT=str(other.root_path))
    server = serve(env=env)
    assert failures(server, "verification") >= 1, server.logs()
    assert metric(server, "umfa_metadata_blob_serial") is None


def test_the_stored_blob_survives_a_restart_as_the_floor(serve, metadata_server, signer, pki, tmp_path):
    data_dir = tmp_path / "data"
    env = metadata_env(metadata_server, signer, pki)
    next_update = today_utc() + datetime.timedelta(days=30)
    metadata_server.blob = signer.blob(5, next_update, [])
    server = serve(data_dir=data_dir, env=env)
    assert metric(server, "umfa_metadata_blob_serial") == 5, server.logs()
    stored = data_dir / "metadata-blob.jws"
    assert stored.read_bytes() == metadata_server.blob
    server.stop()

    # The download fails at the next start: the stored BLOB is in force all the same.
    metadata_server.status = 500
    server = serve(data_dir=data_dir, env=env)
    assert metric(server, "umfa_metadata_blob_serial") == 5, server.logs()
    assert failures(server, "download") >= 1, server.logs()
    assert "keeping the BLOB with serial 5" in server.stderr
    assert "no metadata is in use" not in server.stderr
    server.stop()

    # An older BLOB, validly signed, after a restart: refused, serial 5 stays.
    metadata_server.status = 200
    metadata_server.blob = signer.blob(3, next_update, [])
    server = serve(data_dir=data_dir, env=env)
    wait_until(lambda: failures(server, "older") == 1, "refusing serial 3 after a restart", server)
    assert metric(server, "umfa_metadata_blob_serial") == 5
    assert "its serial number 3 is below 5, the one held" in server.stderr
    server.stop()

    # A stored BLOB that no longer verifies (its signer expired) is left aside with a warning.
    stored.write_bytes(signer.blob(7, next_update, [], expired=True))
    metadata_server.status = 500
    server = serve(data_dir=data_dir, env=env)
    assert "the stored FIDO metadata BLOB no longer verifies; starting without it" in server.stderr, server.logs()
    assert metric(server, "umfa_metadata_blob_serial") is None
    assert "no metadata is in use" in server.stderr


@pytest.mark.parametrize("env, message", [
    ({"UMFA_METADATA_URL": "http://localhost:9/blob.jwt"}, "UMFA_METADATA_URL must be an absolute https URL"),
    ({"UMFA_METADATA_URL": "https://localhost:9/blob.jwt", "UMFA_METADATA_FILE": "/nonexistent.jwt"},
     "UMFA_METADATA_URL and UMFA_METADATA_FILE are both set"),
])
def test_a_plain_http_url_or_two_sources_stop_the_start(serve, env, message):
    server = serve(env=env, start=False)
    assert server.wait_exit(30) != 0
    assert message in server.stderr, server.logs()
