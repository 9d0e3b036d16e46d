#!/usr/bin/env bash
# Set up everything `make run` / `make test` need, idempotently:
#   1. the Debian packages Qt loads at run time (installed only when missing;
#      `apt-get update` only when something is missing),
#   2. a virtual environment .venv made with the system python3 (>= 3.11),
#   3. `pip install -e .[test]` into it (skipped while the stamp file is newer
#      than pyproject.toml).
#
# Usage: scripts/bootstrap.sh [--gui]
#   default  packages for the offscreen Qt platform (tests, headless rendering)
#   --gui    also the packages of Qt's xcb platform plugin (a real window on X11)
#
# Environment:
#   PYTHON=/path/to/python3.x   interpreter for the venv (default: python3, then /usr/bin/python3)
#   VENV=.venv                  where the venv lives
#   FABRICVIZ_NO_APT=1          never call apt-get (only report what is missing)
#   FABRICVIZ_ORACLE=1          also install the oracle tools: opensm + ibsim-utils, ibutils, libyang2-tools
#                               (yanglint), graphviz (dot), slurm-wlm (slurmctld) (always when CI is set)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

GUI=0
for arg in "$@"; do
    case "$arg" in
        --gui) GUI=1 ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "bootstrap: unknown argument: $arg" >&2; exit 2 ;;
    esac
done

VENV="${VENV:-.venv}"
STAMP="$VENV/.fabricviz-installed"

say()  { printf 'bootstrap: %s\n' "$*"; }
warn() { printf 'bootstrap: WARNING: %s\n' "$*" >&2; }
die()  { printf 'bootstrap: ERROR: %s\n' "$*" >&2; exit 1; }

# --- Debian packages ---------------------------------------------------------
# Derived with ldd on the PySide6-Essentials 6.11 wheel's libQt6{Core,Gui,
# Widgets,Svg,OpenGL}, plugins/platforms/libqoffscreen.so, libqxcb.so,
# libQt6XcbQpa.so.6 and xcbglintegrations/*, in a bare `debootstrap --variant=
# minbase bookworm` tree, mapped to packages with dpkg -S. Keep in sync with
# README.md ("Debian packages").
#
# Offscreen platform (what the tests use) -- libQt6Gui links libGL, libEGL,
# libX11, libxkbcommon, libfontconfig, libfreetype, libglib/libgthread and
# libdbus even when no display is used; a font keeps text from rendering as boxes.
QT_OFFSCREEN_PKGS=(
    libgl1 libegl1 libx11-6 libxkbcommon0 libfontconfig1 libfreetype6
    libglib2.0-0 libdbus-1-3 fonts-dejavu-core
)
# xcb platform plugin (a window on an X server, Xvfb included). Since Qt 6.5
# libxcb-cursor0 is required; the plugin's "xcb-cursor0 is needed" message is
# printed for ANY missing library here -- debug with QT_DEBUG_PLUGINS=1.
QT_XCB_PKGS=(
    libx11-xcb1 libxcb1 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0
    libxcb-keysyms1 libxcb-randr0 libxcb-render0 libxcb-render-util0 libxcb-shape0
    libxcb-shm0 libxcb-sync1 libxcb-util1 libxcb-xfixes0 libxcb-xkb1 libxcb-glx0
)

PKGS=("${QT_OFFSCREEN_PKGS[@]}")
if [ "$GUI" = 1 ]; then
    PKGS+=("${QT_XCB_PKGS[@]}")
fi

# A python3 >= 3.11 whose venv module can bootstrap pip (Debian's python3 needs
# the python3-venv package for that).
python_ok() {
    "$1" -c 'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
        >/dev/null 2>&1
}
pick_python() {
    local cand
    for cand in ${PYTHON:+"$PYTHON"} python3 /usr/bin/python3; do
        if command -v "$cand" >/dev/null 2>&1 && python_ok "$cand"; then
            command -v "$cand"
            return 0
        fi
    done
    return 1
}

PY="$(pick_python || true)"
if [ -n "${PYTHON:-}" ] && [ "$PY" != "$(command -v "$PYTHON" 2>/dev/null)" ]; then
    die "PYTHON=$PYTHON is not a Python >= 3.11 with the venv module (and ensurepip)"
fi
if [ -z "$PY" ]; then
    # Debian 12's python3 is 3.11; python3-venv brings ensurepip.
    PKGS+=(python3 python3-venv)
fi

have_pkg() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = "installed" ]
}

# missing_pkgs P...: MISSING = those of the packages P that are not installed
missing_pkgs() {
    MISSING=()
    local p
    for p in "$@"; do
        have_pkg "$p" || MISSING+=("$p")
    done
}

# apt_access [ask]: SUDO = how to run apt-get, CAN_APT = 1 when it can run at all.
# With "ask", sudo may prompt for a password on this terminal.
apt_access() {
    SUDO=()
    CAN_APT=1
    if [ "${FABRICVIZ_NO_APT:-0}" = 1 ]; then
        CAN_APT=0
    elif [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            SUDO=(sudo -n)
        elif [ "${1:-}" = ask ] && command -v sudo >/dev/null 2>&1 && [ -t 0 ]; then
            SUDO=(sudo)
        else
            CAN_APT=0
        fi
    fi
}

if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    missing_pkgs "${PKGS[@]}"
    if [ "${#MISSING[@]}" -gt 0 ]; then
        apt_access ask
        if [ "$CAN_APT" = 1 ]; then
            say "installing missing Debian packages: ${MISSING[*]}"
            "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q \
                || die "apt-get update failed"
            APT_UPDATED=1
            "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
                apt-get install -y -q --no-install-recommends "${MISSING[@]}" \
                || die "apt-get install failed for: ${MISSING[*]}"
        else
            warn "these Debian packages are missing and I cannot install them (not root, no sudo):"
            warn "    ${MISSING[*]}"
            warn "ask an administrator to run:"
            warn "    apt-get install -y --no-install-recommends ${MISSING[*]}"
            warn "continuing; Qt may fail to start until they are installed."
        fi
    fi
else
    say "not a Debian/Ubuntu system (no dpkg-query/apt-get): skipping system packages."
    say "Qt needs the equivalents of: ${PKGS[*]}"
fi

# --- OpenSM oracle (optional) ----------------------------------------------------
# tests/ib/test_oracle_harness.py and the differential routing tests run the real
# OpenSM under ibsim; ibutils' ibtopodiff and ibdmchk check the diff and the ibdm topology
# export; the export checks run yanglint on SONiC config_db (SONiC's YANG
# models), dot on the DOT export and slurmctld on topology.conf. With CI set (CI=true) or
# FABRICVIZ_ORACLE=1 their Debian packages are installed when missing; failing to install
# only warns (those tests then skip).
# infiniband-diags: perfquery and ibqueryerrors for the port counters oracle.
ORACLE_PKGS=(opensm ibsim-utils ibutils libyang2-tools graphviz slurm-wlm infiniband-diags)
want_oracle() {
    case "${CI:-}" in ""|0|false|False|FALSE) ;; *) return 0 ;; esac
    [ "${FABRICVIZ_ORACLE:-0}" = 1 ]
}
if want_oracle && command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    missing_pkgs "${ORACLE_PKGS[@]}"
    if [ "${#MISSING[@]}" -gt 0 ]; then
        apt_access
        if [ "$CAN_APT" = 1 ]; then
            say "installing the OpenSM oracle packages: ${MISSING[*]}"
        fi
        if [ "$CAN_APT" = 1 ] \
            && { [ "${APT_UPDATED:-0}" = 1 ] \
                 || "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q; } \
            && "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
                 apt-get install -y -q --no-install-recommends "${MISSING[@]}"; then
            say "installed: $(opensm --version 2>/dev/null | grep -m1 -o 'OpenSM [0-9.]*')"
        else
            warn "could not install ${MISSING[*]} (OpenSM oracle); the OpenSM tests will skip."
            warn "    to get them: apt-get install -y ${MISSING[*]}"
        fi
    fi
fi

if [ -z "$PY" ]; then
    PY="$(pick_python || true)"
    [ -n "$PY" ] || die "need python3 >= 3.11 with the venv module (Debian: apt-get install python3 python3-venv)"
fi

# --- virtual environment --------------------------------------------------------
venv_ok() {
    [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c \
        'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1 \
        && "$VENV/bin/python" -m pip --version >/dev/null 2>&1
}
if ! venv_ok; then
    [ -e "$VENV" ] && say "recreating broken or outdated $VENV"
    rm -rf "$VENV"
    say "creating $VENV with $PY ($("$PY" -c 'import platform; print(platform.python_version())'))"
    "$PY" -m venv "$VENV"
fi

if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
    say "pip install -e '.[test]' into $VENV"
    PIP_FLAGS=(--disable-pip-version-check -q)
    if [ -n "${CI:-}" ] || [ ! -t 1 ]; then
        PIP_FLAGS+=(--progress-bar off)
    fi
    "$VENV/bin/python" -m pip install "${PIP_FLAGS[@]}" -e '.[test]'
    touch "$STAMP"
    "$VENV/bin/python" - <<'EOF'
from importlib.metadata import version
names = ("PySide6-Essentials", "pyqtgraph", "networkx", "numpy", "scipy", "pytest", "pytest-qt", "hypothesis")
print("bootstrap: installed " + ", ".join(f"{n} {version(n)}" for n in names))
EOF
else
    say "$VENV is up to date (stamp newer than pyproject.toml)"
fi

# --- compiled kernels -----------------------------------------------------------
# the subnet manager's inner loops are numba kernels cached on disk. For the tests (make setup /
# make test) they are compiled here, once (about 30 kernels: ~30 s of CPU, 1-2 min on a busy
# 2-core machine; a second after), one line per kernel on stderr. `make run` (--gui) leaves
# them to the GUI, which compiles them in the background while its window is already usable
# (routing runs on its numpy paths meanwhile; the status bar counts the kernels).
if [ "$GUI" = 1 ]; then
    say "the routing kernels compile in the background when the GUI first starts (status bar)"
else
    say "preparing the subnet manager's compiled kernels (numba; the first time compiles them)"
    "$VENV/bin/python" -m fabricviz.ib.warmup \
        || say "warning: could not prepare the compiled kernels (they compile on first use)"
fi
