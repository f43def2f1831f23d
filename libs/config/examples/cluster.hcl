# Coffer server configuration for the local cluster (tools/cluster-supervisor.ts): every service runs as
# its own process, they talk over NATS and keep their event logs in PostgreSQL.
# Values can be overridden with COFFER_* environment variables (COFFER_DATABASE_URL,
# COFFER_NATS_URL, COFFER_CLUSTER_SECRET, COFFER_SUBJECT_PREFIX, ...).

log_level = "info"
api_addr  = "http://127.0.0.1:8200"

# HMAC key proving that an engine service belongs to this cluster when it asks core-sys for
# the barrier keyring. Use a long random value and keep it out of version control in real
# deployments (COFFER_CLUSTER_SECRET).
cluster_secret = "local-cluster-secret-change-me-0123456789"

listener "tcp" {
  address          = "127.0.0.1:8200"
  purpose          = "api"
  tls_disable      = true
  max_request_size = 33554432
}

listener "tcp" {
  address     = "127.0.0.1:9203"
  purpose     = "ops"
  tls_disable = true
}

storage "postgresql" {
  connection_url  = "postgres://postgres@127.0.0.1:5432/coffer"
  max_connections = 10
}

nats {
  url            = "nats://127.0.0.1:4222"
  subject_prefix = "coffer"
}

controller {
  graceful_shutdown_wait_duration = "5s"
}

telemetry {
  # otlp_endpoint = "http://127.0.0.1:4318"
}

default_lease_ttl = "768h"
max_lease_ttl     = "768h"

# Replicas started by the local cluster launcher.
service "gateway" {
  replicas = 2
}

service "core-sys" {
  replicas = 1
}

service "kv" {
  replicas = 2
}
