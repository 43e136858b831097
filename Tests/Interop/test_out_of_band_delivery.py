"""Out-of-band delivery (docs/contract.md §7): webhooks signed with the application's secret, sent from a
persistent outbox that survives a server killed with SIGKILL in the middle of a delivery; and a
device that lists and watches its pending approvals with device proofs (`umfa approvals list /
watch`); and a device that refuses to sign when a proxy changes the message it is shown. The
receiver and the proxy are Python's own HTTP server; signatures are checked with hmac."""

import base64
import hashlib
import hmac
import json
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

from support import ADMIN_TOKEN, free_port

PIN = "482916"


class Receiver:
    """A webhook receiver on loopback. While `gate` is closed it holds each request without
    answering (a delivery in flight); once open it answers 200. `answered` records the deliveries
    it acknowledged with 2xx, `held` the ones it never answered."""

    def __init__(self):
        self.port = free_port()
        self.gate = threading.Event()
        self.lock = threading.Lock()
        self.answered: list[dict] = []
        self.held: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (the http.server name)
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                delivery = {"id": self.headers["UMFA-Webhook-Id"], "signature": self.headers["UMFA-Signature"],
                            "body": body, "content_type": self.headers["Content-Type"]}
                if not receiver.gate.is_set():
                    with receiver.lock:
                        receiver.held.append(delivery)
                    receiver.gate.wait(60)
                    self.close_connection = True  # the sender is gone: never acknowledged
                    return
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
                with receiver.lock:
                    receiver.answered.append(delivery)

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/umfa-hook"

    def wait(self, predicate, timeout: float, what: str):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if predicate(self):
                    return
            time.sleep(0.1)
        raise AssertionError(f"{what} within {timeout} s: answered={self.answered} held={self.held}")

    def close(self):
        self.gate.set()
        self.http.shutdown()


def signed_with(delivery: dict, secret: str) -> bool:
    """Whether UMFA-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "t.body")> holds for `secret`."""
    parts = dict(item.split("=", 1) for item in delivery["signature"].split(","))
    expected = hmac.new(secret.encode(), f"{parts['t']}.{delivery['body']}".encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts["v1"])


def verify(delivery: dict, secret: str) -> dict:
    """Checks the signature and the body's shape; the event."""
    assert signed_with(delivery, secret), delivery
    parts = dict(item.split("=", 1) for item in delivery["signature"].split(","))
    assert abs(time.time() - int(parts["t"])) < 300, delivery
    assert delivery["content_type"] == "application/json"
    event = json.loads(delivery["body"])
    assert set(event) == {"type", "transactionId", "status", "userId", "occurredAt"}, event
    return event


def enroll_by_link(server, umfa, app_id, api_key, user, device_dir):
    started = server.ok("POST", "/api/umfa/users/enroll", {"application_id": app_id, "user_id": user},
                        bearer=api_key)
    enrolled = umfa.run_env({}, "enroll", "--app-link", started["enrollment"]["appLinkUri"], "--device-dir",
                            device_dir, "--pin-stdin", "--device-name", "Phone", input=PIN + "\n")
    assert enrolled.code == 0, enrolled
    return started["enrollment"]["transactionId"]


def new_application(server, name):
    return server.ok("POST", "/api/admin/applications",
                     {"name": name, "rp_id": "localhost", "origins": [server.origin], "enrollment_policy": "grant"},
                     status=201, bearer=ADMIN_TOKEN)


def test_webhooks_are_signed_and_survive_a_kill_mid_delivery(serve, umfa, tmp_path):
    receiver = Receiver()
    try:
        data_dir = tmp_path / "data"
        first = serve(data_dir=data_dir, env={"UMFA_WEBHOOK_TIMEOUT_SECONDS": "5"})
        app = new_application(first, "Bank")
        app_id, api_key = app["application_id"], app["api_key"]
        changed = first.http.patch(f"{first.base}/api/admin/applications/{app_id}",
                                   json={"webhook_url": receiver.url},
                                   headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10)
        assert changed.status_code == 200, changed.text
        secret = changed.json()["webhook_secret"]
        assert secret.startswith("umfa_whs_")
        assert secret not in first.stderr and secret not in first.stdout

        # The enrollment's two changes go out; the receiver holds the first delivery open.
        enrolled_tx = enroll_by_link(first, umfa, app_id, api_key, "erin", tmp_path / "phone")
        receiver.wait(lambda r: len(r.held) >= 1, 15, "a delivery in flight")
        first.process.kill()  # SIGKILL in the middle of the delivery: no acknowledgement was sent
        first.process.wait()
        in_flight = receiver.held[0]
        assert not receiver.answered

        # Restarted on the same data, the outbox is still there: every event arrives, the one in
        # flight with the same id; and what happens afterwards is delivered too.
        receiver.gate.set()
        second = serve(data_dir=data_dir, env={"UMFA_WEBHOOK_TIMEOUT_SECONDS": "5"}, port=first.port)
        asked = second.ok("POST", "/api/umfa/approvals", {"application_id": app_id, "user_id": "erin",
                                                          "message": "Sign in from Lyon?"}, status=201,
                          bearer=api_key)
        denied = umfa.run_env({}, "approvals", "deny", "--app-link", asked["appLinkUri"], "--device-dir",
                              tmp_path / "phone", "--pin-stdin", input=PIN + "\n")
        assert denied.code == 0, denied
        receiver.wait(lambda r: len(r.answered) >= 4, 40, "four acknowledged deliveries")
        time.sleep(2)  # nothing more may come
        events = [verify(d, secret) for d in receiver.answered]
        assert sorted((e["transactionId"], e["type"]) for e in events) == sorted([
            (enrolled_tx, "transaction.created"), (enrolled_tx, "transaction.succeeded"),
            (asked["transactionId"], "transaction.created"), (asked["transactionId"], "transaction.denied"),
        ]), events
        assert len({d["id"] for d in receiver.answered}) == 4, "each event acknowledged once"
        assert in_flight["id"] in {d["id"] for d in receiver.answered}, "the delivery in flight was sent again"
        assert all(e["userId"] == "erin" for e in events if e["type"] != "transaction.created")
        statuses = {e["type"]: e["status"] for e in events}
        assert statuses["transaction.denied"] == "denied" and statuses["transaction.succeeded"] == "succeeded"

        # A rotated secret signs from then on; the old one no longer verifies.
        rotated = second.ok("POST", f"/api/admin/applications/{app_id}/webhook-secret", {}, bearer=ADMIN_TOKEN)
        new_secret = rotated["webhook_secret"]
        second.ok("POST", "/api/umfa/approvals", {"application_id": app_id, "user_id": "erin"}, status=201,
                  bearer=api_key)
        receiver.wait(lambda r: len(r.answered) >= 5, 15, "the fifth delivery")
        latest = receiver.answered[4]
        assert verify(latest, new_secret)["type"] == "transaction.created"
        assert not signed_with(latest, secret), "the old secret still verifies"
        for text in (second.stderr, second.stdout):
            assert secret not in text and new_secret not in text
    finally:
        receiver.close()


def test_device_lists_and_watches_its_approvals(server, umfa, tmp_path):
    app = new_application(server, "Shop")
    app_id, api_key = app["application_id"], app["api_key"]
    phone = tmp_path / "phone"
    enroll_by_link(server, umfa, app_id, api_key, "erin", phone)
    # Device proofs carry the server's public URL (htu), as the app link names it.
    public = server.base.replace("127.0.0.1", "localhost")
    device_args = ["--server", public, "--app", app_id, "--user", "erin", "--device-dir", phone]

    listed = umfa.run_env({}, "approvals", "list", *device_args)
    assert listed.code == 0 and listed.json() == {"user_id": "erin", "approvals": []}, listed
    asked = server.ok("POST", "/api/umfa/approvals", {"application_id": app_id, "user_id": "erin",
                                                      "message": "Pay 42.00 EUR"}, status=201, bearer=api_key)
    listed = umfa.run_env({}, "approvals", "list", *device_args)
    assert listed.code == 0, listed
    [entry] = listed.json()["approvals"]
    assert entry["message"] == "Pay 42.00 EUR" and entry["transaction_id"] == asked["transactionId"], entry
    assert entry["app_link"] == asked["appLinkUri"], entry
    approved = umfa.run_env({}, "approvals", "approve", "--app-link", entry["app_link"], "--device-dir", phone,
                            "--pin-stdin", input=PIN + "\n")
    assert approved.code == 0 and approved.json()["status"] == "succeeded", approved
    assert server.ok("POST", "/api/umfa/status", {"statusToken": asked["statusToken"]})["status"] == "succeeded"
    assert umfa.run_env({}, "approvals", "list", *device_args).json()["approvals"] == []

    # watch: a request made while the device listens arrives as one JSON line.
    watcher = subprocess.Popen([str(umfa.binary), "approvals", "watch", *map(str, device_args), "--count", "1",
                                "--max-seconds", "30"], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)
        later = server.ok("POST", "/api/umfa/approvals", {"application_id": app_id, "user_id": "erin",
                                                          "message": "Sign in on the TV?"}, status=201,
                          bearer=api_key)
        out, err = watcher.communicate(timeout=30)
    finally:
        if watcher.poll() is None:
            watcher.kill()
    assert watcher.returncode == 0, err
    [line] = out.strip().splitlines()
    event = json.loads(line)
    assert event["message"] == "Sign in on the TV?" and event["transaction_id"] == later["transactionId"], event
    assert event["app_link"] == later["appLinkUri"]

    # A device without a device key for the user, and a wrong public URL, are refused.
    stranger = umfa.run_env({}, "approvals", "list", "--server", public, "--app", app_id, "--user", "erin",
                            "--device-dir", tmp_path / "other")
    assert stranger.code != 0 and "device key" in stranger.stderr, stranger
    wrong_url = umfa.run_env({}, "approvals", "list", "--server", server.base, "--app", app_id, "--user", "erin",
                             "--device-dir", phone)
    assert wrong_url.code != 0 and "htu" in wrong_url.stderr, wrong_url


class TamperingProxy:
    """Forwards to the UMFA server, but changes the message of every dispatch/redeem answer: a
    network attacker who wants the user to approve something else than the backend asked."""

    def __init__(self, upstream: str):
        self.port = free_port()
        self.redeemed = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                answer = requests.post(upstream + self.path, data=body, timeout=10,
                                       headers={"Content-Type": "application/json"})
                content = answer.content
                if self.path == "/api/umfa/dispatch/redeem" and answer.status_code == 200:
                    data = answer.json()
                    data["message"] = "Pay 1.00 EUR to Shop"
                    content = json.dumps(data).encode()
                    proxy.redeemed += 1
                self.send_response(answer.status_code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def link(self, app_link: str) -> str:
        """The app link pointed at the proxy."""
        value = app_link.split("dispatchTokenResponse=", 1)[1]
        payload = json.loads(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
        payload["server"] = f"http://127.0.0.1:{self.port}"
        encoded = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")
        return f"http://127.0.0.1:{self.port}/open?dispatchTokenResponse={encoded}"


def test_the_device_refuses_a_tampered_message(server, umfa, tmp_path):
    app = new_application(server, "Bank")
    app_id, api_key = app["application_id"], app["api_key"]
    phone = tmp_path / "phone"
    enroll_by_link(server, umfa, app_id, api_key, "erin", phone)
    asked = server.ok("POST", "/api/umfa/approvals", {"application_id": app_id, "user_id": "erin",
                                                      "message": "Pay 9,900.00 EUR to Mallory"}, status=201,
                      bearer=api_key)
    proxy = TamperingProxy(server.base)
    try:
        refused = umfa.run_env({}, "approvals", "approve", "--app-link", proxy.link(asked["appLinkUri"]),
                               "--device-dir", phone, "--pin-stdin", input=PIN + "\n")
    finally:
        proxy.http.shutdown()
    assert proxy.redeemed == 1, "the device read the tampered answer"
    assert refused.code != 0 and "does not match its message" in refused.stderr, refused
    # Nothing was signed: the transaction is still pending and ends when its time is up.
    assert server.ok("POST", "/api/umfa/status", {"statusToken": asked["statusToken"]})["status"] == "pending"
