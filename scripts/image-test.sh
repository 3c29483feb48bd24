#!/usr/bin/env bash
# `npm run image:test`: builds the container image with docker or podman (whichever is installed,
# or CONTAINER_ENGINE) and smoke-tests it: no build leftovers, the demo runs as uid 1000 on the
# state volume (0700/0600), HEALTHCHECK's command passes, /metrics answers, `status` works, it
# stops promptly, and a root-owned bind mount fails with the chown to run. Without docker or
# podman it says so and exits 0 (IMAGE_TEST_REQUIRED=1 makes that a failure). IMAGE_BUILD_ARGS
# go to the build (e.g. "--isolation chroot" where podman cannot run build containers),
# IMAGE_RUN_ARGS to every run (e.g. "--ulimit nofile=1024:1024" where the runtime may not set
# the engine's default limits). Without registry access, scripts/image-base-standin.sh builds
# the base image from Debian first (docs/container.md).
set -Eeuo pipefail
cd "$(dirname "$0")/.."

# an engine counts when it answers: a docker CLI without a reachable daemon does not
engine=""
unusable=""
for candidate in ${CONTAINER_ENGINE:-docker podman}; do
  command -v "$candidate" >/dev/null 2>&1 || continue
  if "$candidate" info >/dev/null 2>&1; then engine=$candidate; break; fi
  unusable="$unusable $candidate"
done
if [ -z "$engine" ]; then
  if [ -n "$unusable" ]; then
    echo "image:test: installed but not answering ('info' failed):$unusable."
  fi
  echo "image:test: no working docker or podman here: the image was NOT built and NOT tested."
  echo "image:test: install one (e.g. apt-get install podman) and run npm run image:test again."
  [ "${IMAGE_TEST_REQUIRED:-0}" = 1 ] && exit 1
  exit 0
fi

tag=${IMAGE_TAG:-mailbridge:image-test}
name=mailbridge-image-test-$$
work=$(mktemp -d)
cleanup() {
  # -v: the containers' anonymous volumes too (the state volume: secrets.json, the database)
  "$engine" rm -f -v "$name" "$name-bind" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
say() { echo "image:test: $*"; }
fail() {
  echo "image:test: FAILED: $*" >&2
  "$engine" logs "$name" 2>&1 | tail -20 >&2 || true
  exit 1
}
in_container() { "$engine" exec "$name" "$@"; }
# any other command that fails (an engine answering 125/126, say) ends with a FAILED line too
trap 'status=$?; fail "\"$BASH_COMMAND\" (line $LINENO) exited with $status"' ERR

say "building $tag with $engine"
started=$(date +%s)
format=()
# podman's default OCI format drops HEALTHCHECK
[ "$engine" = podman ] && format=(--format docker)
# shellcheck disable=SC2086 # IMAGE_BUILD_ARGS is a list of flags
"$engine" build "${format[@]}" ${IMAGE_BUILD_ARGS:-} -t "$tag" .
say "built in $(($(date +%s) - started)) s, image size $(("$("$engine" image inspect "$tag" --format '{{.Size}}')" / 1000000)) MB"

# shellcheck disable=SC2086 # IMAGE_RUN_ARGS is a list of flags
run() { "$engine" run ${IMAGE_RUN_ARGS:-} "$@"; }

leftovers=$(run --rm --entrypoint sh "$tag" -c \
  'cd node_modules/better-sqlite3 && find build deps src -mindepth 1 2>/dev/null | sort')
[ "$leftovers" = "$(printf 'build/Release\nbuild/Release/better_sqlite3.node')" ] ||
  fail "better-sqlite3 build leftovers in the image: $leftovers"
say "better-sqlite3 ships only build/Release/better_sqlite3.node"

# the demo (sandbox vendor + bridge) on the image's state volume; the image's default config file does not exist here
run -d --name "$name" -e MAILBRIDGE_CONFIG= "$tag" demo --messages 20 >/dev/null
healthy=0
for _ in $(seq 1 60); do
  if in_container node bin/mailbridge.js healthcheck >/dev/null 2>&1; then healthy=1; break; fi
  sleep 1
done
[ "$healthy" = 1 ] || fail "the HEALTHCHECK command never passed"
if [ "$engine" = podman ]; then podman healthcheck run "$name" || fail "podman healthcheck run"; fi
say "HEALTHCHECK (GET /healthz) passes"

[ "$(in_container id -u)" = 1000 ] || fail "not running as uid 1000"
perms=$(in_container stat -c '%a %U' /var/lib/mailbridge /var/lib/mailbridge/secrets.json /var/lib/mailbridge/mailbridge.db | tr '\n' ' ')
[ "$perms" = "700 node 600 node 600 node " ] || fail "state permissions: $perms"
say "runs as uid 1000; state dir, secrets and database: $perms"

in_container node -e "fetch('http://127.0.0.1:9925/metrics').then((r) => r.text()).then((t) => process.exit(t.includes('mailbridge_sessions{protocol=\"imap\"}') ? 0 : 1))" ||
  fail "/metrics"
in_container node bin/mailbridge.js status --config /var/lib/mailbridge/config.json | grep -q '^alice@sandbox.test$' ||
  fail "mailbridge status"
say "/metrics and mailbridge status answer"

started=$(date +%s%N)
"$engine" stop -t 10 "$name" >/dev/null
stopped_ms=$((($(date +%s%N) - started) / 1000000))
[ "$("$engine" inspect "$name" --format '{{.State.ExitCode}}')" = 0 ] || fail "exit code after stop"
say "stopped in ${stopped_ms} ms with exit code 0"

mkdir -m 755 "$work/state"
if run --name "$name-bind" -v "$work/state:/var/lib/mailbridge" -e MAILBRIDGE_CONFIG= "$tag" demo --messages 1 >"$work/bind.log" 2>&1; then
  fail "started on a state directory uid 1000 cannot write"
fi
grep -q 'chown 1000:1000' "$work/bind.log" || fail "a root-owned bind mount does not say what to do: $(cat "$work/bind.log")"
say "a root-owned bind mount stops the start with: $(grep -o 'chown 1000:1000[^(]*' "$work/bind.log")"
say "passed with $engine"
