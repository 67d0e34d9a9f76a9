{{/*
Bitnami-style per-component pod options (podLabels, priorityClassName, extraEnvFrom,
extraVolumes/extraVolumeMounts, serviceAccount.annotations) and the zone topology spread.
Call each with the component's context: (dict "root" $ "component" "gateway" "values" .Values.gateway).
*/}}

{{/*
A pod template's labels: the chart's own and the component's podLabels. The chart's win, so a
podLabels entry can never take a pod out of its Service, NetworkPolicy or PodDisruptionBudget.
*/}}
{{- define "svc.podLabels" -}}
{{- $own := fromYaml (include "svc.labels" .) }}
{{- toYaml (merge $own (.values.podLabels | default dict)) }}
{{- end }}

{{/*
Spreads a component's pods over nodes and, with topologySpread.zone.enabled, over zones
(topology.kubernetes.io/zone), so one zone's loss leaves replicas in the others.
*/}}
{{- define "svc.topologySpread" -}}
{{- $zone := .root.Values.topologySpread.zone }}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "svc.selectorLabels" . | nindent 8 }}
{{- if $zone.enabled }}
  - maxSkew: {{ $zone.maxSkew }}
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: {{ $zone.whenUnsatisfiable }}
    labelSelector:
      matchLabels:
        {{- include "svc.selectorLabels" . | nindent 8 }}
{{- end }}
{{- end }}

{{/* The component's extraEnvFrom entries (ConfigMaps or Secrets of yours), after the chart's ConfigMap. */}}
{{- define "svc.extraEnvFrom" -}}
{{- with .values.extraEnvFrom }}
{{- toYaml . }}
{{- end }}
{{- end }}

{{/* A component's ServiceAccount annotations: serviceAccount.annotations, then its own serviceAccount.annotations (which win). */}}
{{- define "svc.serviceAccountAnnotations" -}}
{{- $own := dig "serviceAccount" "annotations" dict .values }}
{{- $all := merge (deepCopy $own) (.root.Values.serviceAccount.annotations | default dict) }}
{{- with $all }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
