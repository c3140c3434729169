-- wrk script for bench/run: no per-request Lua work (a response() callback
-- would slow wrk down), only one machine-readable line at the end.
-- summary.errors.status counts responses with a status above 399; bench/run
-- checks with curl before each run that the path answers 200 with the full
-- body, so a run that later answers 3xx/4xx/5xx is caught by one or the other.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH duration_us=%d requests=%d bytes=%d err_connect=%d err_read=%d " ..
    "err_write=%d err_status=%d err_timeout=%d p50_us=%d p99_us=%d\n",
    summary.duration, summary.requests, summary.bytes, e.connect, e.read,
    e.write, e.status, e.timeout, latency:percentile(50),
    latency:percentile(99)))
end
