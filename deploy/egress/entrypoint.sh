#!/bin/sh
# PulseAudio first (each room recording plays the room's audio into a sink of its own there), as a
# daemon that never exits on idle; then egress itself, which reads EGRESS_CONFIG_BODY.
set -eu
pulseaudio -D --exit-idle-time=-1 --disallow-exit
exec egress
