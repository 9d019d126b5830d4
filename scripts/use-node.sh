# Source this file (". scripts/use-node.sh") to put Node.js 24 LTS first on PATH
# when the machine's `node` is older than 22. svc requires Node >= 22.
#
# The `node` package from the npm registry ships the official binaries; it is
# installed into a cache directory outside the repository so every checkout
# (and CI) shares it. Nothing happens when a new enough Node is already there.

svc_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(svc_node_major)" -lt 22 ]; then
  SVC_NODE_PREFIX="${SVC_NODE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/svc-node24}"
  if [ ! -x "$SVC_NODE_PREFIX/node_modules/.bin/node" ]; then
    echo "svc: Node $(node --version 2>/dev/null || echo 'not found') is too old; installing Node 24 into $SVC_NODE_PREFIX" >&2
    mkdir -p "$SVC_NODE_PREFIX"
    npm install --silent --no-audit --no-fund --prefix "$SVC_NODE_PREFIX" node@24 >&2 || {
      echo "svc: could not install Node 24 from the npm registry" >&2
      return 1 2>/dev/null || exit 1
    }
  fi
  PATH="$SVC_NODE_PREFIX/node_modules/.bin:$PATH"
  export PATH
  hash -r 2>/dev/null || true
fi
unset -f svc_node_major
