"""Related Origin Requests (WebAuthn L3 §5.11) in a real Chromium: pages on
https://shop.example.co.uk use the RP ID shop.example because UMFA's /.well-known/webauthn for
that host lists them. An HTTPS proxy written here (a certificate made for the test, which
Chromium is told to accept) stands in for the sites: every request goes on to `umfa serve` with
its Host, so the browser's fetch of https://shop.example/.well-known/webauthn is answered by
UMFA. A page on an origin the document does not list is refused by Chromium itself."""

from __future__ import annotations

import datetime
import shutil
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from demo import WAIT_SECONDS, Authenticator
from support import ADMIN_TOKEN

RP_ID = "shop.example"
RELATED = "https://shop.example.co.uk"
STRANGER = "https://shop.example.net"
HOSTS = ["shop.example", "shop.example.co.uk", "shop.example.net"]
BLANK = b"<!doctype html><html><head><title>shop</title></head><body>shop</body></html>"

# The ceremony as a page runs it: options from UMFA, the browser's WebAuthn call, verify at UMFA.
CEREMONY = """
const [kind, appId, user, done] = arguments;
const post = (path, body) => fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body)}).then(async r => ({status: r.status, body: await r.json()}));
(async () => {
  const options = await post(`/api/umfa/${kind}/options`, {application_id: appId, user_id: user});
  if (options.status !== 200) return done({step: "options", ...options});
  let credential;
  try {
    credential = kind === "registration"
      ? await navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options.body.publicKey)})
      : await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.body.publicKey)});
  } catch (error) {
    return done({step: "browser", name: error.name, message: error.message});
  }
  const json = credential.toJSON();
  const origin = JSON.parse(atob(json.response.clientDataJSON.replace(/-/g, "+").replace(/_/g, "/"))).origin;
  const verified = await post(`/api/umfa/${kind}/verify`, {application_id: appId, user_id: user, credential: json});
  done({step: "verify", origin, ...verified});
})().catch(error => done({step: "script", message: String(error)}));
"""


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed P-256 certificate for HOSTS, valid for a day."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "UMFA related-origins test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(host) for host in HOSTS]), critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


class Proxy:
    """HTTPS on a loopback port: `/blank` is an empty page; everything else goes to UMFA with
    the request's Host header. `fetched` records (host, path) of every well-known fetch."""

    def __init__(self, upstream: str, folder: Path):
        self.fetched: list[tuple[str, str]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def _forward(self) -> None:
                host = self.headers.get("Host", "")
                if self.path == "/blank":
                    return self._answer(200, {"Content-Type": "text/html"}, BLANK)
                if self.path.startswith("/.well-known/"):
                    proxy.fetched.append((host, self.path))
                length = int(self.headers.get("Content-Length") or 0)
                headers = {"Host": host}
                if self.headers.get("Content-Type"):
                    headers["Content-Type"] = self.headers["Content-Type"]
                answer = requests.request(self.command, upstream + self.path, headers=headers,
                                          data=self.rfile.read(length) if length else None, timeout=15)
                self._answer(answer.status_code, {"Content-Type": answer.headers.get("Content-Type", "")},
                             answer.content)

            def _answer(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PATCH = _forward

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*certificate(folder))
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def proxy(server, tmp_path):
    proxy = Proxy(server.base, tmp_path)
    yield proxy
    proxy.close()


@pytest.fixture
def driver(proxy):
    """Headless Chromium resolving every host to the proxy and accepting its certificate."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
                 "--ignore-certificate-errors", f"--host-resolver-rules=MAP * 127.0.0.1:{proxy.port}"):
        options.add_argument(flag)
    browser = webdriver.Chrome(
        options=options, service=Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    browser.set_page_load_timeout(WAIT_SECONDS)
    browser.set_script_timeout(WAIT_SECONDS)
    yield browser
    browser.quit()


def ceremony(driver, origin: str, kind: str, app_id: str, user: str) -> dict:
    driver.get(origin + "/blank")
    return driver.execute_async_script(CEREMONY, kind, app_id, user)


def test_chromium_uses_the_rp_id_from_a_related_origin_that_umfa_publishes(server, proxy, driver):
    app = server.ok("POST", "/api/admin/applications",
                    {"name": "Shop", "rp_id": RP_ID, "origins": [f"https://{RP_ID}"], "related_origins": [RELATED],
                     "enrollment_policy": "open"}, status=201, bearer=ADMIN_TOKEN)
    app_id = app["application_id"]
    Authenticator(driver, user_verification=True)

    registered = ceremony(driver, RELATED, "registration", app_id, "alice")
    assert registered["step"] == "verify" and registered["status"] == 200, registered
    assert registered["origin"] == RELATED and registered["body"]["token"].count(".") == 2, registered
    # Chromium asked UMFA for the RP ID's document before it let the page use shop.example.
    assert (RP_ID, "/.well-known/webauthn") in proxy.fetched, proxy.fetched

    signed_in = ceremony(driver, RELATED, "authentication", app_id, "alice")
    assert signed_in["step"] == "verify" and signed_in["status"] == 200, signed_in
    assert signed_in["body"]["credential_id"] == registered["body"]["credential_id"], signed_in

    # An origin the document does not list: Chromium refuses before any authenticator is asked.
    refused = ceremony(driver, STRANGER, "authentication", app_id, "alice")
    assert refused["step"] == "browser" and refused["name"] == "SecurityError", refused

    # Without related origins UMFA answers 404, and Chromium refuses the related origin too.
    server.ok("PATCH", f"/api/admin/applications/{app_id}", {"related_origins": []}, bearer=ADMIN_TOKEN)
    refused = ceremony(driver, RELATED, "authentication", app_id, "alice")
    assert refused["step"] == "browser" and refused["name"] == "SecurityError", refused
