#!/usr/bin/env bash
# Installs the Debian packages the test suite drives (run by `npm test` before vitest).
# Each package is named with what it needs at run time but only recommends: swaks does STARTTLS
# and SMTPS only with libnet-ssleay-perl.
set -euo pipefail

packages=(
  swaks libnet-ssleay-perl # SMTP client, with its TLS support
  curl                     # SMTP client (STARTTLS, SMTPS)
  python3                  # imaplib
  python3-prometheus-client # the Prometheus text-format parser (/metrics)
  neomutt                  # IMAP client without MOVE
  isync                    # mbsync
  bsdutils                 # script(1): a pseudo-terminal for NeoMutt
  dovecot-imapd            # reference IMAP server of the conformance suite (own config, loopback)
  s-nail                   # IMAP client with a strict line reader (copy *)
  postgresql               # state store of several bridge nodes (a private cluster per test file)
  systemd                  # systemd-analyze verify: the unit of "mailbridge service install"
  openssl                  # s_client: a client that refuses the self-signed certificate (log lines)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "The tests need these Debian packages: ${missing[*]}" >&2
  echo "Install them with: sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# the tests run private clusters (test/support/postgres.ts): the package need not make and
# start the system one (Debian's documented switch, read by the package's postinst)
if [[ " ${missing[*]} " == *" postgresql "* && ! -e /etc/postgresql-common/createcluster.conf ]]; then
  mkdir -p /etc/postgresql-common
  echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.conf
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
