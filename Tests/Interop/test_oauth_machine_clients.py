"""UMFA's OAuth issuer (docs/contract.md §5) driven by OAuth client libraries nobody here wrote:
authlib (token, introspection, revocation), PyJWT (the access token against the issuer's JWKS)
and requests-oauth2client (discovery, client_credentials, introspection, revocation, errors)."""

import jwt
import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from requests_oauth2client import ClientSecretPost, InvalidClient, InvalidScope, OAuth2Client

from support import ADMIN_TOKEN


def make_client(server, method: str = "client_secret_basic", scope: str = "orders:read orders:write") -> dict:
    return server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                     {"client_name": "Billing", "grant_types": ["client_credentials"], "response_types": [],
                      "token_endpoint_auth_method": method, "scope": scope},
                     bearer=ADMIN_TOKEN, status=201)


def issuer_of(server) -> str:
    """`umfa serve` publishes its development origin (http://localhost:<port>) as its public URL."""
    return f"{server.origin}/oidc/{server.app_id}"


def test_authlib_gets_checks_introspects_and_revokes_an_access_token(server):
    client = make_client(server)
    issuer = issuer_of(server)
    session = OAuth2Session(client["client_id"], client["client_secret"],
                            token_endpoint_auth_method="client_secret_basic", scope="orders:read")
    token = session.fetch_token(issuer + "/token", grant_type="client_credentials")
    assert token["token_type"] == "Bearer" and token["scope"] == "orders:read" and token["expires_in"] == 600

    # The access token is an RFC 9068 JWT that the issuer's JWKS verifies.
    header = jwt.get_unverified_header(token["access_token"])
    assert header["typ"] == "at+jwt" and header["alg"] == "RS256"
    key = jwt.PyJWKClient(issuer + "/jwks").get_signing_key(header["kid"])
    claims = jwt.decode(token["access_token"], key.key, algorithms=["RS256"], audience=issuer, issuer=issuer,
                        options={"require": ["exp", "iat", "jti", "sub", "client_id"]})
    assert claims["iss"] == issuer and claims["client_id"] == client["client_id"] == claims["sub"]
    assert claims["scope"] == "orders:read" and claims["exp"] - claims["iat"] == 600

    introspection = session.introspect_token(issuer + "/introspect", token=token["access_token"])
    assert introspection.status_code == 200 and introspection.json()["active"] is True
    assert introspection.json()["client_id"] == client["client_id"]
    revoked = session.revoke_token(issuer + "/revoke", token=token["access_token"], token_type_hint="access_token")
    assert revoked.status_code == 200
    after = session.introspect_token(issuer + "/introspect", token=token["access_token"])
    assert after.json() == {"active": False}


def test_requests_oauth2client_discovers_the_issuer_and_runs_the_machine_flow(server):
    client = make_client(server, method="client_secret_post")
    issuer = issuer_of(server)
    oauth = OAuth2Client.from_discovery_endpoint(
        issuer + "/.well-known/openid-configuration", issuer=issuer, testing=True,  # testing: plain http
        auth=ClientSecretPost(client["client_id"], client["client_secret"]))
    assert oauth.token_endpoint == issuer + "/token"
    token = oauth.client_credentials(scope="orders:write")
    assert token.scope == "orders:write" and token.token_type.lower() == "bearer"
    assert oauth.introspect_token(token.access_token)["active"] is True
    oauth.revoke_access_token(token.access_token)
    assert oauth.introspect_token(token.access_token) == {"active": False}

    with pytest.raises(InvalidScope):
        oauth.client_credentials(scope="admin")
    wrong = OAuth2Client(token_endpoint=issuer + "/token", testing=True,
                         auth=ClientSecretPost(client["client_id"], client["client_secret"] + "x"))
    with pytest.raises(InvalidClient):
        wrong.client_credentials()


def test_the_rfc_8414_document_equals_the_discovery_document(server):
    issuer = issuer_of(server)
    discovery = requests.get(issuer + "/.well-known/openid-configuration")
    rfc8414 = requests.get(f"{server.base}/.well-known/oauth-authorization-server/oidc/{server.app_id}")
    assert discovery.status_code == rfc8414.status_code == 200
    assert discovery.json() == rfc8414.json()
    assert discovery.json()["issuer"] == issuer
    document = discovery.json()
    assert document["token_endpoint_auth_methods_supported"] == ["client_secret_basic", "client_secret_post",
                                                                 "client_secret_jwt", "private_key_jwt",
                                                                 "tls_client_auth", "self_signed_tls_client_auth",
                                                                 "none"]
    # A public client proves nothing about who asks (RFC 7662 §4): introspection needs a secret or a key.
    assert document["introspection_endpoint_auth_methods_supported"] == ["client_secret_basic", "client_secret_post",
                                                                         "client_secret_jwt", "private_key_jwt",
                                                                         "tls_client_auth",
                                                                         "self_signed_tls_client_auth"]


def test_umfa_admin_create_client_registers_a_client_that_gets_tokens(umfa, server):
    """`umfa admin create-client` (docs/contract.md §5) prints the client with its secret once."""
    env = {"UMFA_ADMIN_TOKEN": ADMIN_TOKEN}
    created = umfa.run_env(env, "admin", "create-client", "--server", server.base, "--app", server.app_id,
                           "--name", "Reports", "--grant-type", "client_credentials", "--scope", "reports:read")
    assert created.code == 0, created
    client = created.json()
    assert client["client_id"].startswith("umfa_ci_") and client["client_secret"].startswith("umfa_cs_")
    assert client["grant_types"] == ["client_credentials"] and client["scope"] == "reports:read"
    token = requests.post(issuer_of(server) + "/token", data={"grant_type": "client_credentials"},
                          auth=(client["client_id"], client["client_secret"]))
    assert token.status_code == 200 and token.json()["scope"] == "reports:read"

    listed = umfa.run_env(env, "admin", "list-clients", "--server", server.base, "--app", server.app_id)
    assert listed.code == 0, listed
    assert [c["client_id"] for c in listed.json()["clients"]] == [client["client_id"]]
    assert client["client_secret"] not in listed.stdout

    refused = umfa.run_env(env, "admin", "create-client", "--server", server.base, "--app", server.app_id,
                           "--name", "Bad", "--grant-type", "client_credentials", "--auth-method", "none")
    assert refused.code != 0
    assert "client_credentials needs a confidential client" in refused.stdout + refused.stderr


def test_public_url_is_the_base_of_every_issuer(serve):
    server = serve(args=("--public-url", "https://id.example.com/"))
    metadata = requests.get(f"{server.base}/oidc/{server.app_id}/.well-known/openid-configuration").json()
    assert metadata["issuer"] == f"https://id.example.com/oidc/{server.app_id}"
    assert metadata["token_endpoint"] == metadata["issuer"] + "/token"

    refused = serve(env={"UMFA_PUBLIC_URL": "id.example.com/path?x=1"}, start=False)
    assert refused.wait_exit() != 0, refused.logs()
    assert "UMFA_PUBLIC_URL must be an absolute http or https URL" in refused.stdout + refused.stderr


def test_authlib_private_key_jwt_authenticates_a_client_with_its_registered_key(server):
    """authlib's PrivateKeyJWT (RFC 7523) signs the client assertion with an RSA key whose public
    half the client registered as jwks; UMFA gives it a token, once per assertion, and refuses
    the same client signing with another key."""
    from authlib.jose import JsonWebKey
    from authlib.oauth2.rfc7523 import PrivateKeyJWT
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    def pem(key) -> bytes:
        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())

    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public_jwk = JsonWebKey.import_key(pem(private), {"kty": "RSA"}).as_dict(is_private=False)
    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "Signed", "grant_types": ["client_credentials"], "response_types": [],
                        "token_endpoint_auth_method": "private_key_jwt", "scope": "orders:read",
                        "jwks": {"keys": [public_jwk]}},
                       bearer=ADMIN_TOKEN, status=201)
    assert "client_secret" not in client, client
    issuer = f"{server.origin}/oidc/{server.app_id}"
    token_endpoint = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert "private_key_jwt" in token_endpoint["token_endpoint_auth_methods_supported"]
    token_url = token_endpoint["token_endpoint"]

    session = OAuth2Session(client["client_id"], pem(private).decode(),
                            token_endpoint_auth_method=PrivateKeyJWT(token_url, alg="RS256"), scope="orders:read")
    token = session.fetch_token(token_url, grant_type="client_credentials")
    assert token["token_type"] == "Bearer" and token["scope"] == "orders:read", token
    claims = jwt.decode(token["access_token"], options={"verify_signature": False})
    assert claims["client_id"] == client["client_id"], claims
    # A fresh assertion (new jti) every time: a second token works.
    assert session.fetch_token(token_url, grant_type="client_credentials")["access_token"]

    impostor = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    other = OAuth2Session(client["client_id"], pem(impostor).decode(),
                          token_endpoint_auth_method=PrivateKeyJWT(token_url, alg="RS256"))
    with pytest.raises(Exception) as refused:
        other.fetch_token(token_url, grant_type="client_credentials")
    assert "invalid_client" in str(refused.value), refused.value


def test_authlib_client_secret_jwt_signs_with_the_secret_umfa_issued(server):
    """authlib's ClientSecretJWT (HS256 with the client secret, OpenID Connect Core §9): UMFA
    keeps the secret sealed with its master key to check the HMAC; a wrong secret is refused."""
    from authlib.oauth2.rfc7523 import ClientSecretJWT

    client = server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                       {"client_name": "HMAC", "grant_types": ["client_credentials"], "response_types": [],
                        "token_endpoint_auth_method": "client_secret_jwt", "scope": "orders:read"},
                       bearer=ADMIN_TOKEN, status=201)
    token_url = f"{server.origin}/oidc/{server.app_id}/token"
    session = OAuth2Session(client["client_id"], client["client_secret"],
                            token_endpoint_auth_method=ClientSecretJWT(token_url), scope="orders:read")
    token = session.fetch_token(token_url, grant_type="client_credentials")
    assert token["scope"] == "orders:read", token
    wrong = OAuth2Session(client["client_id"], client["client_secret"] + "x",
                          token_endpoint_auth_method=ClientSecretJWT(token_url))
    with pytest.raises(Exception) as refused:
        wrong.fetch_token(token_url, grant_type="client_credentials")
    assert "invalid_client" in str(refused.value), refused.value
