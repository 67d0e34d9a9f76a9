# Source me. What scripts/build-images and scripts/images/build-egress share: how a layer tarball is
# written, and which Debian mirror this machine's apt uses.
#
# Layers are plain tarballs with sorted names, fixed times and no atime/ctime, so equal inputs give
# equal layers (and equal image IDs).
layer_tar() { # DIR OUT.tar [TAR OPTIONS...]: every entry of DIR, at the layer's root
  local dir=$1 out=$2
  shift 2
  (cd "$dir" && tar --sort=name --mtime=@0 --numeric-owner --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime "$@" -cf "$out.partial" -- $(ls -A))
  mv "$out.partial" "$out"
}
# Files a build made (as whoever ran it): owned by root, as COPY makes them.
pack_layer() { layer_tar "$1" "$2" --owner=0 --group=0; }
# A chroot's installed packages: owners as dpkg set them (pulse's, messagebus's, ...).
pack_layer_keep_owners() { layer_tar "$1" "$2"; }

# The Debian mirror this machine's apt is configured with (one-line or deb822 sources), else Debian's CDN.
debian_mirror() {
  { grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2}'
    grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}'; } |
    grep -v -- '-security' | grep -m1 debian || echo http://deb.debian.org/debian
}
# Its security archive, else Debian's.
debian_security_mirror() {
  { grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2}'
    grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}'; } |
    grep -m1 -- 'debian-security' || echo http://deb.debian.org/debian-security
}
