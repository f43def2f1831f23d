import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { defineContract } from '../contract';
import { weakBool, weakString, weakStringMap } from '../fields';
import { engineContract, type OperationDef, type RouteDef } from '../routes';

/** Audit devices (sys/audit, sys/audit-hash, sys/config/auditing/request-headers). */

const pathParams = z.object({ path: z.string().default('') }).prefault({});
const headerParams = z.object({ header: z.string().default('') }).prefault({});

export const sysAuditEnableBody = z.object({
  type: weakString({ default: '', description: 'Type of the audit device: "file" or "socket" (required).' }),
  description: weakString({ default: '', description: 'Human-friendly description of the device.' }),
  options: weakStringMap({
    nulls: 'skip',
    bools: 'text',
    valueMessage: ({ key }) => `invalid value for option '${key}': expected a string`,
    description:
      'Device options: file_path, mode, format, prefix, log_raw, hmac_accessor, elide_list_responses (file); address, socket_type, write_timeout (socket).',
  }),
  local: weakBool({ default: false, description: 'Local device (not replicated).' }),
});
export type SysAuditEnableBody = z.output<typeof sysAuditEnableBody>;

const auditDeviceData = z.object({
  type: z.string(),
  description: z.string(),
  options: z.record(z.string(), z.string()),
  local: z.boolean(),
  path: z.string(),
});
/** GET sys/audit: "<path>/" → device (the envelope's data is the map itself). */
export const auditListData = z.record(z.string(), auditDeviceData);

const auditHashBody = z.object({ input: weakString({ default: '', description: 'The text to hash.' }) });
const auditHashData = z.object({ hash: z.string() });
const headerBody = z.object({
  hmac: weakBool({ default: false, description: 'Whether the header value is HMAC-ed in audit entries.' }),
});
const headerData = z.object({ hmac: z.boolean() });
const headersData = z.object({ headers: z.record(z.string(), headerData) });
const noData = z.object({});

export const auditContracts = {
  list: engineContract('core.sys.audit.list', { data: auditListData }),
  enable: engineContract('core.sys.audit.enable', {
    params: pathParams,
    body: sysAuditEnableBody.prefault({}),
    data: noData,
  }),
  disable: engineContract('core.sys.audit.disable', { params: pathParams, data: noData }),
  hash: engineContract('core.sys.audit.hash', {
    params: pathParams,
    body: auditHashBody.prefault({}),
    data: auditHashData,
  }),
  headersList: engineContract('core.sys.audit.headers-list', { data: headersData }),
  headerRead: engineContract('core.sys.audit.header-read', {
    params: headerParams,
    // Vault answers `{ "<header>": { hmac } }`
    data: z.record(z.string(), headerData),
  }),
  headerWrite: engineContract('core.sys.audit.header-write', {
    params: headerParams,
    body: headerBody.prefault({}),
    data: noData,
  }),
  headerDelete: engineContract('core.sys.audit.header-delete', { params: headerParams, data: noData }),
} as const;

/** One enabled device as the gateway needs it; the salt travels only over this internal subject. */
export const auditDeviceConfigSchema = z.object({
  path: z.string(),
  type: z.string(),
  options: z.record(z.string(), z.string()),
  /** the device's HMAC key */
  salt: z.string(),
});
export type AuditDeviceConfig = z.infer<typeof auditDeviceConfigSchema>;
export const auditedHeaderSchema = z.object({ name: z.string(), hmac: z.boolean() });
export type AuditedHeader = z.infer<typeof auditedHeaderSchema>;

/** The enabled devices and audited request headers, for the gateway (cached, "audit" invalidation). */
export const coreAuditConfig = defineContract(
  'core.audit.config',
  z.object({}),
  z.object({ devices: z.array(auditDeviceConfigSchema), headers: z.array(auditedHeaderSchema) }),
);

/** Vault's salt.GetIdentifiedHMAC: the one hash of audit entries and of sys/audit-hash. */
export function auditHmac(salt: string, value: string): string {
  return `hmac-sha256:${createHmac('sha256', salt).update(value).digest('hex')}`;
}

const op = (contract: OperationDef['contract'], summary: string): OperationDef => ({ contract, summary });
const a = auditContracts;

/** The audit routes of the `sys/` mount (spread into systemRoutes). */
export const auditRouteDefs: RouteDef[] = [
  {
    pattern: 'audit',
    restricted: true,
    synopsis: 'List the enabled audit devices.',
    description: 'Returns a map of device path to type, description, options and local flag. Requires sudo.',
    sudo: true,
    operations: { read: op(a.list, 'Lists audit devices.') },
  },
  {
    pattern: 'audit/:path*',
    restricted: true,
    invalidates: ['audit'],
    synopsis: 'Enable or disable audit devices.',
    description:
      'PUT enables an audit device of the given type (file, socket) at the path; DELETE disables it (its salt is lost). Requires sudo.',
    sudo: true,
    operations: {
      update: op(a.enable, 'Enables an audit device.'),
      delete: op(a.disable, 'Disables an audit device.'),
    },
  },
  {
    pattern: 'audit-hash/:path*',
    restricted: true,
    synopsis: 'The hash of the given string via the given audit device.',
    description: "Returns input HMAC-ed with the device's salt, as it would appear in its audit entries.",
    operations: { update: op(a.hash, 'Hashes a string with an audit device.') },
  },
  {
    pattern: 'config/auditing/request-headers',
    restricted: true,
    synopsis: 'Lists the headers configured to be audited.',
    description: 'Returns every request header audit entries record, with its hmac flag.',
    sudo: true,
    operations: {
      read: op(a.headersList, 'Lists audited request headers.'),
      list: op(a.headersList, 'Lists audited request headers.'),
    },
  },
  {
    pattern: 'config/auditing/request-headers/:header',
    restricted: true,
    invalidates: ['audit'],
    synopsis: 'Configures the headers sent to the audit logs.',
    description: 'POST records the header in audit entries (hmac=true hashes its value); DELETE stops it.',
    sudo: true,
    operations: {
      read: op(a.headerRead, 'Reads an audited header.'),
      update: op(a.headerWrite, 'Audits a request header.'),
      delete: op(a.headerDelete, 'Stops auditing a request header.'),
    },
  },
];
