# Source me. Where the local cluster's binaries, caches and state live, and the versions it pins.
# Binaries and Go caches are kept under ${SVC_CACHE:-~/.cache/svc} (shared with scripts/helm and
# scripts/livekit), so a second `npm run cluster:up` on the same machine builds nothing.
export SVC_CACHE="${SVC_CACHE:-$HOME/.cache/svc}"
# Kubernetes 1.34 is the last minor that runs on cgroup v1 without opting out and that still
# supports Debian 12's containerd 1.6.
export SVC_K8S_VERSION="${SVC_K8S_VERSION:-v1.34.4}"
export SVC_COREDNS_VERSION="${SVC_COREDNS_VERSION:-v1.12.4}"
export SVC_K8S_BIN="$SVC_CACHE/kubernetes-$SVC_K8S_VERSION/bin"
export SVC_COREDNS_BIN="$SVC_CACHE/coredns-$SVC_COREDNS_VERSION/coredns"
# The cluster's state (etcd data, containerd images, PKI, logs, pid files); `cluster:down --purge` removes it.
export SVC_CLUSTER_DIR="${SVC_CLUSTER_DIR:-/var/lib/svc-cluster}"
export SVC_CLUSTER_RUN=/run/svc-cluster
export CONTAINERD_ADDRESS="$SVC_CLUSTER_RUN/containerd.sock"
export KUBECONFIG="$SVC_CLUSTER_DIR/pki/admin.kubeconfig"
# Go: the same caches as scripts/helm and scripts/livekit; static binaries.
export GOPATH="$SVC_CACHE/go" GOCACHE="$SVC_CACHE/go/cache" GOMODCACHE="$SVC_CACHE/go/pkg/mod"
export GOFLAGS="-buildvcs=false -modcacherw" CGO_ENABLED=0 GOWORK=off
# Builds yield the CPU to everything else on the machine.
export NICE="${NICE:-nice -n 10}"
export PATH="$SVC_K8S_BIN:$PATH"
# Network layout of the one-node cluster: pods, Services, and the cluster DNS Service's address.
export SVC_POD_CIDR=10.244.0.0/24 SVC_SERVICE_CIDR=10.96.0.0/24 SVC_DNS_IP=10.96.0.10
