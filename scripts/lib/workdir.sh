# Sourced by the check and bench scripts: the work directory and one run directory in it.
#
#   source scripts/lib/workdir.sh
#   work_run_dir NAME          # WORK_DIR (absolute; $WORK_DIR or .build-ci), RUN=$WORK_DIR/NAME emptied
#   work_run_dir NAME keep     # the same, keeping what RUN already holds (a benchmark's dataset)

work_run_dir() {
  WORK_DIR="${WORK_DIR:-$PWD/.build-ci}"
  mkdir -p "$WORK_DIR"
  WORK_DIR="$(cd "$WORK_DIR" && pwd)"
  RUN="$WORK_DIR/$1"
  [ "${2:-}" = keep ] || rm -rf "$RUN"
  mkdir -p "$RUN"
}

# copy_repository DEST: the repository's tracked files (as a clean clone would hold them, no build
# folders) copied to DEST, for packages that depend on it by path the way an app would
# (check-consumer.sh, the YAML loaders' fuzz target).
copy_repository() {
  mkdir -p "$1"
  git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$1"
}
