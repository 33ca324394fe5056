#!/usr/bin/env bash
# Runs turbo, the task runner (turbo.json), as the root scripts do: no telemetry, no update check, and
# the local cache only (.turbo/cache; turbo.json also turns the remote cache off, so no token in the
# environment reaches one).
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1 TURBO_NO_UPDATE_NOTIFIER=1 TURBO_CACHE=local:rw
exec turbo "$@"
