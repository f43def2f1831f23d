{{/* Names: "<release>-coffer", or the release name when it already contains "coffer". */}}
{{- define "coffer.fullname" -}}
{{- if contains "coffer" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-coffer" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "coffer.labels" -}}
app.kubernetes.io/part-of: coffer
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "coffer.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "coffer.fullname" .)) -}}
{{- end -}}

{{- define "coffer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "coffer.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{- define "coffer.natsUrl" -}}
{{- if .Values.nats.enabled -}}
{{- $name := ternary .Release.Name (printf "%s-nats" .Release.Name) (contains "nats" .Release.Name) -}}
{{- printf "nats://%s.%s.svc:4222" ($name | trunc 63 | trimSuffix "-") .Release.Namespace -}}
{{- else -}}
{{- required "nats.url is required when nats.enabled is false" .Values.nats.url -}}
{{- end -}}
{{- end -}}

{{- define "coffer.apiAddr" -}}
{{- $scheme := ternary "https" "http" .Values.tls.enabled -}}
{{- .Values.apiAddr | default (printf "%s://%s-gateway.%s.svc:%v" $scheme (include "coffer.fullname" .) .Release.Namespace .Values.listeners.api.port) -}}
{{- end -}}

{{/*
The services and their effective settings, as YAML: {services: [{name, summary, app, api,
replicas, autoscaling: {enabled, minReplicas, maxReplicas, target}, resources, pdb, ...}]}.
Defaults come from files/services.yaml (generated from the engine list), then serviceDefaults,
then services.<name>.
*/}}
{{- define "coffer.services" -}}
{{- $root := . -}}
{{- $list := list -}}
{{- range $svc := (.Files.Get "files/services.yaml" | fromYaml).services -}}
{{- $o := get $root.Values.services $svc.name | default dict -}}
{{- $d := $root.Values.serviceDefaults -}}
{{- $as := $o.autoscaling | default dict -}}
{{- $gen := $svc.autoscale | default dict -}}
{{- $op := $o.podDisruptionBudget | default dict -}}
{{- $pdb := dict
  "enabled" (ternary $op.enabled $d.podDisruptionBudget.enabled (hasKey $op "enabled"))
  "maxUnavailable" ($op.maxUnavailable | default $d.podDisruptionBudget.maxUnavailable) -}}
{{- $entry := dict
  "name" $svc.name
  "summary" $svc.summary
  "api" (default false $svc.api)
  "replicas" (ternary $o.replicas $svc.replicas (hasKey $o "replicas"))
  "autoscaling" (dict
    "enabled" (ternary $as.enabled (not (empty $gen)) (hasKey $as "enabled"))
    "minReplicas" ($as.minReplicas | default $gen.minReplicas | default $svc.replicas)
    "maxReplicas" ($as.maxReplicas | default $gen.maxReplicas | default $svc.replicas)
    "target" ($as.targetCPUUtilizationPercentage | default $d.autoscaling.targetCPUUtilizationPercentage))
  "resources" ($o.resources | default $d.resources)
  "pdb" $pdb
  "podAnnotations" (merge (dict) ($o.podAnnotations | default dict) $d.podAnnotations)
  "nodeSelector" ($o.nodeSelector | default $d.nodeSelector)
  "tolerations" ($o.tolerations | default $d.tolerations)
  "affinity" ($o.affinity | default $d.affinity)
  "extraEnv" (concat ($d.extraEnv | default list) ($o.extraEnv | default list))
-}}
{{- $list = append $list $entry -}}
{{- end -}}
{{- range $name, $_ := .Values.services -}}
{{- $known := false -}}
{{- range (($root.Files.Get "files/services.yaml" | fromYaml).services) -}}
{{- if eq .name $name }}{{ $known = true }}{{ end -}}
{{- end -}}
{{- if not $known -}}
{{- fail (printf "services.%s: no such service (see files/services.yaml)" $name) -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "services" $list) -}}
{{- end -}}
