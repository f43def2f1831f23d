/**
 * Version reported by sys/seal-status, sys/health and the mount listings. Clients such as the
 * Vault CLI only display it; it follows the Coffer release.
 */
export const SERVICE_VERSION = '0.1.0';
/** Build date of this release (RFC 3339); empty until release builds stamp it. */
export const BUILD_DATE = '';
