#!/bin/sh
# PulseAudio first (each room recording plays the room's audio into a sink of its own there), as a
# daemon that never exits on idle; then egress itself, which reads EGRESS_CONFIG_BODY.
set -eu
# PulseAudio refuses a runtime folder its user does not own, and /tmp (the chart's emptyDir) is
# root's: make the one XDG_RUNTIME_DIR names, as this user.
mkdir -p -m 0700 "${XDG_RUNTIME_DIR:?}"
pulseaudio -D --exit-idle-time=-1 --disallow-exit
exec egress
