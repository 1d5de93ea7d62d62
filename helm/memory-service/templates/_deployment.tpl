{{/*
One long-running component (api or worker). Call with a dict:
  root       the top-level context
  component  "api" | "worker"
  values     .Values.<component>
  command    the image command: api | worker
  port       {name, number}: the container port the probes use
  extraPorts more container ports (list of {name, number})
  metricsPort {name, number}: where /metrics is (scrape annotations)
  env        extra env entries (list of {name, value})
  external   true when an autoscaler owns the replica count
*/}}
{{- define "memory-service.deployment" -}}
{{- $root := .root -}}
{{- $v := .values -}}
{{- $sel := dict "root" $root "component" .component -}}
{{- $vaultK8s := and $root.Values.vault.enabled (eq $root.Values.vault.auth.method "kubernetes") -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "memory-service.componentName" $sel }}
  labels:
    {{- include "memory-service.labels" $sel | nindent 4 }}
spec:
  {{- if not .external }}
  replicas: {{ $v.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  strategy:
    {{- toYaml $v.strategy | nindent 4 }}
  selector:
    matchLabels:
      {{- include "memory-service.selectorLabels" $sel | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "memory-service.labels" $sel | nindent 8 }}
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # Roll the pods when the settings change.
        checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
        {{- if $root.Values.metrics.podAnnotations }}
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ .metricsPort.number | quote }}
        prometheus.io/path: /metrics
        {{- end }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "memory-service.serviceAccountName" $root }}
      # The app never calls the Kubernetes API; Vault auth gets its own projected token below.
      automountServiceAccountToken: false
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      {{- with (include "memory-service.affinity" (merge (dict "values" $v) $sel)) }}
      affinity:
        {{- . | nindent 8 }}
      {{- end }}
      {{- if $v.topologySpread.enabled }}
      topologySpreadConstraints:
        - maxSkew: {{ $v.topologySpread.maxSkew }}
          topologyKey: {{ $v.topologySpread.topologyKey }}
          whenUnsatisfiable: {{ $v.topologySpread.whenUnsatisfiable }}
          labelSelector:
            matchLabels:
              {{- include "memory-service.selectorLabels" $sel | nindent 14 }}
          matchLabelKeys:
            - pod-template-hash
      {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.initContainers }}
      initContainers:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ .component }}
          image: {{ include "memory-service.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args: [{{ .command | quote }}]
          ports:
            {{- range (prepend (default list .extraPorts) .port) }}
            - name: {{ .name }}
              containerPort: {{ .number }}
              protocol: TCP
            {{- end }}
          envFrom:
            - configMapRef:
                name: {{ include "memory-service.configMapName" $root }}
            {{- with $v.extraEnvFrom }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          env:
            - name: RUN_MIGRATIONS
              value: {{ include "memory-service.runMigrations" $root | quote }}
            {{- range .env }}
            - name: {{ .name }}
              value: {{ .value | quote }}
            {{- end }}
            {{- include "memory-service.secretEnvVars" (dict "root" $root) | trim | nindent 12 }}
            {{- with $v.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- if and (eq .component "api") (gt (int $v.preStopSleepSeconds) 0) }}
          lifecycle:
            # Endpoints drop the pod while it still serves; SIGTERM comes after the sleep.
            preStop:
              exec:
                command: ["sleep", "{{ $v.preStopSleepSeconds }}"]
          {{- end }}
          startupProbe:
            {{- toYaml $v.probes.startup | nindent 12 }}
          readinessProbe:
            {{- toYaml $v.probes.readiness | nindent 12 }}
          livenessProbe:
            {{- toYaml $v.probes.liveness | nindent 12 }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.containerSecurityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if $vaultK8s }}
            - name: vault-token
              mountPath: /var/run/secrets/vault
              readOnly: true
            {{- end }}
            {{- with $v.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
        {{- with $v.sidecars }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      volumes:
        # The root filesystem is read-only; /tmp is the only writable path.
        - name: tmp
          emptyDir:
            sizeLimit: {{ $root.Values.tmpSizeLimit }}
        {{- if $vaultK8s }}
        - name: vault-token
          projected:
            sources:
              - serviceAccountToken:
                  path: token
                  expirationSeconds: {{ $root.Values.vault.auth.kubernetes.expirationSeconds }}
                  {{- with $root.Values.vault.auth.kubernetes.audience }}
                  audience: {{ . }}
                  {{- end }}
        {{- end }}
        {{- with $v.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
{{- end -}}
