#!/usr/bin/env bash
# Make the Dockerfile's base image available where no image registry can be reached.
#
#   deploy/stand-in-base.sh [IMAGE]        # IMAGE defaults to node:20-bookworm-slim
#
# 1. IMAGE already in the local engine: nothing to do.
# 2. `docker pull IMAGE` works: use the official image.
# 3. Otherwise build a local stand-in of the same name from Debian packages: a minbase bookworm
#    root (debootstrap, from the host's Debian mirror) with this host's Node 20 (`node`, npm) in
#    /usr/local, user and group `node` (uid/gid 1000) as in the official image, and the host's
#    extra CA certificates (/usr/local/share/ca-certificates, e.g. a TLS-intercepting egress proxy)
#    so npm and apt inside builds can use the network the host uses. CA certificates are public;
#    no key, token or credential is copied.
#
# Needs root, debootstrap, and a Docker engine. Takes ~2-4 minutes (mostly debootstrap).
set -euo pipefail

IMAGE="${1:-node:20-bookworm-slim}"
DOCKER="${DOCKER:-docker}"
MIRROR="${OWRL_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SUITE="${OWRL_DEBIAN_SUITE:-bookworm}"
NODE_BIN="${OWRL_STAND_IN_NODE:-$(command -v node || true)}"

log() { printf 'stand-in-base: %s\n' "$*" >&2; }

if "$DOCKER" image inspect "$IMAGE" >/dev/null 2>&1; then
  log "$IMAGE is present"
  exit 0
fi
if timeout 60 "$DOCKER" pull "$IMAGE" >/dev/null 2>&1; then
  log "pulled $IMAGE"
  exit 0
fi
log "cannot pull $IMAGE: building a local stand-in from Debian packages"

[ "$(id -u)" = 0 ] || { log "must run as root (debootstrap)"; exit 1; }
command -v debootstrap >/dev/null || { log "debootstrap is not installed (apt-get install debootstrap)"; exit 1; }
[ -n "$NODE_BIN" ] && [ -x "$NODE_BIN" ] || { log "no node binary on this host (set OWRL_STAND_IN_NODE)"; exit 1; }
want_major="$(printf '%s' "$IMAGE" | sed -nE 's/^node:([0-9]+).*/\1/p')"
have="$("$NODE_BIN" -v)"
if [ -n "$want_major" ] && [ "${have#v}" = "${have#v"$want_major".}" ]; then
  log "host node is $have but $IMAGE wants Node $want_major (set OWRL_STAND_IN_NODE)"
  exit 1
fi
NPM_DIR="$(dirname "$(readlink -f "$(command -v npm)")")/.."
NPM_DIR="$(readlink -f "$NPM_DIR")"
[ -f "$NPM_DIR/bin/npm-cli.js" ] || { log "npm not found next to node (looked in $NPM_DIR)"; exit 1; }

ROOT="$(mktemp -d /var/tmp/owrl-stand-in.XXXXXX)"
trap 'rm -rf "$ROOT"' EXIT
debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$ROOT" "$MIRROR" >&2

install -m 0755 "$NODE_BIN" "$ROOT/usr/local/bin/node"
mkdir -p "$ROOT/usr/local/lib/node_modules"
cp -a "$NPM_DIR" "$ROOT/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOT/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOT/usr/local/bin/npx"

extra_ca=()
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
  # Node keeps its own CA list: point it (and npm) at the system bundle with the extra CAs.
  extra_ca=(--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')
fi
chroot "$ROOT" /usr/sbin/update-ca-certificates >/dev/null
chroot "$ROOT" /usr/sbin/groupadd --gid 1000 node
chroot "$ROOT" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$ROOT" /usr/bin/apt-get clean
rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/apt/*.bin "$ROOT"/tmp/* "$ROOT"/var/log/*.log

tar -C "$ROOT" -c . | "$DOCKER" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_VERSION='"${have#v}" \
  --change 'CMD ["node"]' \
  "${extra_ca[@]}" \
  --message "owrl stand-in for $IMAGE (debootstrap $SUITE minbase + node $have)" \
  - "$IMAGE" >/dev/null
log "built $IMAGE ($("$DOCKER" image inspect -f '{{.Size}}' "$IMAGE") bytes)"
