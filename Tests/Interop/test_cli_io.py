"""The command line's promises from docs/contract.md §9: every file argument reads `-` and
`/dev/stdin`, and a command that did not do its job (an unreachable server included) exits
non-zero with the reason on stderr."""

import uuid

import pytest

from webauthn import options_to_json, verify_registration_response

from support import ORIGIN, RP_ID, VARIANTS, enroll, registration_args, registration_options

PLAIN = VARIANTS[0]


@pytest.mark.parametrize("spelling", ["-", "/dev/stdin"])
def test_verify_registration_reads_standard_input(umfa, authenticator, spelling):
    enrollment = enroll(authenticator, PLAIN)
    from_file = umfa.ok(*registration_args(enrollment.response.path, enrollment.options.challenge)).json()
    args = registration_args(spelling, enrollment.options.challenge)
    result = umfa.run(*args, input=enrollment.response.text)
    assert result.code == 0, result
    assert result.json() == from_file


def test_authenticator_register_reads_options_from_standard_input(umfa, authenticator):
    options = registration_options(PLAIN)
    result = umfa.run(
        "authenticator", "register", "--options", "-", "--origin", ORIGIN, "--state", str(authenticator.state),
        input=options_to_json(options))
    assert result.code == 0, result
    verified = verify_registration_response(
        credential=result.stdout, expected_challenge=options.challenge, expected_origin=ORIGIN, expected_rp_id=RP_ID)
    assert verified.credential_id


UNREACHABLE = "http://127.0.0.1:1"


@pytest.mark.parametrize("command", [
    ["validate-token", "--server", UNREACHABLE, "--api-key", "umfa_ak_x", "--app", str(uuid.uuid4()),
     "--user", "alice", "--token", "eyJ"],
    ["admin", "list-apps", "--server", UNREACHABLE, "--admin-token", "umfa_admin_x"],
    ["admin", "show-app", "--server", UNREACHABLE, "--admin-token", "umfa_admin_x", "--app", str(uuid.uuid4())],
])
def test_unreachable_server_exits_non_zero(umfa, command):
    result = umfa.run(*command)
    assert result.code != 0, result
    assert "cannot reach" in result.stderr, result
    assert not result.stdout.strip(), result
