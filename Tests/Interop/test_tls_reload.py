"""`umfa serve` reloads its TLS certificate and key on SIGHUP and when the files change, without
failing a request or dropping a connection: new handshakes get the new certificate (its serial
read back with `openssl s_client`), connections already open keep theirs. Files that do not load
leave the old certificate in use and are logged without any key material."""

from __future__ import annotations

import http.client
import signal
import ssl
import subprocess
import threading
import time

import requests

from tls_support import (  # noqa: F401 (pki, tls_serve: fixtures)
    issue_server_certificate, live_files, pki, replace_atomically, served_serial, tls_serve, wait_for)


def der_serial(der: bytes) -> int:
    out = subprocess.run(["openssl", "x509", "-inform", "DER", "-noout", "-serial"], input=der, capture_output=True,
                         check=True).stdout.decode()
    return int(out.strip().split("=", 1)[1], 16)


class Load:
    """Threads sending GET /health until stopped: some on one keep-alive session, some with a
    fresh connection (a fresh handshake) for every request. Every failure is kept."""

    def __init__(self, url: str, ca: str, threads: int = 3):
        self.url, self.ca = url, ca
        self.stop_flag = threading.Event()
        self.failures: list[str] = []
        self.count = 0
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(i % 2 == 0,), daemon=True) for i in range(threads)]

    def run(self, keep_alive: bool) -> None:
        session = requests.Session()
        while not self.stop_flag.is_set():
            try:
                if keep_alive:
                    response = session.get(self.url, verify=self.ca, timeout=10)
                else:
                    response = requests.get(self.url, verify=self.ca, timeout=10, headers={"Connection": "close"})
                outcome = None if response.status_code == 200 else f"HTTP {response.status_code}"
            except requests.RequestException as error:
                outcome = repr(error)
            with self.lock:
                self.count += 1
                if outcome:
                    self.failures.append(outcome)
        session.close()

    def __enter__(self) -> "Load":
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_) -> None:
        self.stop_flag.set()
        for thread in self.threads:
            thread.join(20)


def test_sighup_reloads_under_load_without_a_failed_request_or_a_dropped_connection(tls_serve, pki, tmp_path):
    cert, key = live_files(tmp_path, pki)
    # Polling off: only the signal reloads, so the test sees that the signal did it.
    server = tls_serve(cert=cert, key=key, env={"UMFA_TLS_RELOAD_SECONDS": "0"})
    assert served_serial(server.port) == 0x1001

    # A keep-alive connection opened before the reload.
    context = ssl.create_default_context(cafile=str(pki.ca))
    early = http.client.HTTPSConnection("127.0.0.1", server.port, context=context, timeout=10)
    early.request("GET", "/health")
    assert early.getresponse().read() and early.sock is not None
    early_socket = early.sock

    new_cert, new_key = issue_server_certificate(pki.dir, pki.ca, pki.ca_key, serial=0x1002)
    with Load(server.base + "/health", str(pki.ca)) as load:
        time.sleep(0.5)
        replace_atomically(new_key, key)
        replace_atomically(new_cert, cert)
        time.sleep(1)
        assert served_serial(server.port) == 0x1001  # changed files alone do nothing with polling off
        server.process.send_signal(signal.SIGHUP)
        wait_for(lambda: served_serial(server.port) == 0x1002, 10, "the new certificate served after SIGHUP")
        time.sleep(0.5)
    assert load.failures == [], load.failures[:5]
    assert load.count > 50, load.count
    assert server.running

    # The early connection is the same socket, still answering, still with its first certificate.
    early.request("GET", "/health")
    assert early.getresponse().status == 200 and early.sock is early_socket
    assert der_serial(early.sock.getpeercert(binary_form=True)) == 0x1001
    logs = server.stdout + server.stderr
    assert "TLS certificate reloaded" in logs and "SIGHUP" in logs, server.logs()
    early.close()


def test_changed_files_are_reloaded_and_bad_files_keep_the_old_certificate(tls_serve, pki, tmp_path):
    cert, key = live_files(tmp_path, pki)
    server = tls_serve(cert=cert, key=key, env={"UMFA_TLS_RELOAD_SECONDS": "0.2"})
    assert served_serial(server.port) == 0x1001

    def refusals() -> int:
        return (server.stdout + server.stderr).count("TLS certificate not reloaded")

    # A certificate file that holds no certificate: the old one stays.
    cert.write_text("not a certificate\n")
    wait_for(lambda: refusals() >= 1, 10, "the unreadable certificate logged")
    assert served_serial(server.port) == 0x1001
    assert requests.get(server.base + "/health", verify=str(pki.ca), timeout=5).status_code == 200

    # A new certificate whose key has not arrived yet: the pair does not match, the old one stays.
    new_cert, new_key = issue_server_certificate(pki.dir, pki.ca, pki.ca_key, serial=0x1003)
    replace_atomically(new_cert, cert)
    wait_for(lambda: refusals() >= 2, 10, "the mismatched key logged")
    assert served_serial(server.port) == 0x1001
    assert "not the private key" in server.stdout + server.stderr, server.logs()

    # The key arrives: the pair loads and new handshakes get it.
    replace_atomically(new_key, key)
    wait_for(lambda: served_serial(server.port) == 0x1003, 10, "the new certificate served")
    assert requests.get(server.base + "/health", verify=str(pki.ca), timeout=5).status_code == 200

    # No key material in the log, old or new.
    logs = server.stdout + server.stderr
    for pem in (pki.server_key, new_key):
        body = "".join(pem.read_text().splitlines()[1:-1])
        assert body[:32] not in logs and body[-32:] not in logs
