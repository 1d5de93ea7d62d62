#!/usr/bin/env bash
# Writes the Secret with DATABASE_REPLICA_URLS for a CloudNativePG cluster: the `uri` of the operator's
# app Secret (user, password, database) with the cluster's -ro Service, which load-balances over the
# replicas, as host. Safe to re-run; re-run it after the app password changes.
#
#   NAMESPACE=memory CLUSTER=memory-db deploy/cloudnative-pg/replica-urls-secret.sh
#
# Variables:
#   NAMESPACE  namespace of the cluster and the release              (memory)
#   CLUSTER    metadata.name of the Cluster (cluster.yaml)            (memory-db)
#   SECRET     the chart's secrets.databaseReplicaUrls.existingSecret (<CLUSTER>-replicas)
set -euo pipefail

NAMESPACE="${NAMESPACE:-memory}"
CLUSTER="${CLUSTER:-memory-db}"
SECRET="${SECRET:-${CLUSTER}-replicas}"

primary_url="$(kubectl -n "$NAMESPACE" get secret "${CLUSTER}-app" -o jsonpath='{.data.uri}' | base64 -d)"
# postgresql://app:…@memory-db-rw.memory:5432/app  ->  postgresql://app:…@memory-db-ro.memory:5432/app
replica_url="${primary_url/@${CLUSTER}-rw/@${CLUSTER}-ro}"
if [[ "$replica_url" == "$primary_url" ]]; then
  echo "the uri in ${NAMESPACE}/${CLUSTER}-app does not name ${CLUSTER}-rw; write ${SECRET} by hand" >&2
  exit 1
fi

# Through apply, so a second run updates the Secret; the URL never reaches the terminal.
kubectl -n "$NAMESPACE" create secret generic "$SECRET" \
  --from-literal=DATABASE_REPLICA_URLS="$replica_url" --dry-run=client -o yaml | kubectl -n "$NAMESPACE" apply -f -
