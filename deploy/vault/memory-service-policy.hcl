# Vault policy for memory-service: its own KV v2 folder and nothing else.
# The paths assume VAULT_MOUNT=secret and VAULT_PREFIX=memory-service (the defaults);
# setup-kubernetes-auth.sh rewrites them for other values.

# Store (check-and-set 0 on create), update and read secret values.
path "secret/data/memory-service/*" {
  capabilities = ["create", "read", "update"]
}

# Delete a secret with all its versions (DELETE on the metadata path).
path "secret/metadata/memory-service/*" {
  capabilities = ["read", "list", "delete"]
}

# Look up and renew its own token (also granted by Vault's default policy).
path "auth/token/lookup-self" {
  capabilities = ["read"]
}

path "auth/token/renew-self" {
  capabilities = ["update"]
}
