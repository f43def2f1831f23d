import type { LogLevel } from '@nestjs/common';

const NEST_LEVELS: readonly LogLevel[] = ['verbose', 'debug', 'log', 'warn', 'error', 'fatal'];
const FIRST_LEVEL: Readonly<Record<string, number>> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 };
const INFO = 2;

/**
 * Vault-style log_level (trace, debug, info, warn, error) to the Nest levels it enables: the
 * level itself and every more severe one. An unknown level means info.
 */
export function nestLogLevels(level: string): LogLevel[] {
  return NEST_LEVELS.slice(FIRST_LEVEL[level] ?? INFO);
}
