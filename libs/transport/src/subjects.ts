import type { Attributes } from '@opentelemetry/api';

/**
 * Span attribute keys: the only attributes transport spans carry (never payloads or headers).
 * Server spans name the serving service (its queue group); client spans name the called one as
 * peer.service, leaving coffer.service to the calling service (stamped by @coffer/telemetry).
 */
export const ATTR_SUBJECT = 'messaging.destination.name';
export const ATTR_SERVICE = 'coffer.service';
export const ATTR_PEER_SERVICE = 'peer.service';

const TOKEN = /^[A-Za-z0-9_-]+$/;

/** Whether `subject` is a dot-separated list of plain NATS tokens (no wildcards, no spaces). */
export function isValidSubject(subject: string): boolean {
  if (subject.length === 0) return false;
  for (const token of subject.split('.')) if (!TOKEN.test(token)) return false;
  return true;
}

/** The service a subject belongs to: its first segment ("kv.v2.data.read" -> "kv"). */
export function serviceOf(subject: string): string {
  const dot = subject.indexOf('.');
  const head = dot === -1 ? subject : subject.slice(0, dot);
  // core-sys's contracts are named "core.*" (core.token.resolve, core.sys.mounts...)
  return head === 'core' ? 'core-sys' : head;
}

export function prefixSubject(prefix: string, subject: string): string {
  return prefix === '' ? subject : `${prefix}.${subject}`;
}

/** Everything the hot path derives from a relative subject, computed once per subject. */
export interface SubjectInfo {
  readonly subject: string;
  readonly wire: string;
  readonly service: string;
  readonly clientSpanName: string;
  readonly clientAttributes: Attributes;
}

export function assertPrefix(prefix: string): void {
  if (prefix !== '' && !isValidSubject(prefix))
    throw new Error(`invalid transport subject prefix "${prefix}"`);
}

/** Per-transport cache: contracts are a finite set, so this never grows beyond them. */
export class SubjectTable {
  private readonly infos = new Map<string, SubjectInfo>();

  constructor(readonly prefix: string) {
    assertPrefix(prefix);
  }

  get(subject: string): SubjectInfo {
    let info = this.infos.get(subject);
    if (info === undefined) {
      if (!isValidSubject(subject)) throw new Error(`invalid transport subject "${subject}"`);
      const service = serviceOf(subject);
      info = {
        subject,
        wire: prefixSubject(this.prefix, subject),
        service,
        clientSpanName: `send ${subject}`,
        clientAttributes: { [ATTR_SUBJECT]: subject, [ATTR_PEER_SERVICE]: service },
      };
      this.infos.set(subject, info);
    }
    return info;
  }
}
