-- wrk script: grant_type=refresh_token with rotation, for scripts/bench/server_bench.py. Every
-- answer carries a new refresh token and spends the one sent, and a spent token sent again
-- revokes its whole family: so no token is ever sent twice. Each thread keeps a queue of live
-- tokens (one per family, each family from its own sign-in): request() takes the oldest out,
-- response() puts the new one from a 200 answer at the end (every family advances in turn). A
-- queue holds more tokens than the thread has connections, so no request lacks a token while
-- the answers are 200.
-- Environment (server_bench.py sets it): UMFA_BENCH_AUTHORIZATION (HTTP Basic of the
-- confidential client), UMFA_BENCH_REFRESH_TOKENS (the initial tokens, space-separated; thread N
-- of UMFA_BENCH_THREADS takes every one whose index modulo the thread count is N).
-- done() prints one line "refresh-token: non_200=A no_refresh_token=B no_token_left=C":
-- A answers not 200, B answers 200 without a refresh token (the chain ends there), C requests
-- sent with no live token left (made with the word "none", which spends nothing; a 400 in A too).
local threads = {}

function setup(thread)
    thread:set("id", #threads)
    table.insert(threads, thread)
end

function init(args)
    headers = {["Content-Type"] = "application/x-www-form-urlencoded",
               ["Authorization"] = os.getenv("UMFA_BENCH_AUTHORIZATION")}
    pool = {}
    non_200, no_refresh_token, no_token_left = 0, 0, 0
    local count, index = tonumber(os.getenv("UMFA_BENCH_THREADS")), 0
    for token in string.gmatch(os.getenv("UMFA_BENCH_REFRESH_TOKENS"), "%S+") do
        if index % count == id then table.insert(pool, token) end
        index = index + 1
    end
end

-- wrk also calls this once on the first thread before the run to check the request (and sends
-- nothing): the token it takes is dropped, never sent, so the pools hold a spare or two.
function request()
    local token = table.remove(pool, 1)
    if token == nil then
        no_token_left = no_token_left + 1
        token = "none"
    end
    return wrk.format("POST", nil, headers, "grant_type=refresh_token&refresh_token=" .. token)
end

function response(status, headers, body)
    if status ~= 200 then
        non_200 = non_200 + 1
        return
    end
    local token = string.match(body, '"refresh_token"%s*:%s*"([^"]+)"')
    if token then
        table.insert(pool, token)
    else
        no_refresh_token = no_refresh_token + 1
    end
end

function done(summary, latency, requests)
    local a, b, c = 0, 0, 0
    for _, thread in ipairs(threads) do
        a = a + thread:get("non_200")
        b = b + thread:get("no_refresh_token")
        c = c + thread:get("no_token_left")
    end
    io.write(string.format("refresh-token: non_200=%d no_refresh_token=%d no_token_left=%d\n", a, b, c))
end
