-- wrk script: a form POST to an OAuth endpoint with the Authorization header and body taken from
-- the environment (UMFA_BENCH_AUTHORIZATION, UMFA_BENCH_BODY) that server_bench.py sets.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = os.getenv("UMFA_BENCH_AUTHORIZATION")
wrk.body = os.getenv("UMFA_BENCH_BODY")
