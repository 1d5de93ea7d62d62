#!/usr/bin/env bash
# Lets memory-service pods log in to Vault with their ServiceAccount token (Kubernetes auth).
# Run once with a Vault admin token (VAULT_ADDR and VAULT_TOKEN set); safe to re-run.
#
#   NAMESPACE=memory RELEASE=memsvc deploy/vault/setup-kubernetes-auth.sh
#
# Variables (defaults match the chart's defaults):
#   NAMESPACE        namespace of the release                        (memory)
#   RELEASE          Helm release name                               (memsvc)
#   SERVICE_ACCOUNT  ServiceAccount of the pods                      (<RELEASE>-memory-service, or the release
#                    name alone when it contains "memory-service" — the chart's naming rule)
#   ROLE             Vault role = the chart's vault.auth.kubernetes.role   (memory-service)
#   VAULT_MOUNT, VAULT_PREFIX  KV v2 mount and folder (secret, memory-service)
#   AUDIENCE         the chart's vault.auth.kubernetes.audience, if set
#   KUBERNETES_HOST  API server address as Vault reaches it   (https://kubernetes.default.svc: Vault in-cluster)
#   TOKEN_REVIEWER_JWT, KUBERNETES_CA_CERT_FILE  only when Vault runs outside the cluster
set -euo pipefail

NAMESPACE="${NAMESPACE:-memory}"
RELEASE="${RELEASE:-memsvc}"
if [[ "$RELEASE" == *memory-service* ]]; then default_sa="$RELEASE"; else default_sa="$RELEASE-memory-service"; fi
SERVICE_ACCOUNT="${SERVICE_ACCOUNT:-$default_sa}"
ROLE="${ROLE:-memory-service}"
MOUNT="${VAULT_MOUNT:-secret}"
PREFIX="${VAULT_PREFIX:-memory-service}"
KUBERNETES_HOST="${KUBERNETES_HOST:-https://kubernetes.default.svc}"
POLICY_FILE="$(cd "$(dirname "$0")" && pwd)/memory-service-policy.hcl"

echo "1. KV v2 mount at ${MOUNT}/"
if ! vault secrets list -format=json | grep -q "\"${MOUNT}/\""; then
  vault secrets enable -path="$MOUNT" -version=2 kv
fi

echo "2. policy memory-service (${MOUNT}/data/${PREFIX}/*)"
sed -e "s#\"secret/data/memory-service/#\"${MOUNT}/data/${PREFIX}/#" \
    -e "s#\"secret/metadata/memory-service/#\"${MOUNT}/metadata/${PREFIX}/#" \
    "$POLICY_FILE" | vault policy write memory-service -

echo "3. Kubernetes auth at auth/kubernetes (the path the app logs in to)"
if ! vault auth list -format=json | grep -q '"kubernetes/"'; then
  vault auth enable kubernetes
fi
config=(kubernetes_host="$KUBERNETES_HOST")
if [[ -n "${TOKEN_REVIEWER_JWT:-}" ]]; then config+=(token_reviewer_jwt="$TOKEN_REVIEWER_JWT"); fi
if [[ -n "${KUBERNETES_CA_CERT_FILE:-}" ]]; then config+=(kubernetes_ca_cert="@${KUBERNETES_CA_CERT_FILE}"); fi
vault write auth/kubernetes/config "${config[@]}"

echo "4. role ${ROLE} for ${NAMESPACE}/${SERVICE_ACCOUNT}"
role=(
  bound_service_account_names="$SERVICE_ACCOUNT"
  bound_service_account_namespaces="$NAMESPACE"
  token_policies=memory-service
  token_ttl=1h
  token_max_ttl=24h
)
if [[ -n "${AUDIENCE:-}" ]]; then role+=(audience="$AUDIENCE"); fi
vault write "auth/kubernetes/role/${ROLE}" "${role[@]}"

echo "Done. Install the chart with vault.enabled=true, vault.address=<VAULT_ADDR as pods reach it>,"
echo "vault.auth.method=kubernetes and vault.auth.kubernetes.role=${ROLE}."
