"""`openssl speed` on this host, the floor of `scripts/bench.sh --cpu`: RSA-2048, P-256 and
Ed25519 operations per second on one core, the best of ROUNDS runs (default 2), as JSON."""

import json
import subprocess
import sys


def once(seconds: int) -> dict:
    # -mr: "+F2:index:bits:sign/s:verify/s" (RSA), "+F4:…" (ECDSA), "+F6:…:name:sign/s:verify/s" (EdDSA).
    output = subprocess.run(["openssl", "speed", "-mr", "-seconds", str(seconds), "rsa2048", "ecdsap256",
                             "ed25519"], check=True, capture_output=True, text=True).stdout
    figures = {}
    for line in output.splitlines():
        fields = line.split(":")
        if line.startswith("+F2:") and fields[2] == "2048":
            figures["rsa2048_sign"], figures["rsa2048_verify"] = float(fields[3]), float(fields[4])
        elif line.startswith("+F4:") and fields[2] == "256":
            figures["p256_sign"], figures["p256_verify"] = float(fields[3]), float(fields[4])
        elif line.startswith("+F6:") and fields[3] == "Ed25519":
            figures["ed25519_sign"], figures["ed25519_verify"] = float(fields[4]), float(fields[5])
    return figures


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    best: dict = {}
    for _ in range(rounds):
        for name, value in once(2).items():
            best[name] = max(best.get(name, 0.0), value)
    best["version"] = subprocess.run(["openssl", "version"], capture_output=True, text=True).stdout.strip()
    print(json.dumps(best, indent=2))


if __name__ == "__main__":
    main()
