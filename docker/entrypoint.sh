#!/bin/sh
# The image's command: api (default), worker, migrate, or cli <args> for user and key admin.
# Anything else runs as given. exec keeps node the direct child of tini, so it gets SIGTERM.
set -eu

command="${1:-api}"
if [ "$#" -gt 0 ]; then shift; fi

case "$command" in
  api) exec node /app/dist/apps/api/src/main.js "$@" ;;
  worker) exec node /app/dist/apps/worker/src/main.js "$@" ;;
  migrate) exec node /app/dist/apps/cli/src/main.js migrate "$@" ;;
  cli) exec node /app/dist/apps/cli/src/main.js "$@" ;;
  *) exec "$command" "$@" ;;
esac
