/**
 * When to restart a process that died, as a supervisor does: exponential back-off from
 * `initialMs`, capped at `maxMs`, and forgotten once the process stayed up `resetAfterMs`.
 */
export interface RestartPolicy {
  initialMs: number;
  maxMs: number;
  resetAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialMs: 500,
  maxMs: 30_000,
  resetAfterMs: 60_000,
};

/** One process's history: restarts in a row so far, and when the current run started (ms). */
export interface RestartState {
  restarts: number;
  startedAt: number;
}

export interface RestartDecision {
  delayMs: number;
  /** the state of the process about to be started */
  next: (startedAt: number) => RestartState;
  /** 1 for the first restart in a row */
  attempt: number;
}

/** The delay before restarting a process that exited at `exitedAt` (ms, same clock as startedAt). */
export function planRestart(
  state: RestartState,
  exitedAt: number,
  policy: RestartPolicy = DEFAULT_RESTART_POLICY,
): RestartDecision {
  const stayedUp = exitedAt - state.startedAt >= policy.resetAfterMs;
  const attempt = stayedUp ? 1 : state.restarts + 1;
  const delayMs = Math.min(policy.maxMs, policy.initialMs * 2 ** (attempt - 1));
  return { delayMs, attempt, next: (startedAt) => ({ restarts: attempt, startedAt }) };
}
