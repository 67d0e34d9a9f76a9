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

# Unpacks a layer into DIR as a container runtime does: `.wh..wh..opq` empties its folder below,
# `.wh.NAME` deletes NAME.
unpack_layer() { # LAYER.tar DIR
  local layer=$1 dir=$2 whiteouts entry name
  whiteouts=$(tar -tf "$layer" | grep -E '(^|/)\.wh\.' || true)
  for entry in $(grep -E '(^|/)\.wh\.\.wh\.\.opq$' <<<"$whiteouts" || true); do
    [ -d "$dir/$(dirname "$entry")" ] && find "$dir/$(dirname "$entry")" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
  done
  tar -xf "$layer" -C "$dir"
  for entry in $whiteouts; do
    rm -f "$dir/$entry"
    name=$(basename "$entry")
    [ "$name" = .wh..wh..opq ] || rm -rf "$dir/$(dirname "$entry")/${name#.wh.}"
  done
}

# A layer made by commands run in a chroot (root on Linux): the layers below it unpacked in order,
# an overlay mount on them whose upper folder becomes the new layer (deletions become whiteouts).
# chroot_begin sets $chroot_root and the command prefix chroot_exec (a clean environment; add
# variables with NAME=VALUE after it), and cleans up on EXIT; chroot_bind mounts a host path into
# it (the mount point it makes is not part of the layer); chroot_pack writes the layer.
chroot_begin() { # WORK_PARENT LAYER.tar...
  chroot_work=$(mktemp -d "$1/chroot-XXXX")
  shift
  chroot_root=$chroot_work/merged
  chroot_exec=(chroot "$chroot_root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root)
  chroot_mount_points=()
  mkdir -p "$chroot_work"/{lower,upper,overlay-work,merged}
  local layer
  for layer in "$@"; do unpack_layer "$layer" "$chroot_work/lower"; done
  trap chroot_cleanup EXIT
  mount -t overlay overlay -o "lowerdir=$chroot_work/lower,upperdir=$chroot_work/upper,workdir=$chroot_work/overlay-work" "$chroot_root"
  mount -t proc proc "$chroot_root/proc"
  # Name resolution as this machine has it now (not in the layer).
  chroot_bind /etc/resolv.conf /etc/resolv.conf ro
  # No service starts inside the chroot (postinst scripts would try, as in any image build).
  printf '#!/bin/sh\nexit 101\n' >"$chroot_root/usr/sbin/policy-rc.d" && chmod 755 "$chroot_root/usr/sbin/policy-rc.d"
}
chroot_bind() { # HOST_PATH PATH_IN_CHROOT [ro]
  if [ ! -e "$chroot_root$2" ]; then
    if [ -d "$1" ]; then mkdir -p "$chroot_root$2"; else touch "$chroot_root$2"; fi
    chroot_mount_points+=("$2")
  fi
  mount --bind ${3:+-o ro} "$1" "$chroot_root$2"
}
# Every mount under the chroot, deepest first.
chroot_unmount_all() {
  local mount
  for mount in $(awk -v root="$chroot_root" '$2 == root || index($2, root "/") == 1 { print $2 }' /proc/mounts | sort -r); do umount "$mount"; done
}
chroot_cleanup() {
  [ -n "${chroot_work:-}" ] && [ -d "$chroot_work" ] || return 0
  chroot_unmount_all
  # Never delete through a mount that is still there (a bound cache, /proc).
  if grep -q " $chroot_work/" /proc/mounts; then echo "build-images: left $chroot_work: still mounted" >&2; else rm -rf "$chroot_work"; fi
}
chroot_pack() { # OUT.tar [ONLY]: the upper folder as a layer (owners as the commands set them), then
  # cleans up. With ONLY (a path), the layer holds that folder alone (what running the build left elsewhere is dropped).
  chroot_unmount_all
  local point upper=${chroot_work:?}/upper
  for point in usr/sbin/policy-rc.d "${chroot_mount_points[@]}"; do rm -rf "$upper/${point#/}"; done
  if [ -n "${2:-}" ]; then
    mkdir -p "$chroot_work/only/$(dirname "${2#/}")"
    mv "$upper/${2#/}" "$chroot_work/only/${2#/}"
    rm -rf "$upper" && mv "$chroot_work/only" "$upper"
  fi
  python3 "$(dirname "${BASH_SOURCE[0]}")/overlay-whiteouts.py" "$chroot_work/upper" "$chroot_work/lower"
  pack_layer_keep_owners "$chroot_work/upper" "$1"
  chroot_cleanup
  trap - EXIT
}

# apt-get install PACKAGES in the chroot, as a debian:<suite>-slim image's apt would (this machine's
# mirror; the .debs kept in the shared download cache CACHE/apt-archives), leaving out what slim
# images leave out, then removing the build's leftovers (the package lists too, as the Dockerfiles do).
chroot_apt_install() { # SUITE CACHE LOG PACKAGES...
  local suite=$1 cache=$2 log=$3 option
  shift 3
  mkdir -p "$cache/apt-archives/partial"
  chroot_bind "$cache/apt-archives" /var/cache/apt/archives
  # The archives, outside the image's /etc (this is the build's apt, not the image's).
  mkdir -p "$chroot_root/tmp/build-apt/parts"
  printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
    "$(debian_mirror)" "$suite" "$(debian_mirror)" "$suite" "$(debian_security_mirror)" "$suite" >"$chroot_root/tmp/build-apt/sources.list"
  # What a slim image's dpkg leaves out (Debian's images: /etc/dpkg/dpkg.cfg.d/docker): documentation
  # (licences kept), manuals, translations (60 MB for egress's packages).
  local slim=()
  for option in '--path-exclude=/usr/share/doc/*' '--path-include=/usr/share/doc/*/copyright' '--path-exclude=/usr/share/man/*' \
    '--path-exclude=/usr/share/groff/*' '--path-exclude=/usr/share/info/*' '--path-exclude=/usr/share/lintian/*' '--path-exclude=/usr/share/linda/*' \
    '--path-exclude=/usr/share/locale/*' '--path-include=/usr/share/locale/locale.alias'; do
    slim+=(-o "Dpkg::Options::=$option")
  done
  # No fsync per file (as Debian's images configure dpkg): a failed build is thrown away anyway, and
  # dpkg's syncs on the overlay were most of the install's time on a busy machine.
  slim+=(-o "Dpkg::Options::=--force-unsafe-io")
  local apt=("${chroot_exec[@]}" DEBIAN_FRONTEND=noninteractive apt-get -qq -o Dir::Etc::SourceList=/tmp/build-apt/sources.list -o Dir::Etc::SourceParts=/tmp/build-apt/parts)
  {
    "${apt[@]}" update &&
      ${NICE:-nice -n 10} "${apt[@]}" install -y --no-install-recommends "${slim[@]}" "$@"
  } >"$log" 2>&1 || { tail -30 "$log" >&2; return 1; }
  echo "build-images: installed: $(grep -c '^Setting up' "$log" || true) packages set up" >&2
  umount "$chroot_root/var/cache/apt/archives"
  # Build leftovers (the Dockerfiles remove the package lists too).
  rm -rf "$chroot_root"/tmp/build-apt "$chroot_root"/var/lib/apt/lists/* "$chroot_root"/var/cache/apt/*.bin \
    "$chroot_root"/var/log/apt "$chroot_root"/var/log/dpkg.log "$chroot_root"/var/log/alternatives.log "$chroot_root"/var/cache/debconf/*-old \
    "$chroot_root"/var/cache/ldconfig/aux-cache
}
