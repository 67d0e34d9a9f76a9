// CoreDNS for the local cluster, with only the plugins its Corefile uses (scripts/cluster/manifests/
// coredns.yaml): the kubernetes plugin and the usual helpers. The full default build pulls in every
// cloud provider's SDK for plugins a local cluster never loads; this is CoreDNS's documented way of
// composing a server from its packages.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

// The plugins' order in a server block, as in CoreDNS's own plugin.cfg.
var directives = []string{"ready", "health", "errors", "log", "loadbalance", "cache", "kubernetes"}

func init() {
	dnsserver.Directives = directives
}

func main() {
	coremain.Run()
}
