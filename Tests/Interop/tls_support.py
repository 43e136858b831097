"""TLS fixtures for the interop suite: a throw-away PKI made by the `openssl` command line in the
test run, and `TLSServer`, a `umfa serve` answering HTTPS (and, when asked, the mutual-TLS
endpoint alias of RFC 8705 §5).

    pki = make_pki(tmp_path)
    pki.ca                      # the test CA certificate (PEM), trusted by the clients
    pki.server_cert, pki.server_key        # localhost / 127.0.0.1, issued by the CA
    pki.client_cert, pki.client_key        # subject "CN=client-1,O=UMFA Test", issued by the CA
    pki.client2_cert, pki.client2_key      # subject "CN=client-2,O=UMFA Test", issued by the CA
    pki.self_signed_cert, pki.self_signed_key  # "CN=self-signed-client,O=UMFA Test", self-signed

Every certificate's SHA-256 thumbprint (`x5t#S256`, RFC 8705 §3.1) and base64 DER (`x5c`,
RFC 7517 §4.7) come from `x5t_s256(path)` and `x5c(path)`."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import ssl
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from support import ADMIN_TOKEN, Server, free_port

CLIENT_DN = "CN=client-1,O=UMFA Test"
CLIENT2_DN = "CN=client-2,O=UMFA Test"
SELF_SIGNED_DN = "CN=self-signed-client,O=UMFA Test"

# Subject alternative names of the CA-issued client certificates (RFC 8705 §2.1.2 SAN values).
CLIENT_SAN_DNS = "client-1.umfa.test"
CLIENT_SAN_URI = "https://client-1.umfa.test/"
CLIENT_SAN_EMAIL = "client-1@umfa.test"
CLIENT_SAN_IP = "192.0.2.1"


@dataclass(frozen=True)
class PKI:
    """Paths of PEM files made by `make_pki`."""

    dir: Path
    ca: Path
    ca_key: Path
    server_cert: Path
    server_key: Path
    server_chain: Path  # server certificate followed by the CA certificate
    client_cert: Path
    client_key: Path
    client2_cert: Path
    client2_key: Path
    self_signed_cert: Path
    self_signed_key: Path

    @property
    def client(self) -> tuple[str, str]:
        """(cert, key) as `requests` takes them for `cert=`."""
        return str(self.client_cert), str(self.client_key)

    @property
    def client2(self) -> tuple[str, str]:
        return str(self.client2_cert), str(self.client2_key)

    @property
    def self_signed(self) -> tuple[str, str]:
        return str(self.self_signed_cert), str(self.self_signed_key)


def openssl(*args: str, cwd: Path | None = None) -> str:
    result = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, f"openssl {' '.join(args)} failed:\n{result.stderr}"
    return result.stdout


def _subject(dn: str) -> str:
    """"CN=a,O=b" (RFC 4514 order, most specific first) -> "/O=b/CN=a" for `openssl -subj`."""
    return "/" + "/".join(reversed(dn.split(",")))


def _key(path: Path) -> Path:
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(path))
    return path


def _issue(directory: Path, name: str, dn: str, extensions: str, ca: Path | None, ca_key: Path | None,
           serial: int, key: Path | None = None, days: int = 30) -> tuple[Path, Path]:
    """A certificate for `dn` with `extensions` (an openssl config section body), signed by the CA
    (or self-signed when ca is None). Returns (cert, key)."""
    key = key or _key(directory / f"{name}.key")
    csr = directory / f"{name}.csr"
    ext = directory / f"{name}.ext"
    ext.write_text(f"[ext]\n{extensions}\n")
    cert = directory / f"{name}.pem"
    openssl("req", "-new", "-key", str(key), "-subj", _subject(dn), "-out", str(csr))
    signer = ["-CA", str(ca), "-CAkey", str(ca_key)] if ca else ["-signkey", str(key)]
    openssl("x509", "-req", "-in", str(csr), *signer, "-set_serial", str(serial), "-days", str(days),
            "-sha256", "-extfile", str(ext), "-extensions", "ext", "-out", str(cert))
    return cert, key


SERVER_EXT = ("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
              "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1")
CLIENT_EXT = ("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
              "extendedKeyUsage=clientAuth\n"
              "subjectAltName=DNS:{name}.umfa.test,URI:https://{name}.umfa.test/,email:{name}@umfa.test{ip}")


def make_pki(tmpdir: Path | str) -> PKI:
    """A CA, a localhost server certificate, two CA-issued client certificates and a self-signed
    client certificate, all EC P-256, written under tmpdir/"pki"."""
    directory = Path(tmpdir) / "pki"
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = _key(directory / "ca.key")
    ca = directory / "ca.pem"
    openssl("req", "-x509", "-new", "-key", str(ca_key), "-subj", _subject("CN=UMFA Test CA,O=UMFA Test"),
            "-days", "30", "-sha256", "-set_serial", "1", "-out", str(ca),
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    server_cert, server_key = issue_server_certificate(directory, ca, ca_key, serial=0x1001)
    chain = directory / "server-chain.pem"
    chain.write_text(server_cert.read_text() + ca.read_text())
    client_cert, client_key = _issue(directory, "client-1", CLIENT_DN,
                                     CLIENT_EXT.format(name="client-1", ip=f",IP:{CLIENT_SAN_IP}"),
                                     ca, ca_key, serial=0x2001)
    client2_cert, client2_key = _issue(directory, "client-2", CLIENT2_DN,
                                       CLIENT_EXT.format(name="client-2", ip=""), ca, ca_key, serial=0x2002)
    self_cert, self_key = _issue(directory, "self-signed", SELF_SIGNED_DN,
                                 CLIENT_EXT.format(name="self-signed", ip=""), None, None, serial=0x3001)
    return PKI(directory, ca, ca_key, server_cert, server_key, chain, client_cert, client_key,
               client2_cert, client2_key, self_cert, self_key)


def issue_server_certificate(directory: Path, ca: Path, ca_key: Path, serial: int,
                             name: str | None = None) -> tuple[Path, Path]:
    """A fresh localhost server certificate (new key) with the given serial, e.g. for a reload."""
    return _issue(directory, name or f"server-{serial:x}", "CN=localhost,O=UMFA Test", SERVER_EXT, ca, ca_key,
                  serial)


def der(path: Path | str) -> bytes:
    """The first certificate of a PEM file, DER encoded."""
    text = Path(path).read_text()
    match = re.search(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", text, re.S)
    assert match, f"no certificate in {path}"
    return ssl.PEM_cert_to_DER_cert(match.group(0))


def x5t_s256(path: Path | str) -> str:
    """base64url (unpadded) SHA-256 of the certificate's DER: `cnf.x5t#S256` (RFC 8705 §3.1)."""
    return base64.urlsafe_b64encode(hashlib.sha256(der(path)).digest()).rstrip(b"=").decode()


def x5c(path: Path | str) -> str:
    """Standard base64 DER, an `x5c` array entry (RFC 7517 §4.7)."""
    return base64.b64encode(der(path)).decode()


def serial_of(path: Path | str) -> int:
    out = openssl("x509", "-in", str(path), "-noout", "-serial")
    return int(out.strip().split("=", 1)[1], 16)


def make_pkcs12(cert: Path, key: Path, out: Path, password: str = "secret") -> Path:
    """A PKCS#12 identity (cert + key) for the SDK / CLI client side."""
    openssl("pkcs12", "-export", "-in", str(cert), "-inkey", str(key), "-out", str(out),
            "-passout", f"pass:{password}")
    return out


class TLSServer(Server):
    """`umfa serve --tls-certificate --tls-key` (and `--mtls-port` when mtls=True) on loopback;
    `base` is https://127.0.0.1:PORT, `mtls_base` the mutual-TLS alias. Its `http` session trusts
    the test CA."""

    def __init__(self, binary: Path, workdir: Path, data_dir: Path, pki: PKI, env: dict[str, str] | None = None,
                 args: tuple[str, ...] = (), mtls: bool = False, cert: Path | None = None,
                 key: Path | None = None):
        self.pki = pki
        self.mtls_port = free_port() if mtls else None
        tls_args = ["--tls-certificate", str(cert or pki.server_chain), "--tls-key", str(key or pki.server_key)]
        if self.mtls_port:
            tls_args += ["--mtls-port", str(self.mtls_port)]
        super().__init__(binary, workdir, data_dir, env, (*tls_args, *args))
        self.base = f"https://127.0.0.1:{self.port}"
        self.mtls_base = f"https://127.0.0.1:{self.mtls_port}" if self.mtls_port else None
        self.origin = f"https://localhost:{self.port}"  # the development application's origin over TLS
        self.http.verify = str(pki.ca)
        self.http.trust_env = False  # else REQUESTS_CA_BUNDLE from the environment would win over verify

    def start(self, timeout: float = 20) -> "TLSServer":
        """Launches and waits for GET /health over HTTPS (verified against the test CA)."""
        self.launch()
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"umfa serve exited with {self.process.returncode} before /health answered\n"
                                     f"{self.logs()}")
            try:
                if requests.get(self.base + "/health", timeout=1, verify=str(self.pki.ca)).status_code == 200:
                    return self
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"/health did not answer over HTTPS within {timeout} s\n{self.logs()}")
            time.sleep(0.05)

    def mtls_request(self, method: str, path: str, *, cert: tuple[str, str] | None, **kwargs) -> requests.Response:
        """A request to the mutual-TLS alias presenting `cert` (or none)."""
        assert self.mtls_base, "server started without mtls=True"
        return requests.request(method, self.mtls_base + path, cert=cert, verify=str(self.pki.ca), timeout=15,
                                **kwargs)


# -- fixtures and helpers for the TLS tests ---------------------------------------------------------
# Import the fixtures into a test module (`from tls_support import pki, tls_serve`) to use them.


@pytest.fixture
def pki(tmp_path):
    return make_pki(tmp_path)


@pytest.fixture
def tls_serve(umfa_bin, tmp_path, pki):
    """tls_serve(env=None, args=(), mtls=False, cert=None, key=None, start=True) -> a TLSServer."""
    servers: list[TLSServer] = []

    def launch(env=None, args=(), mtls=False, cert=None, key=None, start=True) -> TLSServer:
        env = {"UMFA_ADMIN_TOKEN": ADMIN_TOKEN, **(env or {})}
        server = TLSServer(umfa_bin, tmp_path, tmp_path / "data", pki, env, tuple(args), mtls=mtls, cert=cert,
                           key=key)
        servers.append(server)
        return server.start() if start else server.launch()

    yield launch
    for server in servers:
        if server.running:
            server.stop()


def s_client(port: int, *args: str, ca: Path | None = None, stdin: bytes = b"Q\n") -> subprocess.CompletedProcess:
    """`openssl s_client` against 127.0.0.1:port; output (stdout + stderr) in .stdout."""
    command = ["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-servername", "localhost", *args]
    if ca:
        command += ["-CAfile", str(ca), "-verify_return_error"]
    return subprocess.run(command, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=15)


def handshake(port: int, *args: str, ca: Path | None = None) -> tuple[bool, str]:
    """(whether a session was established, the output)."""
    result = s_client(port, *args, ca=ca)
    out = result.stdout.decode(errors="replace")
    established = result.returncode == 0 and re.search(r"^New, TLSv1\.[23], Cipher is ", out, re.M) is not None
    return established, out


def served_serial(port: int) -> int:
    """The serial number of the certificate a fresh handshake is served."""
    result = s_client(port, "-showcerts")
    pem = re.search(rb"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", result.stdout, re.S)
    assert pem, result.stdout.decode(errors="replace")
    out = subprocess.run(["openssl", "x509", "-noout", "-serial"], input=pem.group(0), capture_output=True,
                         check=True).stdout.decode()
    return int(out.strip().split("=", 1)[1], 16)


def replace_atomically(source: Path, target: Path) -> None:
    """Writes source's bytes to target by rename, as certificate tools do."""
    temporary = target.with_suffix(".tmp")
    shutil.copyfile(source, temporary)
    os.replace(temporary, target)


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.1)


def live_files(tmp_path: Path, pki) -> tuple[Path, Path]:
    """Copies of the server certificate (chain) and key that the test may overwrite."""
    live = tmp_path / "live"
    live.mkdir()
    cert, key = live / "server.pem", live / "server.key"
    shutil.copyfile(pki.server_chain, cert)
    shutil.copyfile(pki.server_key, key)
    return cert, key
