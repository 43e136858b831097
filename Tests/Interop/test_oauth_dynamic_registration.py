"""Dynamic client registration (RFC 7591, RFC 7592; docs/contract.md §5) driven by clients nobody here
wrote: pyoidc (`oic`) discovers the issuer and registers with a `dcr_template` client's `dcr`
access token, reads the registration back (RFC 7592); authlib and requests-oauth2client then use
the registered clients. The admin's initial access token comes from `umfa admin
create-initial-access-token`."""

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from oic.exception import RegistrationError
from oic.oic import Client as OIDCClient
from oic.oic.message import RegistrationResponse
from oic.utils.authn.client import CLIENT_AUTHN_METHOD
from requests_oauth2client import ClientSecretBasic, InvalidClient, OAuth2Client

from support import ADMIN_TOKEN
from test_oauth_machine_clients import issuer_of


def make_template(server) -> dict:
    return server.ok("POST", f"/api/admin/applications/{server.app_id}/oauth-clients",
                     {"client_name": "Reports app", "grant_types": ["client_credentials"], "response_types": [],
                      "token_endpoint_auth_method": "client_secret_basic", "scope": "reports",
                      "dcr_template": True},
                     bearer=ADMIN_TOKEN, status=201)


def test_pyoidc_registers_with_a_template_token_and_authlib_uses_the_new_client(server):
    issuer = issuer_of(server)
    template = make_template(server)
    # The template's client_credentials grant for scope dcr, by authlib.
    session = OAuth2Session(template["client_id"], template["client_secret"],
                            token_endpoint_auth_method="client_secret_basic", scope="dcr")
    dcr = session.fetch_token(issuer + "/token", grant_type="client_credentials")
    assert dcr["scope"] == "dcr"

    oidc = OIDCClient(client_authn_method=CLIENT_AUTHN_METHOD)
    oidc.provider_config(issuer)
    assert oidc.provider_info["registration_endpoint"] == issuer + "/register"
    # pyoidc asks for authorization_code whatever it is told (its RegistrationRequest defaults
    # response_types to `code`, and it adds that type's grant); the template allows
    # client_credentials only, and a derived client may only tighten it (docs/contract.md §5):
    # refused, with the member named.
    with pytest.raises(RegistrationError, match="grant_types may only tighten"):
        oidc.register(oidc.provider_info["registration_endpoint"], registration_token=dcr["access_token"],
                      redirect_uris=["https://reports.example/callback"], client_name="Reports for Pia",
                      grant_types=["client_credentials"])
    # The same registration as RFC 7591 §3.1 puts it, sent by requests; pyoidc then reads, rotates
    # and deletes through RFC 7592 with the registration access token it was given.
    answer = requests.post(oidc.provider_info["registration_endpoint"],
                           headers={"Authorization": "Bearer " + dcr["access_token"]},
                           json={"redirect_uris": ["https://reports.example/callback"],
                                 "client_name": "Reports for Pia", "grant_types": ["client_credentials"]})
    assert answer.status_code == 201, answer.text
    registered = answer.json()
    oidc.store_registration_info(RegistrationResponse(**registered))
    # The template's grant types, scope and method; a secret and a registration token of its own.
    assert registered["client_id"] != template["client_id"] and oidc.client_id == registered["client_id"]
    assert registered["grant_types"] == ["client_credentials"] and registered["scope"] == "reports"
    assert registered["software_id"] == template["client_id"]
    assert oidc.client_secret and oidc.client_secret != template["client_secret"]
    assert registered["registration_client_uri"] == issuer + "/register/" + registered["client_id"]

    read = oidc.registration_read()
    assert read["client_id"] == registered["client_id"] and read["client_name"] == "Reports for Pia"
    assert "client_secret" not in read.to_dict()
    # The read rotated the registration access token (RFC 7592 §3); pyoidc keeps the new one.
    rotated = read["registration_access_token"]
    assert rotated != registered["registration_access_token"] and oidc.registration_access_token == rotated
    stale = requests.get(registered["registration_client_uri"],
                         headers={"Authorization": "Bearer " + registered["registration_access_token"]})
    assert stale.status_code == 401 and stale.json()["error"] == "invalid_token"

    client = OAuth2Session(oidc.client_id, oidc.client_secret, token_endpoint_auth_method="client_secret_basic",
                           scope="reports")
    token = client.fetch_token(issuer + "/token", grant_type="client_credentials")
    assert token["scope"] == "reports"

    # RFC 7592 delete: the client is gone, its secret no longer gets tokens.
    deleted = requests.delete(registered["registration_client_uri"],
                              headers={"Authorization": "Bearer " + rotated})
    assert deleted.status_code == 204
    after = requests.post(issuer + "/token", data={"grant_type": "client_credentials"},
                          auth=(oidc.client_id, oidc.client_secret))
    assert after.status_code == 401 and after.json()["error"] == "invalid_client"


def test_an_initial_access_token_from_the_cli_registers_a_client_requests_oauth2client_uses(umfa, server):
    issuer = issuer_of(server)
    env = {"UMFA_ADMIN_TOKEN": ADMIN_TOKEN}
    made = umfa.run_env(env, "admin", "create-initial-access-token", "--server", server.base, "--app", server.app_id,
                        "--uses", "1", "--ttl", "600", "--scope", "export")
    assert made.code == 0, made
    initial = made.json()
    assert initial["initial_access_token"].startswith("umfa_iat_") and initial["uses"] == 1

    # RFC 7591 §3: the token as it is, in a Bearer header (pyoidc base64-encodes tokens that are
    # not JWTs, so plain requests sends this one).
    body = {"client_name": "Nightly export", "grant_types": ["client_credentials"], "scope": "export",
            "contacts": ["ops@example.com"]}
    registered = requests.post(issuer + "/register", json=body,
                               headers={"Authorization": "Bearer " + initial["initial_access_token"]})
    assert registered.status_code == 201, registered.text
    client = registered.json()
    assert client["token_endpoint_auth_method"] == "client_secret_basic" and client["client_secret_expires_at"] == 0

    oauth = OAuth2Client.from_discovery_endpoint(
        issuer + "/.well-known/openid-configuration", issuer=issuer, testing=True,
        auth=ClientSecretBasic(client["client_id"], client["client_secret"]))
    assert oauth.client_credentials(scope="export").scope == "export"
    with pytest.raises(InvalidClient):
        OAuth2Client(oauth.token_endpoint, auth=(client["client_id"], "umfa_cs_wrong"), testing=True).client_credentials()

    # One use only.
    again = requests.post(issuer + "/register", json=body,
                          headers={"Authorization": "Bearer " + initial["initial_access_token"]})
    assert again.status_code == 401 and again.json()["error"] == "invalid_token"
    assert again.headers["WWW-Authenticate"].startswith("Bearer")
