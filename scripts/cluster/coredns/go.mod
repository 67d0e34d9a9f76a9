module svc.local/coredns

go 1.24.0

require github.com/coredns/coredns v1.12.4
