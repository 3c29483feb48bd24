#!/usr/bin/env bash
# Builds a local stand-in for node:20-bookworm-slim on a machine that reaches Debian's mirror
# but not Docker Hub: Debian bookworm (minbase) with this machine's Node 20, npm and Node
# headers under /usr/local, as the official image has them, and user node (uid/gid 1000).
# Tagged docker.io/library/node:20-bookworm-slim, so the Dockerfile builds unchanged. It trusts
# what this machine trusts (its CA bundle, NODE_EXTRA_CA_CERTS), so npm ci in the build reaches
# the registry through the same TLS-inspecting egress as the host. Needs root, debootstrap and
# podman or docker. Not used where the real image can be pulled.
set -euo pipefail
engine=${CONTAINER_ENGINE:-podman}
tag=docker.io/library/node:20-bookworm-slim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fs=$work/fs

debootstrap --variant=minbase bookworm "$fs" http://deb.debian.org/debian >"$work/debootstrap.log" ||
  { tail -20 "$work/debootstrap.log" >&2; exit 1; }

node_version=$(node --version)
case "$node_version" in v20.*) ;; *) echo "this machine's Node is $node_version, not 20" >&2; exit 1 ;; esac
npm_root=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
headers=$(npm config get nodedir 2>/dev/null)/include/node
[ -f "$headers/node_version.h" ] || { echo "no Node headers at $headers" >&2; exit 1; }

mkdir -p "$fs/usr/local/bin" "$fs/usr/local/lib/node_modules" "$fs/usr/local/include"
cp "$(readlink -f "$(command -v node)")" "$fs/usr/local/bin/node"
cp -a "$npm_root" "$fs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$fs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$fs/usr/local/bin/npx"
cp -a "$headers" "$fs/usr/local/include/node"
chroot "$fs" groupadd --gid 1000 node
chroot "$fs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
rm -rf "$fs/var/lib/apt/lists/"* "$fs/var/cache/apt/archives/"*.deb
mkdir -p "$fs/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$fs/etc/ssl/certs/ca-certificates.crt"

tar -C "$fs" -c . | "$engine" import --change 'CMD ["node"]' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' - "$tag" >/dev/null
echo "image-base-standin: $tag built from Debian bookworm with Node $node_version"
