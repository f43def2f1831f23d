import { randomBytes } from 'node:crypto';

let counter = 0;

/** Lower-case [a-z0-9_] slug of a label, at most `max` characters. */
export function slug(label: string, max = 24): string {
  const s = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return (s || 'x').slice(0, max);
}

/** A name unique to this process and call: `<label>_<pid>_<time36>_<n><rand>`. */
export function uniqueName(label: string, max = 24): string {
  counter += 1;
  return `${slug(label, max)}_${process.pid}_${Date.now().toString(36)}_${counter}${randomBytes(2).toString('hex')}`;
}

/**
 * A single NATS subject token unique to this test run, to use as the transport's subject prefix
 * so parallel test files (and stale subscribers of earlier runs) never see each other's traffic.
 */
export function uniqueSubjectPrefix(label: string): string {
  return `t-${uniqueName(label).replace(/_/g, '-')}`;
}
