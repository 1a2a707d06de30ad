# Shared by the bench/ scripts (sourced, not run): waiting for a server, and the figures of
# one wrk run.

# Waits (up to 10 s) until the server on 127.0.0.1:$1 answers /_health.
wait_healthy() {
  for _ in $(seq 1 100); do
    curl -s -o /dev/null "http://127.0.0.1:$1/_health" && return 0
    sleep 0.1
  done
  echo "bench: no server answered on port $1" >&2
  return 1
}

# Reads wrk's --latency output on stdin; prints "req/s p50 p99 errors+timeouts non-2xx".
wrk_figures() {
  awk '/Requests\/sec/{rps=$2} $1=="50%"{p50=$2} $1=="99%"{p99=$2}
       /Socket errors/{gsub(",",""); errs=$4+$6+$8+$10}
       /Non-2xx/{non2=$5}
       END{print rps, p50, p99, errs+0, non2+0}'
}
