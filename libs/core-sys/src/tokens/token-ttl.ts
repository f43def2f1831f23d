import { DomainError } from '@coffer/contracts';

/** The system default and maximum lease TTL (Vault's 768h = 32 days), in seconds. */
export const SYSTEM_DEFAULT_TTL = 768 * 3600;
export const SYSTEM_MAX_TTL = 768 * 3600;

/** A mount's effective TTL settings in seconds (its tuned values, or the system's when 0). */
export interface MountTtls {
  defaultTtl: number;
  maxTtl: number;
}

export function mountTtls(config?: { default_lease_ttl: number; max_lease_ttl: number }): MountTtls {
  const maxTtl = config && config.max_lease_ttl > 0 ? config.max_lease_ttl : SYSTEM_MAX_TTL;
  const defaultTtl = config && config.default_lease_ttl > 0 ? config.default_lease_ttl : SYSTEM_DEFAULT_TTL;
  // A mount default above its max would be capped by CalculateTTL anyway; keep it consistent here.
  return { defaultTtl: Math.min(defaultTtl, maxTtl), maxTtl };
}

export interface TtlInput {
  /** requested increment (renewals), seconds; 0 = none */
  increment: number;
  /** the backend's TTL (token ttl / user token_ttl), seconds; 0 = mount default */
  backendTtl: number;
  /** periodic tokens: the period, seconds; 0 = not periodic */
  period: number;
  /** backend max (user token_max_ttl), seconds; 0 = none */
  backendMaxTtl: number;
  /** token explicit_max_ttl, seconds; 0 = none */
  explicitMaxTtl: number;
  /** start of the lease (creation time), unix ms */
  startMs: number;
  nowMs: number;
  mount: MountTtls;
}

export interface TtlResult {
  ttl: number;
  warnings: string[];
}

/**
 * Vault's framework.CalculateTTL: the TTL granted for a new or renewed token. Periodic tokens
 * get their period (bounded only by explicit_max_ttl); others get the increment, the backend TTL
 * or the mount default, never past start + max TTL (the least of mount, backend and explicit max).
 */
export function calculateTtl(input: TtlInput): TtlResult {
  const warnings: string[] = [];
  let maxTtl = input.mount.maxTtl;
  if (input.backendMaxTtl > 0 && input.backendMaxTtl < maxTtl) maxTtl = input.backendMaxTtl;
  if (input.explicitMaxTtl > 0 && input.explicitMaxTtl < maxTtl) maxTtl = input.explicitMaxTtl;
  if (maxTtl <= 0) throw new DomainError('internal', 'max TTL must be greater than zero');

  let ttl: number;
  let maxValidMs: number | undefined;
  if (input.period > 0) {
    let period = input.period;
    if (period > maxTtl) {
      warnings.push(
        `period of "${humanDuration(period)}" exceeded the effective max_ttl of "${humanDuration(maxTtl)}"; period value is capped accordingly`,
      );
      period = maxTtl;
    }
    ttl = period;
    if (input.explicitMaxTtl > 0) maxValidMs = truncSecond(input.startMs) + input.explicitMaxTtl * 1000;
  } else {
    if (input.increment > 0) ttl = input.increment;
    else if (input.backendTtl > 0) ttl = input.backendTtl;
    else ttl = input.mount.defaultTtl;
    maxValidMs = truncSecond(input.startMs) + maxTtl * 1000;
  }

  if (maxValidMs !== undefined) {
    // Whole seconds on both sides, like Vault (which truncates times to the second).
    const maxValidTtl = Math.floor(maxValidMs / 1000) - Math.floor(input.nowMs / 1000);
    if (maxValidTtl <= 0) throw new DomainError('invalid_request', 'past the max TTL, cannot renew');
    if (maxValidTtl < ttl) {
      warnings.push(
        `TTL of "${humanDuration(ttl)}" exceeded the effective max_ttl of "${humanDuration(maxValidTtl)}"; TTL value is capped accordingly`,
      );
      ttl = maxValidTtl;
    }
  }
  return { ttl, warnings };
}

const truncSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

/** Vault's humanDuration: Go's Duration.String() without trailing zero units ("768h", "1m30s"). */
export function humanDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  const neg = seconds < 0;
  let rest = Math.abs(Math.trunc(seconds));
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  const s = rest - m * 60;
  let out: string;
  if (h > 0) out = `${h}h${m}m${s}s`;
  else if (m > 0) out = `${m}m${s}s`;
  else out = `${s}s`;
  if (out.endsWith('m0s')) out = out.slice(0, -2);
  const idx = out.indexOf('h0m');
  if (idx > 0) out = out.slice(0, idx + 1) + out.slice(idx + 3);
  return neg ? `-${out}` : out;
}
