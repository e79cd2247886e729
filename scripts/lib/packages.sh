# Sourced by the scripts that install Debian packages they need.
#
#   source scripts/lib/packages.sh
#   need=(); command -v chromium >/dev/null || need+=(chromium)
#   apt_install "${need[@]}"        # nothing when the list is empty; sudo when not root;
#                                   # update and install each bounded to 15 minutes

apt_install() {
  [ $# -gt 0 ] || return 0
  local sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "installing: $*"
  timeout 900 $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive timeout 900 $sudo_cmd apt-get install -y -qq "$@" >/dev/null
}
