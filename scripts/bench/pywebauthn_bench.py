"""py_webauthn 3.0.1 on the very responses umfa-bench verified (written by `umfa-bench library
--vectors FILE`): verifications per second on one core, printed as one JSON object. Like
umfa-bench, each figure is the best of several short rounds (argument 3, default 5)."""

import json
import sys
import time

from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers import base64url_to_bytes


def rate(seconds: float, items: list, verify) -> float:
    done = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(64):
            verify(items[done % len(items)])
            done += 1
        if time.perf_counter() >= deadline:
            return done / (time.perf_counter() - start)


def main() -> None:
    vectors = json.load(open(sys.argv[1]))
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    rp_id, origin = vectors["rp_id"], vectors["origin"]
    public_key = base64url_to_bytes(vectors["credential_public_key"])

    def authentication(item):
        verify_authentication_response(
            credential=item["response"], expected_challenge=base64url_to_bytes(item["challenge"]),
            expected_rp_id=rp_id, expected_origin=origin, credential_public_key=public_key,
            credential_current_sign_count=0, require_user_verification=False)

    def registration(item):
        verify_registration_response(
            credential=item["response"], expected_challenge=base64url_to_bytes(item["challenge"]),
            expected_rp_id=rp_id, expected_origin=origin, require_user_verification=False)

    kinds = {
        "assertion_verify_per_second": (vectors["authentications"], authentication),
        "registration_none_verify_per_second": (vectors["registrations_none"], registration),
        "registration_packed_verify_per_second": (vectors["registrations_packed"], registration),
    }
    best = dict.fromkeys(kinds, 0.0)
    for _ in range(rounds):
        for name, (items, verify) in kinds.items():
            best[name] = max(best[name], rate(seconds / rounds, items, verify))
    print(json.dumps(best, indent=2))


if __name__ == "__main__":
    main()
