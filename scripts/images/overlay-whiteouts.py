"""Turns an overlayfs upper folder into an image layer's form, in place.

overlayfs marks a deleted lower file with a 0/0 character device of the same name, and a folder
whose lower contents are hidden with the xattr trusted.overlay.opaque=y. An image layer says the
same with files: `.wh.<name>` for a deletion and `.wh..wh..opq` inside an opaque folder (the OCI
image layer specification, which docker-archive follows). overlayfs marks most folders it creates
opaque, including new ones with nothing below to hide: a marker is written only where the lower
folder exists. overlayfs's own bookkeeping xattrs are not kept (tar leaves xattrs out unless asked).

Usage: python3 scripts/images/overlay-whiteouts.py UPPER_DIR LOWER_DIR
"""
import os
import stat
import sys


def convert(upper: str, lower: str) -> tuple[int, int]:
    deletions = opaque = 0
    for folder, dirs, files in os.walk(upper):
        for name in dirs:
            path = os.path.join(folder, name)
            try:
                marked = os.getxattr(path, "trusted.overlay.opaque", follow_symlinks=False) == b"y"
            except OSError:
                marked = False
            if marked and os.path.isdir(os.path.join(lower, os.path.relpath(path, upper))):
                open(os.path.join(path, ".wh..wh..opq"), "w").close()
                opaque += 1
        for name in files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if stat.S_ISCHR(info.st_mode) and info.st_rdev == 0:
                os.unlink(path)
                open(os.path.join(folder, f".wh.{name}"), "w").close()
                deletions += 1
    return deletions, opaque


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: overlay-whiteouts.py UPPER_DIR LOWER_DIR")
    deleted, hidden = convert(sys.argv[1], sys.argv[2])
    print(f"build-images: layer whiteouts: {deleted} deleted files, {hidden} opaque folders", file=sys.stderr)
