import { DomainError } from '@coffer/contracts';
import type { AuditEvent } from './audit.events';

export interface AuditDevice {
  path: string;
  type: string;
  description: string;
  options: Record<string, string>;
  local: boolean;
  salt: string;
}

export interface AuditState {
  devices: Record<string, AuditDevice>;
  headers: Record<string, { hmac: boolean }>;
}

export const EMPTY_AUDIT_STATE: AuditState = { devices: {}, headers: {} };

export type AuditCommand =
  | {
      kind: 'enable';
      path: string;
      type: string;
      description: string;
      options: Record<string, string>;
      local: boolean;
      salt: string;
      now: number;
    }
  | { kind: 'disable'; path: string; now: number }
  | { kind: 'setHeader'; name: string; hmac: boolean }
  | { kind: 'removeHeader'; name: string };

const DEVICE_TYPES = ['file', 'socket'];
const SOCKET_TYPES = ['tcp', 'unix'];

/** "file" → "file/": devices are keyed by their path with one trailing slash. */
export function normaliseAuditPath(path: string): string {
  const trimmed = path.replace(/^\/+/, '').replace(/\/+$/, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

function invalid(message: string): DomainError {
  return new DomainError('invalid_request', message);
}

/** Vault's checks of an audit device's type and options (builtin/audit/file and socket factories). */
function checkOptions(type: string, options: Record<string, string>): DomainError | undefined {
  if (!DEVICE_TYPES.includes(type)) return invalid(`unknown backend type: "${type}"`);
  const format = options['format'] ?? 'json';
  if (format !== 'json' && format !== 'jsonx') return invalid(`unknown format type "${format}"`);
  for (const flag of ['log_raw', 'hmac_accessor', 'elide_list_responses']) {
    const value = options[flag];
    if (value !== undefined && !['true', 'false', '1', '0'].includes(value))
      return invalid(`unable to parse '${flag}': strconv.ParseBool: parsing "${value}": invalid syntax`);
  }
  if (type === 'file') {
    const filePath = options['file_path'] ?? options['path'];
    if (filePath === undefined || filePath === '') return invalid('file_path is required');
    const mode = options['mode'];
    if (mode !== undefined && !/^[0-7]{1,4}$/.test(mode)) return invalid(`invalid file mode "${mode}"`);
  } else {
    if (!options['address']) return invalid('address is required');
    const socketType = options['socket_type'] ?? 'tcp';
    if (!SOCKET_TYPES.includes(socketType)) return invalid(`unsupported socket_type "${socketType}"`);
  }
  return undefined;
}

export function decide(state: AuditState, command: AuditCommand): AuditEvent[] | DomainError {
  switch (command.kind) {
    case 'enable': {
      if (command.path === '') return invalid('missing audit path');
      if (state.devices[command.path]) return invalid('path already in use');
      const error = checkOptions(command.type, command.options);
      if (error) return error;
      const { kind: _k, now, ...device } = command;
      return [{ type: 'AuditDeviceEnabled', data: { ...device, enabledAt: now } }];
    }
    case 'disable':
      // Vault answers 204 for a path with no device
      if (!state.devices[command.path]) return [];
      return [{ type: 'AuditDeviceDisabled', data: { path: command.path, disabledAt: command.now } }];
    case 'setHeader':
      if (command.name === '') return invalid('missing header name');
      if (state.headers[command.name]?.hmac === command.hmac) return [];
      return [{ type: 'AuditHeaderSet', data: { name: command.name, hmac: command.hmac } }];
    case 'removeHeader':
      if (!state.headers[command.name]) return [];
      return [{ type: 'AuditHeaderRemoved', data: { name: command.name } }];
  }
}

export function evolve(state: AuditState, event: AuditEvent): AuditState {
  switch (event.type) {
    case 'AuditDeviceEnabled': {
      const { enabledAt: _e, ...device } = event.data;
      return { ...state, devices: { ...state.devices, [device.path]: device } };
    }
    case 'AuditDeviceDisabled': {
      const { [event.data.path]: _gone, ...devices } = state.devices;
      return { ...state, devices };
    }
    case 'AuditHeaderSet':
      return { ...state, headers: { ...state.headers, [event.data.name]: { hmac: event.data.hmac } } };
    case 'AuditHeaderRemoved': {
      const { [event.data.name]: _gone, ...headers } = state.headers;
      return { ...state, headers };
    }
  }
}

export const foldAudit = (events: readonly AuditEvent[]): AuditState =>
  events.reduce(evolve, EMPTY_AUDIT_STATE);
