#!/usr/bin/env bash
# Builds the owrl images, one per Dockerfile target: owrl-sites, owrl-learner, owrl-judge,
# owrl-actor and owrl-cli, tagged TAG (default `local`).
#
#   deploy/build-images.sh [TAG]
#
# The base image (OWRL_NODE_IMAGE, default node:20-bookworm-slim) is used if present, pulled if
# possible, and otherwise built locally by deploy/stand-in-base.sh. DOCKER selects the client
# (default `docker`; it must support BuildKit, e.g. Debian's /usr/bin/docker).
set -euo pipefail
cd "$(dirname "$0")/.."
TAG="${1:-local}"
DOCKER="${DOCKER:-docker}"
NODE_IMAGE="${OWRL_NODE_IMAGE:-node:20-bookworm-slim}"
# The actor first: BuildKit then installs Chromium (the actor's apt layer, which needs only the
# base) while the shared build stage runs `npm ci` and compiles; the other targets reuse both.
TARGETS="${OWRL_TARGETS:-actor sites learner judge cli}"
# Each image is labelled with the source hash of the tree it was built from (scripts/source-hash.mjs);
# npm run test:deploy rebuilds an image whose label does not match the working tree.
SOURCE_HASH="${OWRL_SOURCE_HASH:-$(node scripts/source-hash.mjs 2>/dev/null || true)}"

DOCKER="$DOCKER" deploy/stand-in-base.sh "$NODE_IMAGE"
export DOCKER_BUILDKIT=1
for t in $TARGETS; do
  start=$(date +%s)
  "$DOCKER" build -f deploy/Dockerfile --build-arg "NODE_IMAGE=$NODE_IMAGE" --target "$t" \
    --label "owrl.source=${SOURCE_HASH:-unknown}" -t "owrl-$t:$TAG" .
  printf 'build-images: owrl-%s:%s in %ss, %s bytes\n' "$t" "$TAG" "$(( $(date +%s) - start ))" \
    "$("$DOCKER" image inspect -f '{{.Size}}' "owrl-$t:$TAG")" >&2
done
