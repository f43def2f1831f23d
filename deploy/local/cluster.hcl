# Coffer cluster mode on one machine: `npm run cluster` (or `npm run cluster -- --init` the first
# time). Every process reads this file; COFFER_DATABASE_URL, COFFER_NATS_URL and
# COFFER_CLUSTER_SECRET override the values below.

cluster_name = "coffer-local"

# Authenticates engine services to core-sys when they fetch the barrier keyring. Local use only:
# a real deployment sets COFFER_CLUSTER_SECRET from a secret store.
cluster_secret = "local-cluster-secret-change-me-0123456789"

log_level = "info"

controller {
  # /health on the ops listener answers 503 for this long before the gateway stops.
  graceful_shutdown_wait_duration = "0s"
}

listener "tcp" {
  purpose          = "api"
  address          = "127.0.0.1:8200"
  tls_disable      = true
  max_request_size = 33554432
}

listener "tcp" {
  purpose     = "ops"
  address     = "127.0.0.1:9203"
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

service "core-sys" {
  replicas = 1
}

service "kv" {
  replicas = 2
}
