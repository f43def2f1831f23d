import { invalidRequest, parseDuration } from '@coffer/contracts';
import type { CrlConfig } from './settings.events';

/** config/crl's body: what the caller set (undefined: keep the current value). */
export type CrlConfigInput = { [K in keyof CrlConfig]?: CrlConfig[K] | undefined };

function seconds(value: string, field: string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    throw invalidRequest(`given ${field} could not be decoded: ${(error as Error).message}`);
  }
}

/**
 * The CRL configuration after a config/crl write, refused with Vault's texts, in its order: the
 * durations, unified_crl_on_existing_paths without unified_crl, a grace period not shorter than
 * the expiry, and cross_cluster_revocation or unified_crl without auto_rebuild (Vault builds the
 * unified CRL and works the cross-cluster queue on its rebuild timer).
 */
export function decideCrlConfig(current: CrlConfig, input: CrlConfigInput): CrlConfig {
  if (input.expiry !== undefined) seconds(input.expiry, 'expiry');
  if (input.auto_rebuild_grace_period !== undefined)
    seconds(input.auto_rebuild_grace_period, 'auto_rebuild_grace_period');
  const next: CrlConfig = { ...current };
  for (const key of Object.keys(next) as (keyof CrlConfig)[]) {
    const given = input[key];
    if (given !== undefined) (next as Record<keyof CrlConfig, unknown>)[key] = given;
  }
  if (next.unified_crl_on_existing_paths && !next.unified_crl)
    throw invalidRequest('unified_crl_on_existing_paths cannot be enabled if unified_crl is disabled');
  if (
    next.auto_rebuild &&
    seconds(next.auto_rebuild_grace_period, 'auto_rebuild_grace_period') >= seconds(next.expiry, 'expiry')
  )
    throw invalidRequest(
      `CRL auto-rebuilding grace period (${next.auto_rebuild_grace_period}) must be strictly shorter than CRL expiry (${next.expiry}) value when auto-rebuilding of CRLs is enabled`,
    );
  if (!next.auto_rebuild && next.cross_cluster_revocation)
    throw invalidRequest(
      'Global, cross-cluster revocation queue cannot be enabled when auto rebuilding is disabled as the local cluster may not have the certificate entry!',
    );
  if (!next.auto_rebuild && next.unified_crl)
    throw invalidRequest(
      'unified_crl=true requires auto_rebuild=true, as unified CRLs cannot be rebuilt on every revocation.',
    );
  return next;
}
