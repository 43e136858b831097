"""RFC 8705 with third-party clients: `curl --cert` and Python `requests` (cert=(…)) present
certificates made by `openssl` in the test run, to a TLS-terminating proxy that forwards the
client certificate in a header (RFC 8705 §6.5, as nginx's `$ssl_client_escaped_cert`), and to
UMFA's own mutual-TLS listener (RFC 8705 §5). Clients are registered with
`umfa admin create-client --auth-method tls_client_auth --tls-subject-dn …`."""

from __future__ import annotations

import base64
import json
import ssl
import subprocess
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from support import ADMIN_TOKEN
from tls_support import CLIENT_DN, CLIENT_SAN_DNS, pki, tls_serve, x5t_s256  # noqa: F401

HEADER = "X-Client-Cert"


class CertificateProxy:
    """A TLS-terminating reverse proxy in front of a plain-HTTP `umfa serve`: it asks for a client
    certificate (trusting the test CA and the listed self-signed certificates, as a proxy
    configured for both kinds of client does), drops any certificate header the client sent, and
    forwards the handshake's certificate URL-encoded in `X-Client-Cert`."""

    def __init__(self, upstream: str, pki, extra_trusted=()):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(pki.server_chain), str(pki.server_key))
        context.verify_mode = ssl.CERT_OPTIONAL
        context.load_verify_locations(str(pki.ca))
        for path in (pki.self_signed_cert, *extra_trusted):
            context.load_verify_locations(str(path))

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.forward()

            def do_GET(self):
                self.forward()

            def forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("host", "content-length", HEADER.lower(), "connection")}
                der = self.connection.getpeercert(binary_form=True)
                if der:
                    headers[HEADER] = urllib.parse.quote(ssl.DER_cert_to_PEM_cert(der), safe="")
                answer = requests.request(self.command, upstream + self.path, headers=headers, data=body, timeout=15)
                self.send_response(answer.status_code)
                for name, value in answer.headers.items():
                    if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.base = f"https://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def behind_proxy(serve, pki):
    """A plain-HTTP UMFA trusting loopback as its proxy, and the proxy in front of it."""
    server = serve(env={"UMFA_TLS_CLIENT_CERT_HEADER": HEADER, "UMFA_TLS_CLIENT_CERT_TRUSTED_PROXIES": "127.0.0.1",
                        "UMFA_MTLS_TRUST_ANCHORS": str(pki.ca)})
    proxy = CertificateProxy(server.base, pki)
    yield server, proxy
    proxy.close()


def create_client(umfa, server, *args) -> dict:
    created = umfa.run_env({"UMFA_ADMIN_TOKEN": ADMIN_TOKEN}, "admin", "create-client", "--server", server.base,
                           "--app", server.app_id, "--name", "Machine", "--grant-type", "client_credentials",
                           "--scope", "api", *args)
    assert created.code == 0, created
    client = created.json()
    assert "client_secret" not in client
    return client


def curl_token(base: str, app_id: str, client_id: str, cert, ca) -> tuple[int, dict]:
    """POST the token endpoint with `curl --cert`; (status, JSON body)."""
    command = ["curl", "-sS", "--cacert", str(ca), "-o", "-", "-w", "\n%{http_code}",
               "-d", "grant_type=client_credentials", "-d", f"client_id={client_id}",
               f"{base}/oidc/{app_id}/token"]
    if cert:
        command[1:1] = ["--cert", cert[0], "--key", cert[1]]
    done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    body, _, status = done.stdout.rpartition("\n")
    return int(status), json.loads(body)


def claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_tls_client_auth_through_the_proxy_with_curl_and_requests(umfa, behind_proxy, pki):
    server, proxy = behind_proxy
    client = create_client(umfa, server, "--auth-method", "tls_client_auth", "--tls-subject-dn", CLIENT_DN,
                           "--tls-bound-tokens")
    assert client["token_endpoint_auth_method"] == "tls_client_auth"
    assert client["tls_client_auth_subject_dn"] == CLIENT_DN
    client_id = client["client_id"]

    status, body = curl_token(proxy.base, server.app_id, client_id, pki.client, pki.ca)
    assert status == 200, body
    # RFC 8705 §3.1: bound to the certificate curl presented.
    assert claims(body["access_token"])["cnf"] == {"x5t#S256": x5t_s256(pki.client_cert)}

    token_url = f"{proxy.base}/oidc/{server.app_id}/token"
    answer = requests.post(token_url, data={"grant_type": "client_credentials", "client_id": client_id},
                           cert=pki.client, verify=str(pki.ca))
    assert answer.status_code == 200, answer.text
    token = answer.json()["access_token"]
    introspected = requests.post(f"{proxy.base}/oidc/{server.app_id}/introspect",
                                 data={"token": token, "client_id": client_id}, cert=pki.client, verify=str(pki.ca))
    assert introspected.json()["active"] is True
    assert introspected.json()["cnf"]["x5t#S256"] == x5t_s256(pki.client_cert)

    # The attacks: the same CA's certificate for another subject, the self-signed one, none.
    for cert in (pki.client2, pki.self_signed, None):
        status, body = curl_token(proxy.base, server.app_id, client_id, cert, pki.ca)
        assert (status, body["error"]) == (401, "invalid_client"), (cert, body)


def test_san_and_self_signed_clients_through_the_proxy(umfa, behind_proxy, pki):
    server, proxy = behind_proxy
    by_san = create_client(umfa, server, "--auth-method", "tls_client_auth", "--tls-san-dns", CLIENT_SAN_DNS)
    token_url = f"{proxy.base}/oidc/{server.app_id}/token"
    grant = {"grant_type": "client_credentials", "client_id": by_san["client_id"]}
    assert requests.post(token_url, data=grant, cert=pki.client, verify=str(pki.ca)).status_code == 200
    assert requests.post(token_url, data=grant, cert=pki.client2, verify=str(pki.ca)).status_code == 401

    self_signed = create_client(umfa, server, "--auth-method", "self_signed_tls_client_auth",
                                "--tls-certificate", str(pki.self_signed_cert))
    grant = {"grant_type": "client_credentials", "client_id": self_signed["client_id"]}
    assert requests.post(token_url, data=grant, cert=pki.self_signed, verify=str(pki.ca)).status_code == 200
    refused = requests.post(token_url, data=grant, cert=pki.client, verify=str(pki.ca))
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"


def test_the_certificate_header_from_an_untrusted_peer_is_ignored(umfa, serve, pki):
    """The attack: a client sends the proxy's header itself. Only 192.0.2.1 is a trusted proxy."""
    server = serve(env={"UMFA_TLS_CLIENT_CERT_HEADER": HEADER, "UMFA_TLS_CLIENT_CERT_TRUSTED_PROXIES": "192.0.2.1",
                        "UMFA_MTLS_TRUST_ANCHORS": str(pki.ca)})
    client = create_client(umfa, server, "--auth-method", "tls_client_auth", "--tls-subject-dn", CLIENT_DN)
    forged = urllib.parse.quote(pki.client_cert.read_text(), safe="")
    answer = requests.post(f"{server.base}/oidc/{server.app_id}/token",
                           data={"grant_type": "client_credentials", "client_id": client["client_id"]},
                           headers={HEADER: forged})
    assert answer.status_code == 401 and answer.json()["error"] == "invalid_client", answer.text


def test_bad_settings_stop_the_start(serve):
    started = serve(env={"UMFA_TLS_CLIENT_CERT_HEADER": HEADER}, start=False)
    assert started.wait_exit() != 0
    assert "UMFA_TLS_CLIENT_CERT_TRUSTED_PROXIES" in started.logs()


def test_tls_client_auth_on_the_mutual_tls_listener(tls_serve, pki):
    """RFC 8705 §5: the same rules on UMFA's own mutual-TLS alias, with curl and requests."""
    server = tls_serve(mtls=True, env={"UMFA_MTLS_TRUST_ANCHORS": str(pki.ca)})
    # The admin API over HTTPS (the session trusts the test CA); the CLI path is covered above.
    answer = server.http.post(f"{server.base}/api/admin/applications/{server.app_id}/oauth-clients",
                              headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
                              json={"client_name": "Machine", "grant_types": ["client_credentials"],
                                    "response_types": [], "scope": "api",
                                    "token_endpoint_auth_method": "tls_client_auth",
                                    "tls_client_auth_subject_dn": CLIENT_DN,
                                    "tls_client_certificate_bound_access_tokens": True})
    assert answer.status_code == 201, answer.text
    client = answer.json()
    status, body = curl_token(server.mtls_base, server.app_id, client["client_id"], pki.client, pki.ca)
    assert status == 200, body
    assert claims(body["access_token"])["cnf"] == {"x5t#S256": x5t_s256(pki.client_cert)}
    refused = server.mtls_request("POST", f"/oidc/{server.app_id}/token", cert=pki.client2,
                                  data={"grant_type": "client_credentials", "client_id": client["client_id"]})
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"
