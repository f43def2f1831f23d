import { DomainError } from '@coffer/contracts';
import { Histogram } from 'prom-client';

const buckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Requests this process sent, by contract subject, called service and outcome ("ok" or the error code). */
export const transportRequestSeconds = new Histogram({
  name: 'coffer_transport_request_duration_seconds',
  help: 'Round trip of transport requests sent, by subject, called service and outcome',
  labelNames: ['subject', 'service', 'outcome'] as const,
  buckets,
});

/** Requests this process handled, by contract subject, serving service (queue group) and outcome. */
export const transportHandlerSeconds = new Histogram({
  name: 'coffer_transport_handler_duration_seconds',
  help: 'Handling time of transport requests served, by subject, service and outcome',
  labelNames: ['subject', 'service', 'outcome'] as const,
  buckets,
});

/** "ok", or the error code an answer failed with (codes are a closed list: bounded labels). */
export function outcomeOf(error?: unknown): string {
  if (error === undefined) return 'ok';
  return error instanceof DomainError ? error.code : 'internal';
}
