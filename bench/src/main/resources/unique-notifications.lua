-- wrk script of the listener suite (bench/run listener): every request is a Pub/Sub push envelope of
-- an OBJECT_FINALIZE notification of a new object, unique across threads and requests, built from
-- the templates ListenerBench writes (the envelope LandingNotifier.envelopeOf produces, with
-- @NAME@, @DATA@ and @ID@ where the object's file name, the base64 resource and the message id go).
-- Arguments: <resource template file> <envelope template file>.

local b64chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

local function base64(data)
  return ((data:gsub(".", function(x)
    local r, b = "", x:byte()
    for i = 8, 1, -1 do r = r .. (b % 2 ^ i - b % 2 ^ (i - 1) > 0 and "1" or "0") end
    return r
  end) .. "0000"):gsub("%d%d%d?%d?%d?%d?", function(x)
    if #x < 6 then return "" end
    local c = 0
    for i = 1, 6 do c = c + (x:sub(i, i) == "1" and 2 ^ (6 - i) or 0) end
    return b64chars:sub(c + 1, c + 1)
  end) .. ({ "", "==", "=" })[#data % 3 + 1])
end

local function read(path)
  local file = assert(io.open(path, "r"))
  local text = file:read("*a")
  file:close()
  return text
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

function init(args)
  resource = read(args[1])
  envelope = read(args[2])
  counter = 0
end

function request()
  counter = counter + 1
  local id = tid .. "-" .. counter
  local name = "part-" .. id .. ".json"
  local data = base64((resource:gsub("@NAME@", name)))
  local body = envelope:gsub("@DATA@", data):gsub("@ID@", id):gsub("@NAME@", name)
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
end

function done(summary, latency, requests)
  io.write(string.format(
    '{"requests":%d,"durationMicros":%d,"non2xx":%d,"socketErrors":%d,"p50Micros":%d,"p99Micros":%d}\n',
    summary.requests, summary.duration, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99)))
end
