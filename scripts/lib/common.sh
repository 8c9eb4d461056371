# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shared by scripts/demo and scripts/test (sourced, not run).

# ensure_packages PKG...: installs the Debian packages that are missing, with apt-get (through
# sudo when not root). Does nothing when all are installed, or when this is not a dpkg system.
ensure_packages() {
    if ! command -v dpkg >/dev/null 2>&1; then
        echo "note: no dpkg here; not checking for: $*" >&2
        return 0
    fi
    local missing=() pkg status
    for pkg in "$@"; do
        status=$(dpkg -s "$pkg" 2>/dev/null || true)
        if [[ "$status" != *"Status: install ok installed"* ]]; then
            missing+=("$pkg")
        fi
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        return 0
    fi
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "error: missing packages (${missing[*]}) and neither root nor sudo to install them" >&2
            return 1
        fi
    fi
    echo "installing missing packages: ${missing[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Parallel build jobs: ARBOR_JOBS, else the number of cores.
arbor_jobs() {
    echo "${ARBOR_JOBS:-$(nproc 2>/dev/null || echo 2)}"
}
