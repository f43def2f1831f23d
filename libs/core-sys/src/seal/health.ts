import { weakBool, type SysHealthStatusRaw } from '@coffer/contracts';

/**
 * sys/health status code selection (Vault http/sys_health.go). Every replica of core-sys is
 * active (there are no standbys and no DR secondaries here), but the query parameters are parsed
 * and validated exactly as Vault does, so clients that pass them get the same answers.
 */

export interface HealthState {
  initialized: boolean;
  sealed: boolean;
  standby: boolean;
  performanceStandby: boolean;
  drSecondary: boolean;
}

const DEFAULT_CODES = {
  activecode: 200,
  standbycode: 429,
  drsecondarycode: 472,
  performancestandbycode: 473,
  sealedcode: 503,
  uninitcode: 501,
  removedcode: 530,
  haunhealthycode: 474,
} as const;
type CodeParam = keyof typeof DEFAULT_CODES;

/** The query string as received (values are text). */
export type HealthQuery = Readonly<Record<string, string | undefined>>;

export type HealthDecision = { ok: true; status: number } | { ok: false; status: 400 };

function statusCode(query: HealthQuery, name: CodeParam): number | undefined {
  const raw = query[name];
  if (raw === undefined) return DEFAULT_CODES[name];
  // strconv.Atoi: optional sign, decimal digits only
  if (!/^[+-]?\d+$/.test(raw)) return undefined;
  return Number(raw);
}

/** strconv.ParseBool, which refuses "" unlike a JSON field. */
const goBool = weakBool({ strictNumbers: true });

function flag(query: HealthQuery, name: string): boolean | undefined {
  const raw = query[name];
  if (raw === undefined) return false;
  if (raw === '') return undefined;
  const parsed = goBool.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** Picks the status: uninit, sealed, DR secondary, perf standby, standby, active, in that order. */
export function decideHealthStatus(state: HealthState, query: HealthQuery): HealthDecision {
  const standbyOk = flag(query, 'standbyok');
  const perfStandbyOk = flag(query, 'perfstandbyok');
  if (standbyOk === undefined || perfStandbyOk === undefined) return { ok: false, status: 400 };
  const codes = {} as Record<CodeParam, number>;
  for (const name of Object.keys(DEFAULT_CODES) as CodeParam[]) {
    const code = statusCode(query, name);
    if (code === undefined) return { ok: false, status: 400 };
    codes[name] = code;
  }
  if (!state.initialized) return { ok: true, status: codes.uninitcode };
  if (state.sealed) return { ok: true, status: codes.sealedcode };
  if (state.drSecondary) return { ok: true, status: codes.drsecondarycode };
  // A performance standby is also a standby; like Vault's switch, only its own flag applies to it,
  // so standbyok never turns a performance standby into activecode.
  if (state.performanceStandby) {
    return { ok: true, status: perfStandbyOk ? codes.activecode : codes.performancestandbycode };
  }
  if (state.standby && !standbyOk) return { ok: true, status: codes.standbycode };
  return { ok: true, status: codes.activecode };
}

export interface HealthBodyInput extends HealthState {
  now: Date;
  version: string;
  cluster: { name: string; id: string } | undefined;
}

/** The JSON body of GET sys/health (reference §1.1). */
export function healthBody(s: HealthBodyInput): SysHealthStatusRaw {
  const body: SysHealthStatusRaw = {
    initialized: s.initialized,
    sealed: s.sealed,
    standby: s.standby,
    performance_standby: s.performanceStandby,
    replication_performance_mode: 'disabled',
    replication_dr_mode: 'disabled',
    server_time_utc: Math.floor(s.now.getTime() / 1000),
    version: s.version,
    enterprise: false,
    echo_duration_ms: 0,
    clock_skew_ms: 0,
    replication_primary_canary_age_ms: 0,
  };
  if (s.initialized && !s.sealed && s.cluster) {
    body.cluster_name = s.cluster.name;
    body.cluster_id = s.cluster.id;
  }
  return body;
}
