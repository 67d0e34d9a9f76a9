# Step timing for .ci/run and scripts/test: `step NAME COMMAND...` runs COMMAND and records its
# name, wall-clock seconds and exit status in $SVC_STEPS_FILE (when set); `steps_table` prints
# what was recorded, so a run's log ends with where its time went (docs/testing.md keeps the table).
# Sourced, not run.

step() {
  local name=$1 started=$SECONDS status=0
  shift
  "$@" || status=$?
  if [ -n "${SVC_STEPS_FILE:-}" ]; then printf '%s\t%s\t%s\n' "$name" "$((SECONDS - started))" "$status" >>"$SVC_STEPS_FILE"; fi
  return $status
}

# Records a span measured elsewhere (a background build's own start and end): NAME SECONDS [STATUS].
step_record() {
  if [ -n "${SVC_STEPS_FILE:-}" ]; then printf '%s\t%s\t%s\n' "$1" "$2" "${3:-0}" >>"$SVC_STEPS_FILE"; fi
}

steps_table() {
  [ -s "${SVC_STEPS_FILE:-}" ] || return 0
  echo "steps (wall-clock; background steps overlap the others):"
  awk -F'\t' '{ printf "  %6d s  %2d:%02d  %s%s\n", $2, $2 / 60, $2 % 60, $1, ($3 == 0 ? "" : "  (exit " $3 ")") }' "$SVC_STEPS_FILE"
}
