-- wrk script: a GET with the Authorization header taken from the environment
-- (UMFA_BENCH_AUTHORIZATION, e.g. "Bearer <access token>") that server_bench.py sets.
wrk.method = "GET"
wrk.headers["Authorization"] = os.getenv("UMFA_BENCH_AUTHORIZATION")
