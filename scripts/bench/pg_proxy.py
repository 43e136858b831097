"""A TCP proxy between UMFA and PostgreSQL that counts round trips on the wire and can delay
each direction, for scripts/bench/roundtrips.py (performance round four).

It reads the PostgreSQL protocol's framing (protocol 3.0): the client's first message has no
type byte (an SSLRequest or GSSENCRequest, answered here with 'N' so the client goes on in
plaintext, or the StartupMessage, forwarded), every later message in either direction is a type
byte and a 4-byte length that counts itself. A *round trip* is a batch of frontend messages that
ends in Sync ('S') or a simple Query ('Q'): the client then waits for ReadyForQuery. Batches that
end in Flush ('H') are counted apart. The SQL of each batch (Parse and Query carry it) is kept,
so a window's round trips can be listed statement by statement.

Delays: `--delay-ms D` (or POST /delay?ms=D at run time) holds every whole message D ms in each
direction before passing it on, in order, so a round trip takes 2 D longer (D = 0.5 for a 1 ms
round trip). The forwarding is done by a writer thread per direction with time.sleep, asked to
wake early by its running oversleep and spinning the rest (/counters reports the lateness);
asyncio was not usable for this: its event loop rounds epoll timeouts up to whole milliseconds,
so a 0.5 ms asyncio.sleep took 1.1 ms on this machine. Without a delay the reading thread
forwards each message itself.

Control (HTTP on --control-port, loopback):
  GET  /counters          {"round_trips", "flush_batches", "connections", "messages_in", ...,
                           "delay_ms", "delivery_lag_ms_p50"}; read it before and after an operation
  GET  /log?since=N       the round trips numbered above N: connection, time, statements
  POST /delay?ms=D        change the delay of each direction (applies to messages read after it)

Standalone: python3 pg_proxy.py --listen 127.0.0.1:25612 --upstream 127.0.0.1:25611 \
    --control-port 25613 [--delay-ms 0.5] [--verbose]
(--verbose prints every round trip's statements to stderr.)"""

from __future__ import annotations

import argparse
import collections
import json
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

SSL_REQUEST, GSSENC_REQUEST, CANCEL_REQUEST = 80877103, 80877104, 80877102
LOG_LIMIT = 100_000  # round trips kept for /log


def cstring(body: bytes, start: int) -> tuple[str, int]:
    end = body.index(b"\0", start)
    return body[start:end].decode("utf-8", "replace"), end + 1


class Counters:
    """What every connection adds to, under one lock."""

    def __init__(self, delay_ms: float, verbose: bool):
        self.lock = threading.Lock()
        self.delay = delay_ms / 1000.0
        self.verbose = verbose
        self.round_trips = 0
        self.flush_batches = 0
        self.connections = 0
        self.messages = {"in": 0, "out": 0}
        self.bytes = {"in": 0, "out": 0}
        self.log: collections.deque = collections.deque(maxlen=LOG_LIMIT)
        self.lags: collections.deque = collections.deque(maxlen=2000)  # delivery lag beyond the delay, s

    def batch(self, connection: int, kinds: str, statements: list[str], sync: bool) -> None:
        with self.lock:
            if not sync:
                self.flush_batches += 1
                return
            self.round_trips += 1
            entry = {"n": self.round_trips, "connection": connection, "time": time.time(), "messages": kinds,
                     "statements": statements}
            self.log.append(entry)
        if self.verbose:
            shown = " | ".join(s if s else "<empty>" for s in statements) or "<no Parse/Query>"
            print(f"[pg_proxy] rt {entry['n']} conn {connection} {kinds}: {shown}", file=sys.stderr, flush=True)

    def snapshot(self) -> dict:
        with self.lock:
            lags = sorted(self.lags)
            return {"round_trips": self.round_trips, "flush_batches": self.flush_batches,
                    "connections": self.connections, "messages_in": self.messages["in"],
                    "messages_out": self.messages["out"], "bytes_in": self.bytes["in"],
                    "bytes_out": self.bytes["out"], "delay_ms": self.delay * 1000.0,
                    "delivery_lag_ms_p50": lags[len(lags) // 2] * 1000.0 if lags else None,
                    "delivery_lag_ms_p99": lags[int(len(lags) * 0.99)] * 1000.0 if lags else None}

    def since(self, number: int) -> list[dict]:
        with self.lock:
            return [entry for entry in self.log if entry["n"] > number]


class Pipe:
    """One direction of one connection: whole messages go to `sink`, each `delay` seconds after
    they were read, in order. With a delay a writer thread sends them when due; without one (and
    nothing waiting) the reading thread sends them itself."""

    def __init__(self, sink: socket.socket, counters: Counters):
        self.sink, self.counters = sink, counters
        self.condition = threading.Condition()
        self.items: collections.deque = collections.deque()
        self.busy = False  # the writer holds items taken from the queue
        self.oversleep = 0.00008  # how late time.sleep wakes, s (a running estimate)
        threading.Thread(target=self._deliver, daemon=True).start()

    def send(self, data: bytes | None) -> None:
        """Queues `data` (None: shut the sink's writing side down after what is queued)."""
        delay = self.counters.delay
        with self.condition:
            if data is not None and delay == 0 and not self.items and not self.busy:
                self.sink.sendall(data)
                return
            self.items.append((time.perf_counter() + delay, delay, data))
            self.condition.notify()

    def close(self) -> None:
        self.send(None)

    def _deliver(self) -> None:
        while True:
            with self.condition:
                while not self.items:
                    self.condition.wait()
                due, delay, data = self.items.popleft()
                chunks, end = ([] if data is None else [data]), data is None
                # Messages read within 50 µs of this one go out with it.
                while not end and self.items and self.items[0][0] <= due + 0.00005:
                    following = self.items.popleft()[2]
                    if following is None:
                        end = True
                    else:
                        chunks.append(following)
                self.busy = True
            if delay > 0:
                # time.sleep wakes late by some 60-100 µs here, so it is asked to wake that much
                # early (a running estimate) and the rest is waited out spinning.
                wait = due - time.perf_counter() - self.oversleep
                if wait > 0:
                    asked = time.perf_counter() + wait
                    time.sleep(wait)
                    self.oversleep += 0.1 * (time.perf_counter() - asked - self.oversleep)
                while time.perf_counter() < due:
                    pass
                lag = time.perf_counter() - due
                with self.counters.lock:
                    self.counters.lags.append(lag)
            try:
                if chunks:
                    self.sink.sendall(b"".join(chunks))
            except OSError:
                end = True
            with self.condition:
                self.busy = False
            if end:
                break
        try:
            self.sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


class Connection:
    def __init__(self, client: socket.socket, upstream: tuple[str, int], counters: Counters, number: int):
        self.client, self.counters, self.number = client, counters, number
        self.server = socket.create_connection(upstream)
        for sock in (self.client, self.server):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.to_server = Pipe(self.server, counters)
        self.to_client = Pipe(self.client, counters)
        threading.Thread(target=self._frontend, daemon=True).start()
        threading.Thread(target=self._backend, daemon=True).start()

    @staticmethod
    def _read_exactly(sock: socket.socket, buffer: bytearray, size: int) -> bool:
        while len(buffer) < size:
            chunk = sock.recv(65536)
            if not chunk:
                return False
            buffer += chunk
        return True

    def _frontend(self) -> None:
        """Client → server: the start-up packet(s), then typed messages, batched up to Sync/Query."""
        buffer = bytearray()
        kinds, statements = [], []
        try:
            while True:  # start-up: length, then a code; SSL/GSS requests are refused here
                if not self._read_exactly(self.client, buffer, 8):
                    return
                length, code = struct.unpack("!ii", bytes(buffer[:8]))
                if not self._read_exactly(self.client, buffer, length):
                    return
                packet, buffer = bytes(buffer[:length]), buffer[length:]
                if code in (SSL_REQUEST, GSSENC_REQUEST):
                    self.client.sendall(b"N")
                    continue
                self.to_server.send(packet)
                if code == CANCEL_REQUEST:
                    return
                break
            while True:
                if not self._read_exactly(self.client, buffer, 5):
                    return
                kind = chr(buffer[0])
                length = struct.unpack("!i", bytes(buffer[1:5]))[0]
                if not self._read_exactly(self.client, buffer, 1 + length):
                    return
                message, buffer = bytes(buffer[:1 + length]), buffer[1 + length:]
                body = message[5:]
                with self.counters.lock:
                    self.counters.messages["in"] += 1
                    self.counters.bytes["in"] += len(message)
                kinds.append(kind)
                if kind == "P":  # Parse: statement name, query
                    _, at = cstring(body, 0)
                    statements.append(cstring(body, at)[0])
                elif kind == "Q":
                    statements.append(cstring(body, 0)[0])
                if kind in ("S", "Q", "H"):
                    self.counters.batch(self.number, "".join(kinds), statements, sync=kind != "H")
                    kinds, statements = [], []
                self.to_server.send(message)
                if kind == "X":
                    return
        except OSError:
            return
        finally:
            self.to_server.close()

    def _backend(self) -> None:
        """Server → client: typed messages, passed on whole."""
        buffer = bytearray()
        try:
            while True:
                if not self._read_exactly(self.server, buffer, 5):
                    return
                length = struct.unpack("!i", bytes(buffer[1:5]))[0]
                if not self._read_exactly(self.server, buffer, 1 + length):
                    return
                # Every whole message in the buffer goes on at once (one due time).
                end = 0
                while len(buffer) - end >= 5:
                    size = 1 + struct.unpack("!i", bytes(buffer[end + 1:end + 5]))[0]
                    if len(buffer) - end < size:
                        break
                    end += size
                    with self.counters.lock:
                        self.counters.messages["out"] += 1
                with self.counters.lock:
                    self.counters.bytes["out"] += end
                data, buffer = bytes(buffer[:end]), buffer[end:]
                self.to_client.send(data)
        except OSError:
            return
        finally:
            self.to_client.close()


class Proxy:
    """The listening proxy and its control server; `start()` runs both on daemon threads."""

    def __init__(self, listen: tuple[str, int], upstream: tuple[str, int], control_port: int,
                 delay_ms: float = 0.0, verbose: bool = False):
        self.counters = Counters(delay_ms, verbose)
        self.upstream = upstream
        self.listener = socket.create_server(listen, reuse_port=False)
        self.listen = self.listener.getsockname()
        counters = self.counters

        class Control(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _answer(self, value) -> None:
                body = json.dumps(value).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                if url.path == "/counters":
                    self._answer(counters.snapshot())
                elif url.path == "/log":
                    self._answer(counters.since(int(parse_qs(url.query).get("since", ["0"])[0])))
                else:
                    self.send_error(404)

            def do_POST(self) -> None:
                url = urlsplit(self.path)
                if url.path == "/delay":
                    counters.delay = float(parse_qs(url.query)["ms"][0]) / 1000.0
                    with counters.lock:
                        counters.lags.clear()
                    self._answer(counters.snapshot())
                else:
                    self.send_error(404)

        self.control = ThreadingHTTPServer(("127.0.0.1", control_port), Control)
        self.control_port = self.control.server_address[1]

    def start(self) -> "Proxy":
        threading.Thread(target=self._accept, daemon=True).start()
        threading.Thread(target=self.control.serve_forever, daemon=True).start()
        return self

    def _accept(self) -> None:
        while True:
            client, _ = self.listener.accept()
            with self.counters.lock:
                self.counters.connections += 1
                number = self.counters.connections
            try:
                Connection(client, self.upstream, self.counters, number)
            except OSError as error:
                print(f"[pg_proxy] upstream connection failed: {error}", file=sys.stderr, flush=True)
                client.close()


def address(text: str) -> tuple[str, int]:
    host, port = text.rsplit(":", 1)
    return host, int(port)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", type=address, default=("127.0.0.1", 0))
    parser.add_argument("--upstream", type=address, required=True)
    parser.add_argument("--control-port", type=int, default=0)
    parser.add_argument("--delay-ms", type=float, default=0.0, help="delay of each direction, ms")
    parser.add_argument("--verbose", action="store_true", help="print each round trip's statements")
    args = parser.parse_args()
    # A thread woken by its socket should get the interpreter soon, not after the 5 ms default.
    sys.setswitchinterval(0.0002)
    proxy = Proxy(args.listen, args.upstream, args.control_port, args.delay_ms, args.verbose).start()
    print(json.dumps({"listen": f"{proxy.listen[0]}:{proxy.listen[1]}", "control_port": proxy.control_port}),
          flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
