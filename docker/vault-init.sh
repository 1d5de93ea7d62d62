#!/bin/sh
# Prepares the compose stack's Vault dev server (in memory, so this runs on every `up`): a KV v2
# mount, the app's policy from deploy/vault/, and a token that carries only that policy. The
# services use that token, never the root token.
set -eu

if ! vault secrets list -format=json | grep -q '"secret/"'; then
  vault secrets enable -path=secret -version=2 kv
fi
vault policy write memory-service /vault-init/memory-service-policy.hcl
if ! vault token lookup "$APP_TOKEN" >/dev/null 2>&1; then
  vault token create -id="$APP_TOKEN" -policy=memory-service -period=768h -orphan >/dev/null
fi
echo "vault-init: KV v2 at secret/, policy memory-service, app token ready"
