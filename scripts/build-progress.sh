# Source me. Long first-time builds (LiveKit, Egress, the local cluster's Kubernetes, CoreDNS and
# Helm) say what they are doing, how far they are and how long it took, instead of one line and
# then minutes of silence: a status line every SVC_PROGRESS_INTERVAL seconds (15) on stderr, and
# the tail of the step's output when it fails.

# 75 -> "1 min 15 s"
progress_duration() {
  local seconds=$1
  if [ "$seconds" -ge 60 ]; then echo "$((seconds / 60)) min $((seconds % 60)) s"; else echo "$seconds s"; fi
}

# with_progress LABEL STATUS_FUNCTION LOG COMMAND...: runs COMMAND with its output into LOG; every
# interval prints "LABEL: <what STATUS_FUNCTION LOG says>, <elapsed>". Fails as COMMAND does.
with_progress() {
  local label=$1 status=$2 log=$3
  shift 3
  local started=$SECONDS interval=${SVC_PROGRESS_INTERVAL:-15}
  local next=$((SECONDS + interval))
  "$@" >"$log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if [ "$SECONDS" -ge "$next" ]; then
      echo "$label: $("$status" "$log"), $(progress_duration $((SECONDS - started))) so far" >&2
      next=$((SECONDS + interval))
    fi
  done
  local code=0
  wait "$pid" || code=$?
  if [ "$code" -ne 0 ]; then
    echo "$label: failed after $(progress_duration $((SECONDS - started))); its last lines:" >&2
    tail -n 30 "$log" >&2
  fi
  return "$code"
}

progress_downloads() { echo "downloading Go modules: $(grep -c '^go: downloading' "$1") of up to $progress_modules"; }
# Packages already in Go's build cache are not compiled again (nor counted); linking comes last.
progress_compiled() { echo "compiled $(grep -vc '^go: ' "$1") of $progress_packages packages, then linking"; }

# go_build_with_progress LABEL OUTPUT PACKAGE [BUILD FLAGS...]: `go build` of PACKAGE in the current
# module, in two visible phases: the module downloads (`go list -deps`, counted against go.sum's
# modules) and the compilation (`go build -v`, counted against the packages that list found).
go_build_with_progress() {
  local label=$1 output=$2 package=$3
  shift 3
  local logs started=$SECONDS
  logs=$(mktemp -d)
  progress_modules=$(grep -vc '/go.mod ' go.sum 2>/dev/null || echo "?")
  echo "$label: downloading the Go modules it needs" >&2
  with_progress "$label" progress_downloads "$logs/list" go list "$@" -deps "$package" || { rm -rf "$logs"; return 1; }
  progress_packages=$(grep -vc '^go: ' "$logs/list")
  local downloaded=$SECONDS
  echo "$label: $(grep -c '^go: downloading' "$logs/list") modules downloaded in $(progress_duration $((downloaded - started))); compiling $progress_packages packages" >&2
  with_progress "$label" progress_compiled "$logs/build" ${NICE:-} go build -v "$@" -o "$output" "$package" || { rm -rf "$logs"; return 1; }
  rm -rf "$logs"
  echo "$label: built in $(progress_duration $((SECONDS - started))) (modules $(progress_duration $((downloaded - started))), compiling $(progress_duration $((SECONDS - downloaded))))" >&2
}

progress_installed() { echo "$(grep -c '^go: downloading' "$1") Go modules downloaded, $(grep -vc '^go: ' "$1") packages compiled"; }

# go_install_with_progress LABEL MODULE@VERSION: `go install -v` (into $GOBIN), reporting the
# modules downloaded and packages compiled so far, and how long it took.
go_install_with_progress() {
  local label=$1 package=$2 log started=$SECONDS
  log=$(mktemp)
  with_progress "$label" progress_installed "$log" ${NICE:-} go install -v "$package" || { rm -f "$log"; return 1; }
  rm -f "$log"
  echo "$label: built in $(progress_duration $((SECONDS - started)))" >&2
}
