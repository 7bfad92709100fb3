#!/usr/bin/env bash
# scripts/demo.sh (make demo): boot the arm64 guest, whose emulated PMU
# really counts (with -icount, instructions are exact), load the module
# with tdctl, run a small mixed workload and show tdctl status and dump.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exec "$ROOT/selftests/vm/run" --arch arm64 --icount \
    --add "$ROOT/scripts/demo-guest.sh" -- /add/demo-guest.sh
