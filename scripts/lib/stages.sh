# Sourced by scripts/test.sh: runs the test run's stages, in the foreground or two at a time, and
# prints how long each took at the end (on failure too), so a slow stage is seen in every run.
#
#   source scripts/lib/stages.sh
#   stage NAME CMD ARGS...         # runs CMD in the foreground; its output as it comes
#   stage_start NAME CMD ARGS...   # starts CMD in the background, its output to $STAGE_LOGS/NAME.log
#   stage_wait NAME                # waits for it, prints its log; fails as it failed
#   timed NAME CMD ARGS...         # inside a background stage (a lane of several): runs CMD, adds
#                                  # its own row to the table, returns its status
#   stages_summary                 # the table (registered as an EXIT trap by stages_init)
#
# A failing stage stops the run; background stages still running are stopped with it and their
# output so far printed, then the table.

stages_init() {
  STAGE_LOGS="$WORK_DIR/stage-logs"
  rm -rf "$STAGE_LOGS"
  mkdir -p "$STAGE_LOGS"
  STAGE_TABLE="$STAGE_LOGS/table.tsv"
  : > "$STAGE_TABLE"
  STAGES_STARTED=$SECONDS
  declare -gA STAGE_PIDS STAGE_T0
  trap stages_summary EXIT
}

stage_record() {  # NAME SECONDS STATUS
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$STAGE_TABLE"
}

# Runs CMD as a row of the table (indented by INDENT); returns its status.
run_timed() {  # INDENT NAME CMD ARGS...
  local indent="$1" name="$2"; shift 2
  local t0=$SECONDS status=0
  echo "== $name"
  "$@" || status=$?
  stage_record "$indent$name" $((SECONDS - t0)) "$status"
  [ "$status" = 0 ] || echo "FAILED: $name (exit $status)"
  return "$status"
}

stage() { run_timed "" "$@" || exit $?; }

timed() { run_timed "  " "$@"; }

stage_start() {
  local name="$1"; shift
  STAGE_T0[$name]=$SECONDS
  echo "== $name (started in the background)"
  ( "$@" ) > "$STAGE_LOGS/$name.log" 2>&1 &
  STAGE_PIDS[$name]=$!
}

stage_wait() {
  local name="$1" status=0
  wait "${STAGE_PIDS[$name]}" || status=$?
  echo "== $name (finished)"
  cat "$STAGE_LOGS/$name.log"
  stage_record "$name" $((SECONDS - STAGE_T0[$name])) "$status"
  # Quoted so that the key is expanded by unset itself: a name with an apostrophe stays one key.
  unset 'STAGE_PIDS[$name]'
  [ "$status" = 0 ] || { echo "FAILED: $name (exit $status)"; exit "$status"; }
}

stages_summary() {
  local status=$?
  # Background stages still running when the run stopped: stopped with it.
  for name in "${!STAGE_PIDS[@]}"; do
    kill -TERM "${STAGE_PIDS[$name]}" 2>/dev/null || true
    echo "== $name (stopped with the run; its output so far)"
    cat "$STAGE_LOGS/$name.log" 2>/dev/null || true
    stage_record "$name" $((SECONDS - STAGE_T0[$name])) "stopped"
  done
  echo
  echo "== time per stage (background stages overlap the ones beside them)"
  awk -F '\t' '{ printf "  %-58s %5d s  %s\n", $1, $2, ($3 == "0" ? "ok" : "FAILED (" $3 ")") }' "$STAGE_TABLE"
  printf '  %-58s %5d s  (%d min %d s)\n' "the whole run" $((SECONDS - STAGES_STARTED)) $(((SECONDS - STAGES_STARTED) / 60)) $(((SECONDS - STAGES_STARTED) % 60))
  exit "$status"
}
