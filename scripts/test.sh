#!/usr/bin/env bash
# The one test command: installs/starts PostgreSQL + pgvector and Redis if needed, builds, runs every suite.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-services.sh
# The console's browser tests (test/ui) drive Debian's chromium.
bash scripts/ensure-chromium.sh
if [ ! -d node_modules ]; then npm install --no-audit --no-fund; fi
npm run --silent typecheck
npm run --silent lint
npm run --silent build
# The suites also switch to glove-sif-100d, which is built on demand (its word vectors fetched once).
node scripts/build-embedding-model.mjs --quiet --model use-lite-512d --model lexicon --model glove-sif-100d
npx vitest run "$@"
