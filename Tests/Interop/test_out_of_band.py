"""Out-of-band enrollment and approval (docs/contract.md §7) end to end: the backend asks with its API
key, zxing-cpp (a decoder nobody here wrote) reads the QR code back to the app link, `umfa enroll
--app-link` and `umfa approvals approve / deny` act as the phone with a PIN, and the backend's
status token tells the outcome; PyJWT checks the login token against the JWKS."""

import base64
import io
import json

import jwt
import requests
import zxingcpp
from PIL import Image

from support import ADMIN_TOKEN, DeviceCLI

PIN = "482916"


def decode_qr(data_uri: str) -> str:
    assert data_uri.startswith("data:image/png;base64,")
    image = Image.open(io.BytesIO(base64.b64decode(data_uri.split(",", 1)[1])))
    found = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
    assert len(found) == 1, found
    return found[0].text


def status(server, token: str) -> dict:
    return server.ok("POST", "/api/umfa/status", {"statusToken": token})


def approvals(umfa, device_dir, verb: str, link: str, *extra: str):
    return umfa.run_env({}, "approvals", verb, "--app-link", link, "--device-dir", device_dir, "--pin-stdin", *extra,
                        input=PIN + "\n")


def test_enroll_by_qr_code_then_approve_deny_and_refuse(server, umfa, tmp_path):
    app = server.ok("POST", "/api/admin/applications",
                    {"name": "Bank", "rp_id": "localhost", "origins": [server.origin], "enrollment_policy": "grant"},
                    status=201, bearer=ADMIN_TOKEN)
    app_id, api_key = app["application_id"], app["api_key"]
    device_dir = tmp_path / "phone"

    # The backend starts the enrollment; the phone scans the QR code.
    started = server.ok("POST", "/api/umfa/users/enroll", {"application_id": app_id, "user_id": "erin"}, bearer=api_key)
    assert started["status"] == "new" and started["authenticators"] == []
    enrollment = started["enrollment"]
    link = decode_qr(enrollment["qrCode"]["dataUri"])
    assert link == enrollment["appLinkUri"] and link.startswith(server.base.replace("127.0.0.1", "localhost") + "/open?")
    assert status(server, enrollment["statusToken"])["status"] == "pending"
    phone = DeviceCLI(umfa, server.base, app_id, server.origin, device_dir)
    enrolled = umfa.run_env({}, "enroll", "--app-link", link, "--device-dir", device_dir, "--pin-stdin",
                            "--device-name", "Erin's phone", input=PIN + "\n")
    assert enrolled.code == 0, enrolled
    out = enrolled.json()
    assert out["user_id"] == "erin" and out["user_verification"] == "pin" and out["transaction_id"], out
    # The link works once.
    again = umfa.run_env({}, "enroll", "--app-link", link, "--device-dir", tmp_path / "other", "--pin-stdin",
                         input=PIN + "\n")
    assert again.code != 0 and again.stderr.strip(), again

    done = status(server, enrollment["statusToken"])
    assert done["status"] == "succeeded" and done["userId"] == "erin", done
    keys = jwt.PyJWKClient(server.base + "/.well-known/jwks.json")
    claims = jwt.decode(done["token"], keys.get_signing_key_from_jwt(done["token"]).key, algorithms=["RS256"],
                        audience=app_id, issuer="UMFA::Authenticator")
    assert claims["user_id"] == "erin" and claims["credential_id"] == out["credential_id"], claims
    valid = server.post("/api/umfa/validate-token", {"application_id": app_id, "user_id": "erin",
                                                      "token": done["token"]}, bearer=api_key)
    assert valid.status_code == 200, valid.text
    # The same device signs in as usual afterwards.
    assert phone.authenticate("erin", pin=PIN)["user_id"] == "erin"

    # An approval with a message and number matching, approved with the right number.
    asked = server.ok("POST", "/api/umfa/approvals", {"application_id": app_id, "user_id": "erin",
                                                      "message": "Pay 120.00 EUR to Shop", "number_matching": True},
                      status=201, bearer=api_key)
    link = decode_qr(asked["qrCode"]["dataUri"])
    approved = approvals(umfa, device_dir, "approve", link, "--number", asked["matchingNumber"])
    assert approved.code == 0, approved
    assert "Pay 120.00 EUR to Shop" in approved.stderr and approved.json()["status"] == "succeeded", approved
    result = status(server, asked["statusToken"])
    assert result["status"] == "succeeded" and result["token"], result
    # A replayed dispatch token does nothing.
    assert approvals(umfa, device_dir, "approve", link, "--number", asked["matchingNumber"]).code != 0

    # A wrong number fails the transaction.
    asked = server.ok("POST", "/api/umfa/approvals", {"application_id": app_id, "user_id": "erin",
                                                      "number_matching": True}, status=201, bearer=api_key)
    wrong = "10" if asked["matchingNumber"] != "10" else "11"
    refused = approvals(umfa, device_dir, "approve", asked["appLinkUri"], "--number", wrong)
    assert refused.code != 0 and "number" in refused.stderr, refused
    assert status(server, asked["statusToken"])["status"] == "failed"

    # A denial, proven by the passkey too.
    asked = server.ok("POST", "/api/umfa/approvals", {"application_id": app_id, "user_id": "erin",
                                                      "message": "Sign in from Lyon?"}, status=201, bearer=api_key)
    denied = approvals(umfa, device_dir, "deny", asked["appLinkUri"])
    assert denied.code == 0 and denied.json()["status"] == "denied", denied
    result = status(server, asked["statusToken"])
    assert result["status"] == "denied" and "token" not in result, result

    # A wrong PIN signs nothing; the transaction stays pending.
    asked = server.ok("POST", "/api/umfa/approvals", {"application_id": app_id, "user_id": "erin"},
                      status=201, bearer=api_key)
    wrong_pin = umfa.run_env({}, "approvals", "approve", "--app-link", asked["appLinkUri"], "--device-dir", device_dir,
                             "--pin-stdin", input="000000\n")
    assert wrong_pin.code != 0, wrong_pin
    assert status(server, asked["statusToken"])["status"] == "pending"

    # A phone without the app lands on a page that says what to do.
    page = requests.get(link, timeout=10)
    assert page.status_code == 200 and "authenticator app" in page.text
    assert "umfa_dt_" not in page.text and "default-src 'none'" in page.headers["Content-Security-Policy"]

    # The audit log has the approvals' outcomes.
    events = server.ok("GET", f"/api/umfa/audit-events?application_id={app_id}&limit=1000", bearer=api_key)["events"]
    outcomes = [e["action"] for e in events if e["action"].startswith("approval.")]
    assert outcomes == ["approval.approved", "approval.failed", "approval.denied"], outcomes
    assert json.dumps(events).count("umfa_dt_") == 0 and json.dumps(events).count("umfa_st_") == 0
