{{/*
Names and labels. Every resource of a component is named "<fullname>-<component>" and carries the
component's labels, so NetworkPolicies and Services select pods by the same helper.
*/}}

{{- define "svc.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "svc.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* "<fullname>-<component>"; call with (dict "root" $ "component" "identity"). */}}
{{- define "svc.componentName" -}}
{{- printf "%s-%s" (include "svc.fullname" .root | trunc 50 | trimSuffix "-") .component }}
{{- end }}

{{- define "svc.selectorLabels" -}}
app.kubernetes.io/name: {{ include "svc.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "svc.labels" -}}
{{ include "svc.selectorLabels" . }}
app.kubernetes.io/part-of: {{ include "svc.name" .root }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The one image every process runs from, pinned by digest when one is given. */}}
{{- define "svc.image" -}}
{{- $image := .Values.image }}
{{- if $image.digest }}
{{- printf "%s@%s" $image.repository $image.digest }}
{{- else }}
{{- printf "%s:%s" $image.repository (default .Chart.AppVersion $image.tag) }}
{{- end }}
{{- end }}

{{- define "svc.serviceAccountName" -}}
{{- if .root.Values.serviceAccount.create }}
{{- include "svc.componentName" . }}
{{- else }}
{{- "default" }}
{{- end }}
{{- end }}

{{/* In-cluster URL of a service's gRPC port, for its callers. */}}
{{- define "svc.grpcUrl" -}}
{{- $values := index .root.Values .component }}
{{- printf "http://%s:%v" (include "svc.componentName" .) $values.grpcPort }}
{{- end }}

{{/* In-cluster URL of a service's grpc-js port (internalGrpcPort), for the gateway. */}}
{{- define "svc.internalGrpcUrl" -}}
{{- $values := index .root.Values .component }}
{{- printf "grpc://%s:%v" (include "svc.componentName" .) $values.internalGrpcPort }}
{{- end }}

{{/*
Redis and Kafka addresses, plain values only; a Redis URL with a password comes from
externalRedis.existingSecret (see svc.redisSecretEnv).
*/}}
{{- define "svc.redisConfig" -}}
{{- with .Values.externalRedis }}
{{- if and .url (not .existingSecret) }}
REDIS_URL: {{ .url | quote }}
{{- end }}
REDIS_KEY_PREFIX: {{ .keyPrefix | quote }}
{{- end }}
{{- end }}

{{- define "svc.kafkaConfig" -}}
{{- with .Values.externalKafka }}
{{- if .brokers }}
KAFKA_BROKERS: {{ .brokers | quote }}
KAFKA_TOPIC_PREFIX: {{ .topicPrefix | quote }}
{{- if .tls }}
KAFKA_TLS: "true"
{{- end }}
{{- if .sasl.mechanism }}
KAFKA_SASL_MECHANISM: {{ .sasl.mechanism | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* OpenTelemetry tracing of one component; call with (dict "root" $ "component" "meeting"). */}}
{{- define "svc.otelConfig" -}}
{{- with .root.Values.otel }}
{{- if .enabled }}
NODE_OPTIONS: "--import=@svc/platform/telemetry/register"
OTEL_EXPORTER_OTLP_ENDPOINT: {{ .endpoint | quote }}
OTEL_EXPORTER_OTLP_PROTOCOL: {{ .protocol | quote }}
OTEL_SERVICE_NAME: {{ printf "%s%s" .serviceNamePrefix $.component | quote }}
OTEL_TRACES_SAMPLER: "parentbased_traceidratio"
OTEL_TRACES_SAMPLER_ARG: {{ .samplerRatio | toString | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/* Kafka SASL credentials, only from externalKafka.sasl.existingSecret. */}}
{{- define "svc.kafkaSecretEnv" -}}
{{- with .Values.externalKafka }}
{{- if and .brokers .sasl.mechanism }}
{{ include "svc.secretEnv" (dict "name" "KAFKA_SASL_USERNAME" "secret" .sasl.existingSecret "key" .sasl.usernameKey) }}
{{ include "svc.secretEnv" (dict "name" "KAFKA_SASL_PASSWORD" "secret" .sasl.existingSecret "key" .sasl.passwordKey) }}
{{- end }}
{{- end }}
{{- end }}

{{/* env entries for a secret reference; call with (dict "name" "DATABASE_URL" "secret" "..." "key" "..."). */}}
{{- define "svc.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ required (printf "a Secret name for %s is required" .name) .secret | quote }}
      key: {{ required (printf "a Secret key for %s is required" .name) .key | quote }}
{{- end }}

{{- define "svc.databaseEnv" -}}
{{ include "svc.secretEnv" (dict "name" "DATABASE_URL" "secret" .Values.externalDatabase.existingSecret "key" .Values.externalDatabase.urlKey) }}
{{- end }}

{{/*
REDIS_URL from a Secret (when configured so) and, always, the key that authenticates the shared
credential-cache entries (every process reads or writes them; production refuses to share a Redis
without it).
*/}}
{{- define "svc.redisSecretEnv" -}}
{{- if .Values.externalRedis.existingSecret }}
{{ include "svc.secretEnv" (dict "name" "REDIS_URL" "secret" .Values.externalRedis.existingSecret "key" .Values.externalRedis.urlKey) }}
{{- end }}
{{ include "svc.secretEnv" (dict "name" "CREDENTIAL_CACHE_KEY" "secret" .Values.externalRedis.credentialCacheKey.existingSecret "key" .Values.externalRedis.credentialCacheKey.key) }}
{{- end }}

{{/* extraEnv entries of a component, rendered into its ConfigMap. */}}
{{- define "svc.extraEnv" -}}
{{- range $name, $value := .extraEnv }}
{{ $name }}: {{ $value | toString | quote }}
{{- end }}
{{- end }}

{{/* Pod-level settings every Deployment and Job shares. */}}
{{- define "svc.podCommon" -}}
terminationGracePeriodSeconds: {{ .root.Values.terminationGracePeriodSeconds }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.priorityClassName }}
priorityClassName: {{ . | quote }}
{{- end }}
{{- include "svc.topologySpread" . }}
volumes:
  # The root filesystem is read-only; Node and its libraries may still want a scratch directory.
  - name: tmp
    emptyDir:
      sizeLimit: 64Mi
  {{- with .values.extraVolumes }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}

{{/* Container-level settings every process shares. */}}
{{- define "svc.containerCommon" -}}
image: {{ include "svc.image" .root }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
securityContext:
  {{- toYaml .root.Values.securityContext | nindent 2 }}
volumeMounts:
  - name: tmp
    mountPath: /tmp
  {{- with .values.extraVolumeMounts }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}

{{/* Kubernetes-native gRPC probes against grpc.health.v1 on the service's gRPC port. */}}
{{- define "svc.grpcProbes" -}}
startupProbe:
  grpc:
    port: {{ .port }}
  periodSeconds: 2
  failureThreshold: 60
readinessProbe:
  grpc:
    port: {{ .port }}
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
# Health reports NOT_SERVING while the database is unreachable; a lenient threshold keeps a short
# database outage from restarting every pod.
livenessProbe:
  grpc:
    port: {{ .port }}
  periodSeconds: 10
  timeoutSeconds: 5
  failureThreshold: 6
{{- end }}

{{- define "svc.preStop" -}}
{{- if gt (int .Values.preStopSleepSeconds) 0 }}
lifecycle:
  preStop:
    exec:
      command: ["sleep", {{ .Values.preStopSleepSeconds | toString | quote }}]
{{- end }}
{{- end }}

{{/* podSelector peers for the callers of a component; call with (dict "root" $ "callers" (list ...)). */}}
{{- define "svc.callerPeers" -}}
{{- $root := .root }}
{{- range .callers }}
- podSelector:
    matchLabels:
      {{- include "svc.selectorLabels" (dict "root" $root "component" .) | nindent 6 }}
{{- end }}
{{- end }}

{{/*
Metrics (metrics.enabled): METRICS_PORT in a component's ConfigMap, its named container port and
its Service port. Scraping is admitted by templates/metrics.yaml.
*/}}
{{- define "svc.metricsConfig" -}}
{{- if .Values.metrics.enabled }}
METRICS_PORT: {{ .Values.metrics.port | quote }}
{{- end }}
{{- end }}

{{- define "svc.metricsContainerPort" -}}
{{- if .Values.metrics.enabled }}
- name: metrics
  containerPort: {{ .Values.metrics.port }}
  protocol: TCP
{{- end }}
{{- end }}

{{- define "svc.metricsServicePort" -}}
{{- if .Values.metrics.enabled }}
- name: metrics
  port: {{ .Values.metrics.port }}
  targetPort: metrics
  protocol: TCP
  appProtocol: http
{{- end }}
{{- end }}

{{/* Selects the pods of every component of this release (not the migration Jobs). */}}
{{- define "svc.componentsSelector" -}}
matchLabels:
  app.kubernetes.io/name: {{ include "svc.name" . }}
  app.kubernetes.io/instance: {{ .Release.Name }}
matchExpressions:
  - key: app.kubernetes.io/component
    operator: In
    values: [gateway, identity, meeting, webhook]
{{- end }}

{{/* Node flags of every long-running process: services/platform/src/process-launch.ts says why. */}}
{{- define "svc.nodeFlags" -}}
"--max-semi-space-size=4"
{{- end }}

{{/*
The callers admitted to a gRPC port, as JSON: the given components plus, when tests.enabled, the
chart's own `helm test` pod (it checks every service's gRPC health). Call with
(dict "root" $ "callers" (list ...)) and read with fromJsonArray.
*/}}
{{- define "svc.grpcCallers" -}}
{{- $callers := .callers }}
{{- if .root.Values.tests.enabled }}
{{- $callers = append $callers "test" }}
{{- end }}
{{- toJson $callers }}
{{- end }}

{{/* How long a stopping process keeps serving (SHUTDOWN_DRAIN_SECONDS), in every component's ConfigMap. */}}
{{- define "svc.drainConfig" -}}
SHUTDOWN_DRAIN_SECONDS: {{ .Values.shutdownDrainSeconds | quote }}
{{- end }}

{{/*
Rolling updates never take a ready pod away before its replacement is ready (maxUnavailable 0),
one surge pod at a time.
*/}}
{{- define "svc.rollingUpdate" -}}
strategy:
  type: RollingUpdate
  rollingUpdate:
    maxUnavailable: 0
    maxSurge: 1
{{- end }}

{{/* "true" when recordings are kept on the recordings volume (recording on, storage type filesystem); empty otherwise (off, or S3). */}}
{{- define "svc.recordingVolume" -}}
{{- if and .Values.recording.enabled (eq .Values.recording.storage.type "filesystem") }}true{{ end }}
{{- end }}

{{/* The recordings volume's claim: recording.storage.existingClaim, or the chart's own. */}}
{{- define "svc.recordingClaimName" -}}
{{- .Values.recording.storage.existingClaim | default (include "svc.componentName" (dict "root" . "component" "recordings")) }}
{{- end }}

{{/* Egress's own image (GStreamer, Chromium, Xvfb, PulseAudio), pinned by digest when one is given. */}}
{{- define "svc.recordingImage" -}}
{{- $image := .Values.recording.image }}
{{- if $image.digest }}
{{- printf "%s@%s" $image.repository $image.digest }}
{{- else }}
{{- printf "%s:%s" $image.repository (default .Chart.AppVersion $image.tag) }}
{{- end }}
{{- end }}

{{/*
Where recordings and speakers' audio tracks are read (recording.storage): the meeting service's
environment and the transcription worker's, the same values. S3: the meeting service's reading
pair (egress's upload pair is the meeting service's alone).
*/}}
{{- define "svc.recordingReadEnv" -}}
{{- if .Values.recording.enabled }}
{{- $storage := .Values.recording.storage }}
- name: RECORDING_STORAGE
  value: {{ $storage.type | quote }}
{{- if eq $storage.type "s3" }}
- name: RECORDING_S3_ENDPOINT
  value: {{ $storage.s3.endpoint | quote }}
- name: RECORDING_S3_BUCKET
  value: {{ $storage.s3.bucket | quote }}
- name: RECORDING_S3_REGION
  value: {{ $storage.s3.region | quote }}
- name: RECORDING_S3_FORCE_PATH_STYLE
  value: {{ $storage.s3.forcePathStyle | quote }}
{{ include "svc.secretEnv" (dict "name" "RECORDING_S3_ACCESS_KEY_ID" "secret" $storage.s3.existingSecret "key" $storage.s3.accessKeyIdKey) }}
{{ include "svc.secretEnv" (dict "name" "RECORDING_S3_SECRET_ACCESS_KEY" "secret" $storage.s3.existingSecret "key" $storage.s3.secretAccessKeyKey) }}
{{- else }}
- name: RECORDING_DIR
  value: {{ $storage.mountPath | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/* The transcription worker's image: transcriber.image, its tag defaulting to the chart's appVersion. */}}
{{- define "svc.transcriberImage" -}}
{{- $image := .Values.transcriber.image }}
{{- if $image.digest }}
{{- printf "%s@%s" $image.repository $image.digest }}
{{- else }}
{{- printf "%s:%s" $image.repository (default .Chart.AppVersion $image.tag) }}
{{- end }}
{{- end }}
