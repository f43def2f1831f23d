/** An error's message for a log line or a status reason (no stack; 'unknown error' for a non-Error). */
export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : 'unknown error';
