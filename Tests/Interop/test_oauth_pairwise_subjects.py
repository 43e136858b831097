"""Pairwise subject identifiers (OpenID Connect Core §8.1, docs/oidc-provider.md) from outside:
requests-oauth2client validates the ID tokens of two pairwise clients of different sectors, one of
them named by a sector_identifier_uri that UMFA fetches from an HTTPS server of this test (trusted
through UMFA_SECTOR_IDENTIFIER_CA_FILE), and sees two different `sub`s of one person, each the
same at userinfo. The fetch refuses a document that does not list a redirect URI, a redirect, a
document that is too large, and, for a client that registers itself, a host that resolves to a
private address."""

import ipaddress
import json
import socket
import ssl
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from requests_oauth2client import ClientSecretBasic, OAuth2Client

from support import ADMIN_TOKEN
from test_oauth_code_flow import Browser
from tls_support import make_pki

A_URIS = ["https://a.example/cb", "https://a2.example/cb"]


class SectorServer:
    """HTTPS on 127.0.0.1 with a certificate of the test CA: /sector.json lists A_URIS,
    /short.json only the first, /moved redirects to /sector.json, /big.json is 100 KB."""

    def __init__(self, pki):
        documents = {"/sector.json": json.dumps(A_URIS), "/short.json": json.dumps(A_URIS[:1]),
                     "/big.json": json.dumps(["https://a.example/" + "x" * 100] * 1000)}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path == "/moved":
                    self.send_response(302)
                    self.send_header("Location", "/sector.json")
                    self.end_headers()
                    return
                body = documents.get(self.path, "").encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("0.0.0.0", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(pki.server_cert), str(pki.server_key))
        self.http.socket = context.wrap_socket(self.http.socket, server_side=True)
        self.http.daemon_threads = True
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.port = self.http.server_address[1]

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"https://{host}:{self.port}{path}"


@pytest.fixture
def sector(tmp_path):
    server = SectorServer(make_pki(tmp_path))
    yield server
    server.http.shutdown()


def client(server, name: str, redirects: list[str], **members) -> dict:
    body = {"client_name": name, "redirect_uris": redirects, "grant_types": ["authorization_code"],
            "response_types": ["code"], "token_endpoint_auth_method": "client_secret_basic",
            "scope": "openid email", "first_party": True, "subject_type": "pairwise", **members}
    return server.request("POST", f"/api/admin/applications/{server.app_id}/oauth-clients", body,
                          bearer=ADMIN_TOKEN)


def test_two_sectors_two_subjects_and_a_sector_document_fetched_safely(serve, authenticator, sector, tmp_path):
    pki_ca = tmp_path / "pki" / "ca.pem"
    server = serve(env={"UMFA_SECTOR_IDENTIFIER_CA_FILE": str(pki_ca)})

    # The document must list every redirect URI, be fetched without a redirect, and be small.
    for path, why in (("/short.json", "does not list"), ("/moved", "HTTP 302"), ("/big.json", "larger than")):
        refused = client(server, "A", A_URIS, sector_identifier_uri=sector.url(path))
        assert refused.status_code == 400 and why in refused.text, (path, refused.text)
    created_a = client(server, "A", A_URIS, sector_identifier_uri=sector.url("/sector.json"))
    assert created_a.status_code == 201, created_a.text
    created_b = client(server, "B", ["https://b.example/cb"])
    assert created_b.status_code == 201, created_b.text

    # A client that registers itself may not point the server at its own network by name.
    host = socket.gethostname()
    resolved = {info[4][0] for info in socket.getaddrinfo(host, None)}
    assert resolved and not any(ipaddress.ip_address(a.split("%")[0]).is_global for a in resolved), resolved
    grant = server.ok("POST", f"/api/admin/applications/{server.app_id}/initial-access-tokens",
                      {"ttl_seconds": 600, "uses": 1}, bearer=ADMIN_TOKEN, status=201)
    registered = requests.post(f"{server.origin}/oidc/{server.app_id}/register", timeout=10,
                               headers={"Authorization": "Bearer " + grant["initial_access_token"]},
                               json={"redirect_uris": A_URIS, "subject_type": "pairwise",
                                     "sector_identifier_uri": sector.url("/sector.json", host=host)})
    assert registered.status_code == 400 and registered.json()["error"] == "invalid_client_metadata", registered.text

    # One person signs in to both: each library sees its own, different, sub.
    issuer = f"{server.origin}/oidc/{server.app_id}"
    browser = Browser(server, authenticator)
    subjects = []
    for created, redirect, first in ((created_a, A_URIS[1], True), (created_b, "https://b.example/cb", False)):
        registered_client = created.json()
        oauth = OAuth2Client.from_discovery_endpoint(
            issuer + "/.well-known/openid-configuration", issuer=issuer, testing=True,
            auth=ClientSecretBasic(registered_client["client_id"], registered_client["client_secret"]),
            redirect_uri=redirect, id_token_signed_response_alg="RS256")
        request = oauth.authorization_request(scope="openid email", prompt="create" if first else None)
        if first:
            callback = browser.create_account(request.uri, f"kim-{uuid.uuid4().hex[:8]}@example.com")
        else:
            answer = browser.http.get(request.uri, allow_redirects=False, timeout=10)
            assert answer.status_code == 303, answer.text[:200]
            callback = answer.headers["Location"]
        token = oauth.authorization_code(request.validate_callback(callback))
        sub = token.id_token.claims["sub"]
        assert oauth.userinfo(token)["sub"] == sub
        subjects.append(sub)
    assert subjects[0] != subjects[1], subjects
    discovery = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert "pairwise" in discovery["subject_types_supported"]
