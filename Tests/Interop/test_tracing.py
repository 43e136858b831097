"""OpenTelemetry traces from outside (docs/operators/tracing.md): `umfa serve`, configured by the
standard OTEL_* variables only, exports its spans over OTLP/HTTP to a receiver written here, which
decodes them with the OpenTelemetry project's own protobuf definitions (`opentelemetry-proto`).
The caller's W3C `traceparent` is continued, the spans follow the semantic conventions, the error
body's and the log's `trace_id` is the trace's id, and a webhook the request caused carries the
trace on. Without the variables nothing is exported and trace ids stay UUIDs."""

import secrets
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

from support import ADMIN_TOKEN, UUID, Device, assert_error, free_port
from test_out_of_band_delivery import new_application


class OTLPReceiver:
    """An OTLP/HTTP trace receiver (OTLP §"OTLP/HTTP"): `POST /v1/traces` with a protobuf
    `ExportTraceServiceRequest`, answered with an empty `ExportTraceServiceResponse`."""

    def __init__(self):
        self.port = free_port()
        self.lock = threading.Lock()
        self.spans: list[dict] = []
        self.requests = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (the http.server name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                assert self.path == "/v1/traces", self.path
                assert self.headers["Content-Type"] == "application/x-protobuf", self.headers["Content-Type"]
                request = trace_service_pb2.ExportTraceServiceRequest()
                request.ParseFromString(body)
                decoded = []
                for resource_spans in request.resource_spans:
                    resource = {a.key: value(a.value) for a in resource_spans.resource.attributes}
                    for scope_spans in resource_spans.scope_spans:
                        for span in scope_spans.spans:
                            decoded.append({
                                "name": span.name, "kind": span.kind, "trace_id": span.trace_id.hex(),
                                "span_id": span.span_id.hex(), "parent_span_id": span.parent_span_id.hex(),
                                "attributes": {a.key: value(a.value) for a in span.attributes},
                                "status": span.status.code, "resource": resource})
                with receiver.lock:  # before the answer: a later batch never lands first
                    receiver.requests += 1
                    receiver.spans.extend(decoded)
                answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def trace(self, trace_id: str, until, within: float = 30) -> list[dict]:
        """The spans of `trace_id` once `until(spans)` holds."""
        deadline = time.monotonic() + within
        while True:
            with self.lock:
                spans = [s for s in self.spans if s["trace_id"] == trace_id]
            if until(spans):
                return spans
            if time.monotonic() > deadline:
                raise AssertionError(f"trace {trace_id} incomplete within {within} s: {spans}")
            time.sleep(0.1)

    def close(self):
        self.http.shutdown()


def value(any_value):
    """An OTLP `AnyValue` as Python."""
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


SERVER, CLIENT = 2, 3  # opentelemetry.proto.trace.v1.Span.SpanKind


@pytest.fixture
def receiver():
    """Named before `serve` by the tests, so it outlives their servers and takes their last spans."""
    receiver = OTLPReceiver()
    yield receiver
    receiver.close()


def traced(receiver: OTLPReceiver, **extra) -> dict[str, str]:
    return {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_SERVICE_NAME": "umfa-under-test", "OTEL_TRACES_SAMPLER": "always_on",
            "OTEL_BSP_SCHEDULE_DELAY": "200", **extra}


def new_traceparent() -> tuple[str, str, str]:
    trace_id, parent_id = secrets.token_hex(16), secrets.token_hex(8)
    return f"00-{trace_id}-{parent_id}-01", trace_id, parent_id


def test_a_sign_in_is_one_trace_continuing_the_callers_traceparent(receiver, serve, authenticator):
    server = serve(env=traced(receiver))
    device = Device(server, authenticator, server.app_id)
    device.register("ada")
    assertion = device.assertion("ada")
    traceparent, trace_id, parent_id = new_traceparent()
    verified = server.ok("POST", "/api/umfa/authentication/verify",
                         {"application_id": server.app_id, "user_id": "ada", "credential": assertion.data},
                         headers={"traceparent": traceparent})
    assert verified["trace_id"] == trace_id, "the answer names the trace it is part of"

    spans = receiver.trace(trace_id, lambda s: any(x["kind"] == SERVER for x in s)
                           and any(x["name"] == "JWS sign" for x in s))
    [request] = [s for s in spans if s["kind"] == SERVER]
    assert request["parent_span_id"] == parent_id, "the server span is the caller's span's child"
    assert request["name"] == "POST /api/umfa/authentication/verify"
    assert request["attributes"]["http.request.method"] == "POST"
    assert request["attributes"]["http.route"] == "/api/umfa/authentication/verify"
    assert request["attributes"]["http.response.status_code"] == 200
    assert request["resource"]["service.name"] == "umfa-under-test"
    for span in spans:
        assert "url.query" not in span["attributes"] and "url.path" not in span["attributes"]

    by_name = {s["name"]: s for s in spans}
    assert "WebAuthn assertion" in by_name, sorted(by_name)
    assert by_name["WebAuthn assertion"]["attributes"]["umfa.webauthn.user_verified"] is False
    assert by_name["JWS sign"]["attributes"]["umfa.jws.alg"] in {"RS256", "ES256", "EdDSA"}
    statements = [s for s in spans if s["attributes"].get("db.system.name") == "sqlite"]
    assert statements, sorted(by_name)
    assert all(s["kind"] == CLIENT for s in statements)
    # The sign count is recorded in a transaction with the audit event (its span lists them).
    credentials = [s for s in statements if s["attributes"].get("db.collection.name") == "credentials"
                   or "UPDATE credentials" in s["attributes"].get("umfa.db.statements", [])]
    assert credentials, [(s["name"], s["attributes"].get("umfa.db.statements")) for s in statements]
    # The statement's text, with placeholders: never a value of the request.
    assert all("ada" not in str(s["attributes"]) for s in statements)
    by_id = {s["span_id"]: s for s in spans}
    for span in spans:
        chain = span
        while chain is not request:
            assert chain["parent_span_id"] in by_id, f"{span['name']} does not hang under the request"
            chain = by_id[chain["parent_span_id"]]

    # A log line written during a request carries its trace id (a refused token is logged).
    traceparent, trace_id, _ = new_traceparent()
    server.post("/api/umfa/validate-token", {"application_id": server.app_id, "user_id": "ada",
                                             "token": verified["token"] + "x"},
                bearer=server.api_key, headers={"traceparent": traceparent})
    deadline = time.monotonic() + 10
    while f"trace_id={trace_id}" not in server.stderr and time.monotonic() < deadline:
        time.sleep(0.1)
    [line] = [line for line in server.stderr.splitlines() if "token refused" in line]
    assert f"trace_id={trace_id}" in line and f"trace.id={trace_id}" in line, line


def test_an_error_body_names_the_trace_and_the_route_template(receiver, serve):
    server = serve(env=traced(receiver))
    traceparent, trace_id, _ = new_traceparent()
    refused = server.get("/api/admin/applications/not-a-uuid", headers={"traceparent": traceparent})
    error = assert_error(refused, 401)  # no admin token: refused before the path is judged
    assert error["trace_id"] == trace_id
    [request] = receiver.trace(trace_id, lambda s: any(x["kind"] == SERVER for x in s))
    assert request["attributes"]["http.route"] == "/api/admin/applications/{id}"
    assert request["attributes"]["http.response.status_code"] == 401

    # Without a traceparent the server starts a trace of its own and names it.
    fresh = assert_error(server.get("/api/admin/applications/not-a-uuid"), 401)
    assert len(fresh["trace_id"]) == 32 and int(fresh["trace_id"], 16) != 0
    receiver.trace(fresh["trace_id"], lambda s: any(x["kind"] == SERVER for x in s))


def test_a_webhook_carries_the_trace_of_the_request_that_caused_it(receiver, serve):
    hooks = TraceparentReceiver()
    try:
        server = serve(env=traced(receiver))
        app = new_application(server, "Traced bank")
        changed = server.http.patch(f"{server.base}/api/admin/applications/{app['application_id']}",
                                    json={"webhook_url": hooks.url},
                                    headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10)
        assert changed.status_code == 200, changed.text
        traceparent, trace_id, _ = new_traceparent()
        server.ok("POST", "/api/umfa/users/enroll", {"application_id": app["application_id"], "user_id": "erin"},
                  bearer=app["api_key"], headers={"traceparent": traceparent})
        sent = hooks.first()
        assert sent and sent.split("-")[1] == trace_id, sent
        spans = receiver.trace(trace_id, lambda s: any(x["name"] == "webhook POST" for x in s))
        [delivery] = [s for s in spans if s["name"] == "webhook POST"]
        assert delivery["kind"] == CLIENT
        assert sent.split("-")[2] == delivery["span_id"], "the receiver's parent is the delivery span"
    finally:
        hooks.close()


class TraceparentReceiver:
    """A webhook receiver on loopback that answers 200 and keeps each delivery's `traceparent`."""

    def __init__(self):
        self.port = free_port()
        self.lock = threading.Lock()
        self.traceparents: list[str | None] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (the http.server name)
                self.rfile.read(int(self.headers["Content-Length"]))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
                with receiver.lock:
                    receiver.traceparents.append(self.headers["traceparent"])

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.port}/umfa-hook"

    def first(self, within: float = 30) -> str | None:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            with self.lock:
                if self.traceparents:
                    return self.traceparents[0]
            time.sleep(0.1)
        raise AssertionError(f"no webhook delivery within {within} s")

    def close(self):
        self.http.shutdown()


def test_without_the_variables_nothing_is_exported_and_trace_ids_stay_uuids(receiver, serve, tmp_path):
    traceparent, _, _ = new_traceparent()
    plain = serve(data_dir=tmp_path / "plain")
    error = assert_error(plain.get("/api/admin/applications/x", headers={"traceparent": traceparent}), 401)
    assert UUID.match(error["trace_id"]), error
    turned_off = serve(env={"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_TRACES_EXPORTER": "none"})
    error = assert_error(turned_off.get("/api/admin/applications/x", headers={"traceparent": traceparent}), 401)
    assert UUID.match(error["trace_id"]), error
    turned_off.stop()
    assert receiver.requests == 0


def test_a_malformed_traceparent_starts_a_new_trace_and_logs_no_header(receiver, serve):
    server = serve(env=traced(receiver))
    for traceparent, tracestate in [("garbage", "x"), ("00-" + "0" * 32 + "-00f067aa0ba902b7-01", "k=v"),
                                    (new_traceparent()[0] + ", " + new_traceparent()[0], "")]:
        error = assert_error(server.get("/api/admin/applications/x", headers={
            "traceparent": traceparent, "tracestate": tracestate, "Authorization": "Bearer umfa_admin_not-the-token",
            "Cookie": "umfa_console=session-secret"}), 401)
        receiver.trace(error["trace_id"], lambda s: any(x["kind"] == SERVER and not x["parent_span_id"] for x in s))
    # A valid traceparent with a tracestate that is not: the trace is continued, the state dropped.
    traceparent, trace_id, parent_id = new_traceparent()
    assert_error(server.get("/api/admin/applications/x", headers={"traceparent": traceparent, "tracestate": "B@D"}),
                 401)
    [request] = receiver.trace(trace_id, lambda s: any(x["kind"] == SERVER for x in s))
    assert request["parent_span_id"] == parent_id
    server.stop()
    assert "not-the-token" not in server.stderr and "session-secret" not in server.stderr, server.stderr
    assert "Failed to extract" not in server.stderr


def test_a_collector_that_never_answers_delays_the_stop_by_umfas_export_timeout_only(serve):
    silent = socket.socket()  # accepts connections (the backlog) and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    try:
        endpoint = f"http://127.0.0.1:{silent.getsockname()[1]}"
        server = serve(env={"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_BSP_SCHEDULE_DELAY": "60000"})
        assert_error(server.get("/api/admin/applications"), 401)  # a span waits in the batch
        # The last export is cut at UMFA's 5 s, not swift-otel's 30 s: the stop takes about 5 s.
        server.stop(timeout=8)  # swift-otel alone: 10 s (the request timeout) or more
    finally:
        silent.close()


@pytest.mark.parametrize("env, message", [
    ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
     'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json, not "grpc"'),
    ({"OTEL_TRACES_EXPORTER": "zipkin"}, 'OTEL_TRACES_EXPORTER must be otlp or none, not "zipkin"'),
])
def test_a_configuration_this_build_cannot_honour_stops_the_start(serve, env, message):
    server = serve(env=env, start=False)
    assert server.wait_exit() == 1
    assert message in server.stderr, server.logs()
