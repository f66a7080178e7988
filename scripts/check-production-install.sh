#!/usr/bin/env bash
# Installs the built service as production does (runtime dependencies only, no build tools) in
# an empty folder, starts it with `npm start` on the embedded store, and checks that it serves.
set -euo pipefail
cd "$(dirname "$0")/.."

# --built: dist/ is already this checkout's build (in CI, the one the tests made).
if [ "${1:-}" != "--built" ]; then npm run build --silent; fi
dir="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT

cp package.json package-lock.json "$dir/"
cp -r dist "$dir/dist"
(cd "$dir" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
if [ -e "$dir/node_modules/typescript" ] || [ -e "$dir/node_modules/vitest" ]; then
  echo "production install: dev dependencies were installed" >&2
  exit 1
fi

port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
(cd "$dir" && DATA_DIR="$dir/data" PORT="$port" HOST=127.0.0.1 LOG_LEVEL=info exec npm start --silent >"$dir/out.log" 2>&1) &
pid=$!
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then cat "$dir/out.log" >&2; echo "production install: the service exited" >&2; exit 1; fi
  sleep 0.5
done
version="$(curl -fsS "http://127.0.0.1:$port/api/v1/version")"
expected="$(node -p "require('./package.json').version")"
case "$version" in
  *"\"v$expected\""* | *"\"$expected\""*) ;;
  *) cat "$dir/out.log" >&2; echo "production install: unexpected version answer: $version" >&2; exit 1 ;;
esac
# The console comes with the build: its page at / and the script it loads.
page="$(curl -fsS -H 'Accept: text/html' "http://127.0.0.1:$port/")"
script="$(printf '%s' "$page" | grep -o '/assets/index-[A-Za-z0-9_-]*\.js' | head -1)"
if [ -z "$script" ] || ! curl -fsS -o /dev/null "http://127.0.0.1:$port$script"; then
  echo "production install: the console is not served at / (page: ${page:0:200})" >&2
  exit 1
fi
# SIGTERM to the service itself (its pid is in its log lines), as a supervisor would send it;
# npm then exits with the service's code.
service_pid="$(grep -o '"pid":[0-9]*' "$dir/out.log" | head -1 | cut -d: -f2)"
kill -TERM "$service_pid"
wait "$pid" && status=0 || status=$?
pid=""
if [ "$status" -ne 0 ]; then cat "$dir/out.log" >&2; echo "production install: exit code $status after SIGTERM" >&2; exit 1; fi
echo "production install: runtime dependencies only, npm start served the console and $version, stopped cleanly"
