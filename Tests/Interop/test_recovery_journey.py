"""End-to-end recovery (docs/contract.md §8) with the `umfa` device commands: a user enrolls a phone,
makes recovery codes with a fresh login token, loses the phone's device directory, redeems a
code for an enrollment token, enrolls a new phone and signs in; the backend removes the lost
passkey; the audit log shows every step, in order, and none of the secrets."""

import shutil

from support import ADMIN_TOKEN, DeviceCLI

USER = "dana@example.com"


def test_a_user_who_lost_the_device_recovers_with_a_code(server, umfa, tmp_path):
    app = server.ok("POST", "/api/admin/applications",
                    {"name": "Recovering bank", "rp_id": "localhost", "origins": [server.origin],
                     "enrollment_policy": "grant"}, status=201, bearer=ADMIN_TOKEN)
    app_id, api_key = app["application_id"], app["api_key"]

    def grant() -> str:
        return server.ok("POST", "/api/umfa/enrollment-tokens", {"application_id": app_id, "user_id": USER},
                         status=201, bearer=api_key)["enrollment_token"]

    # Enroll the first phone and sign in; the fresh login token makes ten recovery codes.
    phone = DeviceCLI(umfa, server.base, app_id, server.origin, tmp_path / "phone")
    lost_credential = phone.enroll(USER, "--enrollment-token", grant())["credential_id"]
    login = phone.authenticate(USER)
    codes = server.ok("POST", "/api/umfa/me/recovery-codes", status=201, bearer=login["token"])["recovery_codes"]
    assert len(codes) == 10 and len(set(codes)) == 10, codes

    # The phone is gone, and its passkey with it.
    shutil.rmtree(phone.device_dir)
    phone.fails("authenticate", USER)

    # A wrong code is refused; the right one (typed in lower case) gives an enrollment token once.
    refused = server.post("/api/umfa/recovery", {"application_id": app_id, "user_id": USER,
                                                  "recovery_code": "ABCD-EFGH-JKMN-PQRS"})
    assert refused.status_code == 401, refused.text
    redeemed = server.ok("POST", "/api/umfa/recovery", {"application_id": app_id, "user_id": USER,
                                                         "recovery_code": codes[0].lower()})
    again = server.post("/api/umfa/recovery", {"application_id": app_id, "user_id": USER, "recovery_code": codes[0]})
    assert again.status_code == 401, "each code works once"

    # The new phone enrolls with it and signs in; the backend validates the token.
    new_phone = DeviceCLI(umfa, server.base, app_id, server.origin, tmp_path / "new-phone")
    enrolled = new_phone.enroll(USER, "--enrollment-token", redeemed["enrollment_token"])
    signed_in = new_phone.authenticate(USER)
    assert signed_in["credential_id"] == enrolled["credential_id"] != lost_credential
    validated = umfa.run("validate-token", "--server", server.base, "--api-key", api_key, "--app", app_id,
                         "--user", USER, "--token", signed_in["token"])
    assert validated.code == 0, validated
    remaining = server.ok("GET", "/api/umfa/me/recovery-codes", bearer=signed_in["token"])
    assert remaining["remaining"] == 9, remaining

    # The backend removes the lost phone's passkey.
    server.ok("DELETE", f"/api/umfa/users/{USER}/credentials/{lost_credential}?application_id={app_id}",
              bearer=api_key)

    # The application's audit log, read with its API key, tells the story in order.
    answer = server.ok("GET", f"/api/umfa/audit-events?application_id={app_id}&user_id={USER}", bearer=api_key)
    events = answer["events"]
    assert [event["action"] for event in events] == [
        "registration.succeeded", "authentication.succeeded", "recovery.codes_created", "recovery.failed",
        "recovery.used", "recovery.failed", "registration.succeeded", "authentication.succeeded",
        "credential.deleted",
    ], events
    assert events[0]["credential_id"] == lost_credential and events[6]["credential_id"] == enrolled["credential_id"]
    assert events[-1]["credential_id"] == lost_credential and events[-1]["actor"].startswith("api_key:")
    assert events[4]["details"]["remaining"] == 9
    assert len({event["trace_id"] for event in events}) == len(events), "one request, one trace id"
    times = [event["occurred_at"] for event in events]
    assert times == sorted(times)
    text = str(answer)
    for secret in codes + [login["token"], signed_in["token"], redeemed["enrollment_token"], api_key]:
        assert secret not in text and secret.lower() not in text
