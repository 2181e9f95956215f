# Sourced by scripts/test and scripts/bench: installs the Debian/Ubuntu packages the build
# needs when they are missing (apt-get as root, or through sudo), else prints the command.
# Usage: fastread_install_deps package...

fastread_install_deps() {
    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "scripts: not a Debian/Ubuntu system; make sure these are installed: $*" >&2
        return 0
    fi
    local missing=() pkg
    for pkg in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
            missing+=("$pkg")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0

    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            sudo="sudo"
        else
            echo "scripts: missing packages: ${missing[*]}" >&2
            echo "scripts: install them with:" >&2
            echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
            exit 1
        fi
    fi
    echo "scripts: installing ${missing[*]}" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
}
