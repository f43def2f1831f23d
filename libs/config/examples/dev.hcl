# Coffer in one process (apps/dev) with embedded PGlite storage: the same as running without a
# config file, but explicit. Remove `path` to keep everything in memory.

log_level = "debug"

listener "tcp" {
  address     = "127.0.0.1:8200"
  purpose     = "api"
  tls_disable = true
}

listener "tcp" {
  address     = "127.0.0.1:9203"
  purpose     = "ops"
  tls_disable = true
}

storage "pglite" {
  path = ".coffer/data"
}

controller {
  graceful_shutdown_wait_duration = "0s"
}
