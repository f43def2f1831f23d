import type { ColumnType, Selectable } from 'kysely';

type Json<T> = ColumnType<T, string, string>;

/** Read model of audit devices: never their salt (that stays in the event log). */
export interface AuditDevicesTable {
  path: string;
  type: string;
  description: string;
  options: Json<Record<string, string>>;
  local: boolean;
}

export interface AuditRequestHeadersTable {
  name: string;
  hmac: boolean;
}

export interface AuditDatabase {
  audit_devices: AuditDevicesTable;
  audit_request_headers: AuditRequestHeadersTable;
}

export type AuditDeviceRow = Selectable<AuditDevicesTable>;
export type AuditHeaderRow = Selectable<AuditRequestHeadersTable>;
