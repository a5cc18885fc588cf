-- wrk script of the listener suite (bench/run listener): every request is a Pub/Sub push envelope of
-- an OBJECT_FINALIZE notification of a new object, unique across threads and requests, built from
-- the templates ListenerBench writes (the envelope LandingNotifier.envelopeOf produces, with
-- @NAME@, @DATA@ and @ID@ where the object's file name, the base64 resource and the message id go).
-- Arguments: <resource template file> <envelope template file>.

local b64chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

local function base64(data)
  local out, n = {}, #data
  for i = 1, n, 3 do
    local a, b, c = data:byte(i, i + 2)
    local v = a * 65536 + (b or 0) * 256 + (c or 0)
    local c1 = math.floor(v / 262144) % 64
    local c2 = math.floor(v / 4096) % 64
    local c3 = math.floor(v / 64) % 64
    local c4 = v % 64
    out[#out + 1] = b64chars:sub(c1 + 1, c1 + 1) .. b64chars:sub(c2 + 1, c2 + 1)
      .. (b and b64chars:sub(c3 + 1, c3 + 1) or "=") .. (c and b64chars:sub(c4 + 1, c4 + 1) or "=")
  end
  return table.concat(out)
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
