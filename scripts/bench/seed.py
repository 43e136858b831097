"""Seeds enrolled users straight into a UMFA database (SQLite file or PostgreSQL URL) so login
latency can be measured with many users: `seed.py DATABASE APPLICATION_ID TOTAL` tops the
application up to TOTAL seeded users (ids `seed-<n>`), each with one ES256 credential. The rows
have the shape the server writes (bytes as base64url text, times in ms, lists as JSON)."""

import base64
import os
import sqlite3
import sys
import time

BATCH = 20_000


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# One real COSE ES256 public key for every seeded credential: the seeded users only need to
# exist and be indexed; the measured logins use their own keys.
COSE_KEY = b64u(bytes.fromhex(
    "a5010203262001215820" + "65eda5a12577c2bae829437fe338701a10aaa375e1bb5b5de108de439c08551d"
    + "225820" + "1e52ed75701163f7f9e40ddf9f341b3dc9ba860af7e0ca7ca7e9eecd0084d19c"))


def rows(application_id: str, start: int, stop: int):
    now = int(time.time() * 1000)
    users, credentials = [], []
    for n in range(start, stop):
        user_id = f"seed-{n}"
        users.append((application_id, user_id, b64u(os.urandom(16)), user_id, now))
        credentials.append((application_id, b64u(os.urandom(32)), user_id, COSE_KEY, 0, b64u(bytes(16)),
                            '["internal"]', 0, 0, 1, "none", None, now, None))
    return users, credentials


USERS_SQL = "INSERT INTO users (application_id, user_id, user_handle, display_name, created_at) VALUES ({})"
CREDENTIALS_SQL = ("INSERT INTO credentials (application_id, credential_id, user_id, public_key, sign_count, "
                   "aaguid, transports, backup_eligible, backup_state, uv_initialized, attestation_format, "
                   "device_name, created_at, last_used_at) VALUES ({})")


def seeded_count(cursor, placeholder: str, application_id: str) -> int:
    cursor.execute(f"SELECT COUNT(*) FROM users WHERE application_id = {placeholder} AND user_id LIKE {placeholder}",
                   (application_id, "seed-%"))
    return cursor.fetchone()[0]


def main() -> None:
    database, application_id, total = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if database.startswith("postgres"):
        import psycopg
        from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit
        # UMFA's own URL parameters are not libpq's: search_path becomes a session option.
        url = urlsplit(database)
        query = dict(parse_qsl(url.query))
        schema = query.pop("search_path", None)
        for umfa_only in ("synchronous_commit", "pool_size", "connect_timeout"):
            query.pop(umfa_only, None)
        connection = psycopg.connect(urlunsplit(url._replace(query=urlencode(query))),
                                     **({"options": f"-c search_path={schema}"} if schema else {}))
        placeholder = "%s"
    else:
        connection = sqlite3.connect(database.removeprefix("sqlite://"), timeout=60)
        placeholder = "?"
    cursor = connection.cursor()
    have = seeded_count(cursor, placeholder, application_id)
    started = time.perf_counter()
    for start in range(have, total, BATCH):
        users, credentials = rows(application_id, start, min(total, start + BATCH))
        cursor.executemany(USERS_SQL.format(", ".join([placeholder] * 5)), users)
        cursor.executemany(CREDENTIALS_SQL.format(", ".join([placeholder] * 14)), credentials)
        connection.commit()
    seeded = time.perf_counter() - started
    if database.startswith("postgres"):
        # Vacuumed now rather than by autovacuum during the figures that follow (a million new
        # rows keep it busy for a while, on the same two cores).
        connection.autocommit = True
        cursor.execute("VACUUM (ANALYZE) users")
        cursor.execute("VACUUM (ANALYZE) credentials")
    print(f"seeded {total - have} users (now {max(have, total)}) in {seeded:.1f} s"
          f"{f', vacuumed in {time.perf_counter() - started - seeded:.1f} s' if database.startswith('postgres') else ''}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
