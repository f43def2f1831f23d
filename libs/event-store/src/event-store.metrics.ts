import { Histogram } from 'prom-client';

/**
 * Event-store metrics, by schema (= service): how long an append waits for its commit, how long
 * a group commit's transaction takes, and how many appends and events share one.
 */
export const appendSeconds = new Histogram({
  name: 'coffer_event_store_append_duration_seconds',
  help: 'Time from an append being queued to its commit (or failure), by schema',
  labelNames: ['schema'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
});

export const commitSeconds = new Histogram({
  name: 'coffer_event_store_commit_duration_seconds',
  help: 'Duration of one group-commit transaction, by schema',
  labelNames: ['schema'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
});

export const batchAppends = new Histogram({
  name: 'coffer_event_store_batch_appends',
  help: 'Appends committed together in one group-commit transaction, by schema',
  labelNames: ['schema'] as const,
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
});

export const batchEvents = new Histogram({
  name: 'coffer_event_store_batch_events',
  help: 'Events written by one group-commit transaction, by schema',
  labelNames: ['schema'] as const,
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096],
});
