-- wrk script: POST /api/umfa/validate-token with a real login token and API key, taken from
-- the environment (UMFA_BENCH_API_KEY, UMFA_BENCH_BODY) that scripts/bench.sh sets.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("UMFA_BENCH_API_KEY")
wrk.body = os.getenv("UMFA_BENCH_BODY")
