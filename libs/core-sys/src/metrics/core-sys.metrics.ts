import { Gauge } from 'prom-client';

/** What the gauges below read at scrape time; set by the running core-sys (one per process). */
export interface CoreSysMetricSource {
  sealState(): Promise<{ initialized: boolean; sealed: boolean }>;
  leaseCounts(): Promise<{ total: number; irrevocable: number }>;
}

let source: CoreSysMetricSource | undefined;

export function setCoreSysMetricSource(next: CoreSysMetricSource | undefined): void {
  source = next;
}

const sealedGauge = new Gauge({
  name: 'coffer_sealed',
  help: '1 while this core-sys replica is sealed, 0 once unsealed',
  async collect() {
    if (source) this.set((await source.sealState()).sealed ? 1 : 0);
  },
});

const initializedGauge = new Gauge({
  name: 'coffer_initialized',
  help: '1 once the cluster is initialised',
  async collect() {
    if (source) this.set((await source.sealState()).initialized ? 1 : 0);
  },
});

/** Vault's own name, so dashboards built for Vault read Coffer too. */
const vaultUnsealedGauge = new Gauge({
  name: 'vault_core_unsealed',
  help: '1 while unsealed (Vault-compatible name)',
  async collect() {
    if (source) this.set((await source.sealState()).sealed ? 0 : 1);
  },
});

const leasesGauge = new Gauge({
  name: 'coffer_leases',
  help: 'Leases held by the cluster, by state',
  labelNames: ['state'] as const,
  async collect() {
    if (!source) return;
    // Sealed, the lease table is still readable (it holds no secrets in clear); a failed read
    // leaves the last values rather than failing the scrape.
    const counts = await source.leaseCounts().catch(() => undefined);
    if (!counts) return;
    this.set({ state: 'revocable' }, counts.total - counts.irrevocable);
    this.set({ state: 'irrevocable' }, counts.irrevocable);
  },
});

/** Vault's expire.num_leases. */
const vaultLeasesGauge = new Gauge({
  name: 'vault_expire_num_leases',
  help: 'Leases held by the cluster (Vault-compatible name)',
  async collect() {
    const counts = source ? await source.leaseCounts().catch(() => undefined) : undefined;
    if (counts) this.set(counts.total);
  },
});

export const CORE_SYS_GAUGES = [
  sealedGauge,
  initializedGauge,
  vaultUnsealedGauge,
  leasesGauge,
  vaultLeasesGauge,
];
