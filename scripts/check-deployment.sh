#!/usr/bin/env bash
# The deployment guide, run (issue 37 §1; HandzServer documentation, "Deployment"): the files in
# deploy/ as an operator installs them, on loopback, with a throwaway certificate authority.
#
#   1. the systemd units pass `systemd-analyze verify` (no warning either);
#   2. serve starts from deploy/serve.yaml (port, store and keys from the environment, which wins
#      over the file), behind nginx running deploy/nginx/handz-analytics.conf with TLS;
#   3. a signed batch goes through TLS (curl trusting only the throwaway CA) and is stored; plain
#      HTTP to the TLS port and a certificate from another CA are refused;
#   4. an analyst signs in through TLS: the session cookie is Secure (the proxy is trusted), and
#      the same sign-in straight to serve over HTTP gets a cookie without Secure;
#   5. Prometheus (Debian's) scrapes serve's metrics listener with deploy/prometheus/, and every
#      query of the operator's Grafana dashboard (deploy/grafana/handz-operations.json) runs on it
#      after traffic with duplicates and rejects: each answers, and those about the traffic see it;
#   6. an online backup while serve runs, then the guide's upgrade-and-rollback step: a store a
#      newer binary migrated is refused with newer_schema, and `restore` of the backup brings
#      the server back with every acknowledged event.
#
#   scripts/check-deployment.sh                                  # builds handz-analytics first
#   HANDZ_BIN=path/to/handz-analytics scripts/check-deployment.sh
# Needs nginx, openssl, curl, systemd-analyze, prometheus (scripts/lib/prerequisites.sh installs them in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
if [ -z "${HANDZ_BIN:-}" ]; then swift build --product handz-analytics >/dev/null; HANDZ_BIN=$ROOT/.build/debug/handz-analytics; fi
BIN=$(readlink -f "$HANDZ_BIN")
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
RUN=$(mktemp -d /tmp/handz-deployment.XXXXXX)
failures=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
check() { local what="$1"; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

serve_pid=""; nginx_pid=""; prometheus_pid=""
cleanup() {
  [ -n "$prometheus_pid" ] && kill "$prometheus_pid" 2>/dev/null && wait "$prometheus_pid" 2>/dev/null || true
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null || true
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null || true
  rm -rf "$RUN"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
# Waits (at most 30 s, every 0.1 s) until a URL answers at all.
wait_for() { for _ in $(seq 300); do curl -s -o /dev/null --max-time 1 "$@" && return 0; sleep 0.1; done; return 1; }

echo "== 1. the systemd units"
mkdir -p "$RUN/units"
for unit in deploy/systemd/*; do
  sed "s#/usr/local/bin/handz-analytics#$BIN#" "$unit" > "$RUN/units/$(basename "$unit")"
done
verify=$(cd "$RUN/units" && systemd-analyze verify --man=no ./*.service ./*.timer 2>&1) && status=0 || status=$?
check "systemd-analyze verify: exit 0 ($status)" [ "$status" = 0 ]
check "systemd-analyze verify: no warnings${verify:+ ($verify)}" [ -z "$verify" ]

echo "== 2. a throwaway CA, serve from deploy/serve.yaml, nginx from deploy/nginx/handz-analytics.conf"
tls=$RUN/tls; mkdir -p "$tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Handz throwaway CA" -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$tls/privkey.pem" -out "$tls/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$tls/ext.cnf"
openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial -days 2 -extfile "$tls/ext.cnf" -out "$tls/fullchain.pem" 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Another CA" -keyout "$tls/other.key" -out "$tls/other.pem" 2>/dev/null

state=$RUN/state; mkdir -p "$state"
"$BIN" keys create --keys "$state/keys.json" > "$RUN/ingest-key.txt"
"$BIN" keys create --keys "$state/keys.json" --scope analyst > "$RUN/analyst-key.txt"
key_id() { awk '/^key id:/ { print $3 }' "$1"; }
key_secret() { awk '/^secret:/ { print $2 }' "$1"; }
INGEST_ID=$(key_id "$RUN/ingest-key.txt"); INGEST_SECRET=$(key_secret "$RUN/ingest-key.txt")
ANALYST_ID=$(key_id "$RUN/analyst-key.txt"); ANALYST_SECRET=$(key_secret "$RUN/analyst-key.txt")
serve_port=$(free_port); tls_port=$(free_port); metrics_port=$(free_port)

start_serve() {
  HANDZ_SERVE_PORT=$serve_port HANDZ_SERVE_DB=$state/events.sqlite HANDZ_SERVE_KEYS=$state/keys.json \
  HANDZ_SERVE_METRICS_LISTEN=127.0.0.1:$metrics_port HANDZ_CATALOG=$ROOT/catalog \
    "$BIN" serve --config deploy/serve.yaml > "$RUN/serve.log" 2>&1 &
  serve_pid=$!
}
stop_serve() { kill -TERM "$serve_pid"; wait "$serve_pid" && status=0 || status=$?; serve_pid=""; return "$status"; }
start_serve
check "serve listens on the port the environment gave (over the file's 8080)" wait_for "http://127.0.0.1:$serve_port/health"
check "serve said which settings came from where" grep -q "settings from deploy/serve.yaml (host, log-level, retention, synchronous, trusted-proxy) and from the environment (db, keys, metrics-listen, port)" "$RUN/serve.log"

# The guide's server block, on a free loopback port, with this run's certificate and serve's port.
sed -e "s#listen 443 ssl;#listen 127.0.0.1:$tls_port ssl;#" -e '/listen \[::\]/d' \
    -e "s#/etc/ssl/handz-analytics/#$tls/#g" -e "s#proxy_pass http://127.0.0.1:8080;#proxy_pass http://127.0.0.1:$serve_port;#" \
    deploy/nginx/handz-analytics.conf | awk '/^server \{/ { n++ } n < 2' > "$RUN/site.conf"
grep -q "listen 80" "$RUN/site.conf" && fail "the redirect server block was left in" || true
mkdir -p "$RUN/nginx/logs"
cat > "$RUN/nginx/nginx.conf" <<CONF
$( [ "$(id -u)" = 0 ] && echo "user root;" )
worker_processes 1;
pid $RUN/nginx/nginx.pid;
error_log $RUN/nginx/logs/error.log warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $RUN/nginx/body; proxy_temp_path $RUN/nginx/proxy;
    fastcgi_temp_path $RUN/nginx/fastcgi; uwsgi_temp_path $RUN/nginx/uwsgi; scgi_temp_path $RUN/nginx/scgi;
    include $RUN/site.conf;
}
CONF
check "nginx accepts the guide's configuration (nginx -t)" "$NGINX" -t -p "$RUN/nginx" -c "$RUN/nginx/nginx.conf" -q
"$NGINX" -p "$RUN/nginx" -c "$RUN/nginx/nginx.conf" -g 'daemon off;' &
nginx_pid=$!
BASE=https://127.0.0.1:$tls_port
check "nginx answers over TLS with the throwaway CA" wait_for --cacert "$tls/ca.pem" "$BASE/health"

echo "== 3. a signed batch through TLS"
"$BIN" simulate --installs 3 --days 1 --seed 7 --out "$RUN/events.ndjson" > /dev/null
python3 -c 'import json,sys; print(json.dumps({"events": [json.loads(l) for l in open(sys.argv[1]) if l.strip()][:20]}))' "$RUN/events.ndjson" > "$RUN/batch.json"
answer=$(CURL_CA_BUNDLE=$tls/ca.pem scripts/send-batch.sh "$INGEST_ID" "$INGEST_SECRET" "$RUN/batch.json" "$BASE")
check "the batch through TLS is accepted ($answer)" python3 -c 'import json,sys; a=json.loads(sys.argv[1]); sys.exit(0 if a.get("accepted", 0) > 0 else 1)' "$answer"
# The count `stats` reads beside the running server: the chunks and what waits in segments.
stored_events() { "$BIN" stats --db "$state/events.sqlite" | python3 -c "import json,sys; print(json.load(sys.stdin)['stored_events'])"; }
stored=$(stored_events)
check "the store holds the batch's events ($stored)" [ "$stored" -gt 0 ]
check "plain HTTP to the TLS port gets no batch through" bash -c "! curl -s --max-time 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:$tls_port/health | grep -q '^200$'"
check "a client trusting another CA refuses the certificate" bash -c "! curl -s --max-time 5 --cacert '$tls/other.pem' -o /dev/null '$BASE/health'"

echo "== 4. an analyst signs in through TLS"
signin() { curl -s --max-time 10 -o /dev/null -D - "$@" -H "Content-Type: application/x-www-form-urlencoded" \
             --data "key_id=$ANALYST_ID&secret=$ANALYST_SECRET"; }
through_tls=$(signin --cacert "$tls/ca.pem" -H "Origin: $BASE" "$BASE/dashboards/login" | tr -d '\r')
check "through TLS: 303 with a session cookie" bash -c "grep -qi '^set-cookie: handz_session=' <<< \"\$1\"" _ "$through_tls"
check "through TLS: the cookie is Secure" bash -c "grep -i '^set-cookie:' <<< \"\$1\" | grep -q '; Secure'" _ "$through_tls"
direct=$(signin -H "Origin: http://127.0.0.1:$serve_port" "http://127.0.0.1:$serve_port/dashboards/login" | tr -d '\r')
check "straight to serve over HTTP: a cookie without Secure" bash -c "grep -i '^set-cookie:' <<< \"\$1\" | grep -vq '; Secure'" _ "$direct"

echo "== 5. Prometheus scrapes serve; the operator's dashboard's queries run on it"
prom_port=$(free_port)
sed -e "s#scrape_interval: 15s#scrape_interval: 1s#" -e "s#127.0.0.1:9464#127.0.0.1:$metrics_port#" deploy/prometheus/handz-analytics.yml > "$RUN/prometheus.yml"
prometheus --config.file="$RUN/prometheus.yml" --storage.tsdb.path="$RUN/prometheus" --web.listen-address="127.0.0.1:$prom_port" \
  > "$RUN/prometheus.log" 2>&1 &
prometheus_pid=$!
PROM=http://127.0.0.1:$prom_port
# Samples before the traffic, so rate() sees it rise: at most 30 s for three scrapes.
scraped() { curl -s --max-time 2 "$PROM/api/v1/query" --data-urlencode "query=count_over_time(up{job=\"handz-analytics\"}[1m]) >= $1" \
            | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["data"]["result"] else 1)' 2>/dev/null; }
for _ in $(seq 300); do scraped 3 && break; sleep 0.1; done
check "Prometheus scrapes serve's metrics listener" scraped 3
# Traffic: the batch again (duplicates) and a batch with an event the catalog does not have.
CURL_CA_BUNDLE=$tls/ca.pem scripts/send-batch.sh "$INGEST_ID" "$INGEST_SECRET" "$RUN/batch.json" "$BASE" > /dev/null
python3 -c 'import json,sys; b=json.load(open(sys.argv[1])); b["events"][0]["event_name"]="not_in_the_catalog"; b["events"]=b["events"][:1]; print(json.dumps(b))' \
  "$RUN/batch.json" > "$RUN/rejected.json"
CURL_CA_BUNDLE=$tls/ca.pem scripts/send-batch.sh "$INGEST_ID" "$INGEST_SECRET" "$RUN/rejected.json" "$BASE" > /dev/null
sleep 3
check "every query of the operator's dashboard answers on Prometheus, and the traffic shows" python3 - "$PROM" deploy/grafana/handz-operations.json <<'PY'
import json, math, sys, urllib.parse, urllib.request
base, path = sys.argv[1], sys.argv[2]
# Panels about the traffic just sent must see it; the others must answer with a number.
traffic = {"Events ingested per second, by outcome", "Rejected events per second, by code", "Duplicate share",
           "Batch latency", "Requests per second, by status"}
failures = 0
for panel in json.load(open(path))["panels"]:
    for target in panel["targets"]:
        url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": target["expr"]})
        answer = json.load(urllib.request.urlopen(url, timeout=10))
        values = [float(r["value"][1]) for r in answer["data"]["result"]] if answer["status"] == "success" else []
        finite = [v for v in values if math.isfinite(v)]
        ok = answer["status"] == "success" and len(finite) > 0 and (panel["title"] not in traffic or max(finite) > 0)
        if panel["title"] == "Rejected events per second, by code":
            ok = ok and any(r["metric"].get("code") == "unknown_event" and float(r["value"][1]) > 0 for r in answer["data"]["result"])
        print(f"  {'ok ' if ok else 'BAD'} {panel['title']} [{target['legendFormat']}]: {', '.join(f'{v:.3g}' for v in values) or 'no series'}")
        failures += not ok
sys.exit(1 if failures else 0)
PY
kill "$prometheus_pid"; wait "$prometheus_pid" 2>/dev/null || true; prometheus_pid=""

echo "== 6. an online backup, then an upgrade that is rolled back"
backup=$RUN/backups/events.sqlite; mkdir -p "$RUN/backups"
check "backup while serve runs" "$BIN" backup --db "$state/events.sqlite" --out "$backup"
acknowledged=$(stored_events)
check "serve stops on SIGTERM with status 0" stop_serve
# What a newer binary's migration leaves behind, as far as this binary can tell.
sqlite3 "$state/events.sqlite" "INSERT INTO schema_migrations(version, applied_time_ms, description) VALUES (999, 0, 'a newer release')"
start_serve
for _ in $(seq 300); do kill -0 "$serve_pid" 2>/dev/null || break; sleep 0.1; done
wait "$serve_pid" && status=0 || status=$?; serve_pid=""
check "the older binary refuses the newer store (exit $status)" [ "$status" != 0 ]
check "and says newer_schema and what to do" grep -q "newer_schema.*restore the backup taken before the upgrade" "$RUN/serve.log"
check "restore --replace of the backup" "$BIN" restore --from "$backup" --db "$state/events.sqlite" --replace
start_serve
check "serve starts on the restored store" wait_for "http://127.0.0.1:$serve_port/health"
restored=$(stored_events)
check "every acknowledged event is back ($restored of $acknowledged)" [ "$restored" = "$acknowledged" ]
check "serve stops on SIGTERM with status 0" stop_serve

if [ "$failures" -gt 0 ]; then
  echo "serve log:"; tail -20 "$RUN/serve.log"; echo "nginx log:"; tail -20 "$RUN/nginx/logs/error.log" 2>/dev/null || true
  echo "deployment check: $failures failure(s)"; exit 1
fi
echo "deployment check: all passed"
