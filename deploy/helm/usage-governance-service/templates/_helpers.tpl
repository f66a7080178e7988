{{- define "ugs.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ugs.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "ugs.labels" -}}
app.kubernetes.io/name: {{ include "ugs.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "ugs.selector" -}}
app.kubernetes.io/name: {{ include "ugs.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ugs.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag -}}
{{- if eq $tag "latest" -}}{{- fail "image.tag: use a release version, never latest" -}}{{- end -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}

{{- define "ugs.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}{{ default (include "ugs.fullname" .) .Values.serviceAccount.name }}{{- else -}}{{ default "default" .Values.serviceAccount.name }}{{- end -}}
{{- end -}}

{{- define "ugs.secretName" -}}
{{- printf "%s-secrets" (include "ugs.fullname" .) -}}
{{- end -}}

{{/* The Secret holding DATABASE_URL: the chart's own or an existing one (one is required). */}}
{{- define "ugs.databaseSecret" -}}
{{- if .Values.database.existingSecret -}}{{ .Values.database.existingSecret }}
{{- else if .Values.database.url -}}{{ include "ugs.secretName" . }}
{{- else -}}{{ required "database.url or database.existingSecret is required (the chart does not run PostgreSQL)" nil }}
{{- end -}}
{{- end -}}

{{- define "ugs.databaseSecretKey" -}}
{{- if .Values.database.existingSecret -}}{{ .Values.database.existingSecretKey }}{{- else -}}DATABASE_URL{{- end -}}
{{- end -}}

{{/* The Secret holding DATA_ENCRYPTION_KEY: the chart's own or an existing one (one is required). */}}
{{- define "ugs.encryptionSecret" -}}
{{- if .Values.encryption.existingSecret -}}{{ .Values.encryption.existingSecret }}
{{- else if .Values.encryption.key -}}{{ include "ugs.secretName" . }}
{{- else -}}{{ required "encryption.key or encryption.existingSecret is required (the master key DATA_ENCRYPTION_KEY: openssl rand -base64 32)" nil }}
{{- end -}}
{{- end -}}

{{- define "ugs.encryptionSecretKey" -}}
{{- if .Values.encryption.existingSecret -}}{{ .Values.encryption.existingSecretKey }}{{- else -}}DATA_ENCRYPTION_KEY{{- end -}}
{{- end -}}

{{/* Changing one of these rolls the pods (checksum/config). */}}
{{- define "ugs.configChecksum" -}}
{{- printf "%s|%s|%s|%s|%s|%s" .Values.database.url .Values.database.listen.url .Values.database.read.url .Values.encryption.key .Values.metrics.token .Values.publicBaseUrl | sha256sum -}}
{{- end -}}

{{/* Environment shared by the API, the workers and the migration Job (which needs no other database URL). */}}
{{- define "ugs.env" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "ugs.databaseSecret" . }}
      key: {{ include "ugs.databaseSecretKey" . }}
- name: DATA_ENCRYPTION_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "ugs.encryptionSecret" . }}
      key: {{ include "ugs.encryptionSecretKey" . }}
- name: DATABASE_POOL_SIZE
  value: {{ .Values.database.poolSize | quote }}
- name: DATABASE_CONNECT_TIMEOUT_MS
  value: {{ .Values.database.connectTimeoutMs | quote }}
{{- if or .Values.metrics.token .Values.metrics.existingSecret }}
- name: METRICS_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ default (include "ugs.secretName" .) .Values.metrics.existingSecret }}
      key: {{ if .Values.metrics.existingSecret }}{{ .Values.metrics.existingSecretKey }}{{ else }}METRICS_TOKEN{{ end }}
{{- end }}
- name: PUBLIC_BASE_URL
  value: {{ .Values.publicBaseUrl | quote }}
{{- if .Values.smtpUrl }}
- name: SMTP_URL
  value: {{ .Values.smtpUrl | quote }}
{{- end }}
- name: MAIL_FROM
  value: {{ .Values.mailFrom | quote }}
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The environment of the API and the workers: ugs.env, then DATABASE_LISTEN_URL and DATABASE_READ_URL from a Secret, each left out when unset. */}}
{{- define "ugs.serviceEnv" -}}
{{ include "ugs.env" . }}
{{- $secretName := include "ugs.secretName" . -}}
{{- range $name, $given := dict "DATABASE_LISTEN_URL" .Values.database.listen "DATABASE_READ_URL" .Values.database.read }}
{{- if $given.existingSecret }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $given.existingSecret }}
      key: {{ default $name $given.existingSecretKey }}
{{- else if $given.url }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $secretName }}
      key: {{ $name }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "ugs.securityContext" -}}
runAsNonRoot: true
runAsUser: 1000
runAsGroup: 1000
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}
