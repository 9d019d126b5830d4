#!/usr/bin/env bash
# Runs the Nest conformance suite against the lowest supported NestJS (11.0.0).
#
# Nest's packages import each other by name, so 11.0.0 cannot live beside the latest 11.x
# under npm aliases. This installs @nestjs/*@11.0.0 (with their own express and fastify)
# into a temporary directory outside the repository and points the suite there with
# SVC_NEST_MODULES; nest.test.ts then loads the app's and the bridge's Nest from it.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/use-node.sh

NEST_VERSION="${NEST_VERSION:-11.0.0}"
dir="$(mktemp -d "${TMPDIR:-/tmp}/svc-nest-${NEST_VERSION}-XXXXXX")"
trap 'rm -rf "$dir"' EXIT

echo "installing @nestjs/*@${NEST_VERSION} into $dir"
echo '{"private":true}' >"$dir/package.json"
# --legacy-peer-deps: @nestjs/platform-fastify@11.0.0 still declares a peer range of
# @nestjs/common ^10 (fixed in 11.0.1); it works with 11.0.0, which this run shows.
npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error --legacy-peer-deps \
  "@nestjs/common@${NEST_VERSION}" "@nestjs/core@${NEST_VERSION}" \
  "@nestjs/platform-express@${NEST_VERSION}" "@nestjs/platform-fastify@${NEST_VERSION}" \
  reflect-metadata rxjs

SVC_NEST_MODULES="$dir/node_modules" npx vitest run test/conformance/nest.test.ts "$@"
