{{/* Chart name, overridable. */}}
{{- define "memory-service.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Resource name prefix: <release>-<chart>, or the release name when it already contains the chart name. */}}
{{- define "memory-service.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of one component's resources: <fullname>-<component>. Call with (dict "root" $ "component" "api"). */}}
{{- define "memory-service.componentName" -}}
{{- printf "%s-%s" (include "memory-service.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "memory-service.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels that select a component's pods. Call with (dict "root" $ "component" "api"). */}}
{{- define "memory-service.selectorLabels" -}}
app.kubernetes.io/name: {{ include "memory-service.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end -}}

{{/* Every resource's labels. Call with (dict "root" $ "component" "api"); component may be empty. */}}
{{- define "memory-service.labels" -}}
helm.sh/chart: {{ include "memory-service.chart" .root }}
{{ include "memory-service.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: memory-service
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "memory-service.image" -}}
{{- $image := .Values.image -}}
{{- if $image.digest -}}
{{- printf "%s@%s" $image.repository $image.digest -}}
{{- else -}}
{{- printf "%s:%s" $image.repository (default .Chart.AppVersion $image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "memory-service.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "memory-service.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "memory-service.configMapName" -}}
{{- include "memory-service.componentName" (dict "root" . "component" "config") -}}
{{- end -}}

{{/* The Secret one secrets.<entry> reads from: its own existingSecret, else secrets.existingSecret. */}}
{{- define "memory-service.secretName" -}}
{{- $entry := index .root.Values.secrets .entry -}}
{{- default .root.Values.secrets.existingSecret $entry.existingSecret -}}
{{- end -}}

{{/* The secrets.<entry> items the pods need, each as "ENTRY=ENV_VAR=required". */}}
{{- define "memory-service.secretEnv" -}}
{{- $items := list "databaseUrl=DATABASE_URL=true" "redisUrl=REDIS_URL=true" "apiKeys=API_KEYS=false" "apiKey=API_KEY=false" "adminApiKey=ADMIN_API_KEY=false" "encryptionKey=MEMORY_ENCRYPTION_KEY=false" "syncCursorSecret=SYNC_CURSOR_SECRET=false" "oauthConsoleClientSecrets=OAUTH_CONSOLE_CLIENT_SECRETS=false" "extractorLlmApiKey=EXTRACTOR_LLM_API_KEY=false" -}}
{{- if .Values.databaseReplicas.enabled -}}
{{- $items = append $items "databaseReplicaUrls=DATABASE_REPLICA_URLS=true" -}}
{{- end -}}
{{- if .Values.metrics.token.enabled -}}
{{- $items = append $items "metricsToken=METRICS_TOKEN=true" -}}
{{- end -}}
{{- if .Values.vault.enabled -}}
{{- if eq .Values.vault.auth.method "token" -}}
{{- $items = append $items "vaultToken=VAULT_TOKEN=true" -}}
{{- else if eq .Values.vault.auth.method "approle" -}}
{{- $items = concat $items (list "vaultRoleId=VAULT_ROLE_ID=true" "vaultSecretId=VAULT_SECRET_ID=true") -}}
{{- end -}}
{{- end -}}
{{- join "\n" $items -}}
{{- end -}}

{{/* env entries that read secrets. Call with (dict "root" $ "only" (list "databaseUrl")) to restrict. */}}
{{- define "memory-service.secretEnvVars" -}}
{{- $root := .root -}}
{{- range $line := splitList "\n" (include "memory-service.secretEnv" $root) }}
{{- $parts := splitList "=" $line }}
{{- $entry := index $parts 0 }}
{{- if or (not $.only) (has $entry $.only) }}
- name: {{ index $parts 1 }}
  valueFrom:
    secretKeyRef:
      name: {{ include "memory-service.secretName" (dict "root" $root "entry" $entry) }}
      key: {{ (index $root.Values.secrets $entry).key }}
      {{- if ne (index $parts 2) "true" }}
      optional: true
      {{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Migrations run in the hook Job, so the long-running pods skip them. */}}
{{- define "memory-service.runMigrations" -}}
{{- ternary "false" "true" .Values.migrations.hookJob -}}
{{- end -}}

{{/* Pod anti-affinity from a preset. Call with (dict "root" $ "component" "api" "values" .Values.api). */}}
{{- define "memory-service.affinity" -}}
{{- if .values.affinity -}}
{{- toYaml .values.affinity -}}
{{- else if eq .values.podAntiAffinityPreset "hard" -}}
podAntiAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    - topologyKey: kubernetes.io/hostname
      labelSelector:
        matchLabels:
          {{- include "memory-service.selectorLabels" . | nindent 10 }}
{{- else if eq .values.podAntiAffinityPreset "soft" -}}
podAntiAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- include "memory-service.selectorLabels" . | nindent 12 }}
{{- end -}}
{{- end -}}

{{/*
Host names /mcp answers to when config.MCP_ALLOWED_HOSTS is empty: the API service's in-cluster
names and the ingress hosts (localhost is always allowed by the server itself).
*/}}
{{- define "memory-service.mcpAllowedHosts" -}}
{{- $svc := include "memory-service.componentName" (dict "root" . "component" "api") -}}
{{- $ns := .Release.Namespace -}}
{{- $hosts := list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns) -}}
{{- if .Values.api.ingress.enabled -}}
{{- range .Values.api.ingress.hosts -}}
{{- $hosts = append $hosts .host -}}
{{- end -}}
{{- end -}}
{{- join "," $hosts -}}
{{- end -}}
