-- bench/quest.lua — the daily-quest request mix for wrk, against the reference stack.
--
-- Run with one connection per thread (-t N -c N): each thread is one virtual user at a time that
-- signs in as a new install, goes home, starts the daily session, reads, records round 1 (presign,
-- PUT the clip, submit, poll every 50 ms until terminal), records round 2 the same way, completes,
-- and starts over as a new user. Script arguments: CLIP_PATH SHA256_HEX.
local clip, sha, size
local step, token, article, session, attempt, upload, round = "signin", nil, nil, nil, nil, nil, 1
local seq = 0
quests = 0  -- globals: wrk reads them per thread with thread:get
tid = tid or 0
local threads = {}

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  local f = assert(io.open(args[1], "rb"))
  clip = f:read("*a")
  f:close()
  sha, size = args[2], #clip
end

local function json(method, path, body, extra)
  local h = { ["Content-Type"] = "application/json", ["Accept-Language"] = "en" }
  if token then h["Authorization"] = "Bearer " .. token end
  if extra then for k, v in pairs(extra) do h[k] = v end end
  return wrk.format(method, path, h, body)
end

function request()
  if step == "signin" then
    seq = seq + 1
    token = nil
    return json("POST", "/auth/anonymous", string.format(
      '{"install_id":"quest-%d-%d-%d","timezone":"UTC","locale":"en-US","app_version":"1.4.0","platform":"ios"}',
      tid, seq, math.random(1e9)))
  elseif step == "home" then
    return json("GET", "/home")
  elseif step == "session" then
    return json("POST", "/sessions", '{"article_id":"' .. article .. '","kind":"daily"}',
      { ["Idempotency-Key"] = "s-" .. tid .. "-" .. seq })
  elseif step == "read" then
    return json("POST", "/sessions/" .. session .. "/reading-complete")
  elseif step == "presign" then
    return json("POST", "/sessions/" .. session .. "/attempts", string.format(
      '{"round":%d,"sha256":"%s","size_bytes":%d,"content_type":"audio/flac","duration_ms":3000}', round, sha, size),
      { ["Idempotency-Key"] = "a-" .. tid .. "-" .. seq .. "-" .. round })
  elseif step == "put" then
    return wrk.format("PUT", upload, { ["Content-Type"] = "audio/flac" }, clip)
  elseif step == "submit" then
    return json("POST", "/attempts/" .. attempt .. "/submit")
  elseif step == "poll" then
    return json("GET", "/attempts/" .. attempt)
  elseif step == "complete" then
    return json("POST", "/sessions/" .. session .. "/complete", nil, { ["Idempotency-Key"] = session })
  end
end

function delay()
  if step == "poll" then return 50 end
  return 0
end

function response(status, headers, body)
  if status >= 400 and status ~= 409 then step = "signin"; return end
  if step == "signin" then
    token = body:match('"access_token":"([^"]+)"'); step = token and "home" or "signin"
  elseif step == "home" then
    article = body:match('"article_id":"([^"]+)"'); step = article and "session" or "signin"
  elseif step == "session" then
    session = body:match('"id":"(ses_[^"]+)"'); step = session and "read" or "signin"
  elseif step == "read" then
    round = 1; step = "presign"
  elseif step == "presign" then
    attempt = body:match('"attempt_id":"([^"]+)"')
    upload = body:match('"url":"https?://[^/]+(/[^"]+)"')
    step = (attempt and upload) and "put" or "signin"
  elseif step == "put" then
    step = "submit"
  elseif step == "submit" then
    step = "poll"
  elseif step == "poll" then
    local s = body:match('"status":"([a-z_]+)"')
    if s == "assessed" then
      if round == 1 then round = 2; step = "presign" else step = "complete" end
    elseif s == "failed" or s == "unreliable" then
      step = "signin"
    end
  elseif step == "complete" then
    if status == 200 then quests = quests + 1 end
    step = "signin"
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + (t:get("quests") or 0) end
  io.write(string.format("QUESTS %d\n", total))
end
