import { z } from 'zod';
import { pkiRoleDataSchema } from '@coffer/contracts/pki';
import { defineAggregateLog, defineEvent } from '@coffer/event-store';
import { documentStream, type DocumentAppend } from '../shared/document.projection';

/** A role of a mount (stream `pki-role/<mount uuid>/<name>`). */
export const roleWritten = defineEvent('PkiRoleWritten', 1, z.object({ role: pkiRoleDataSchema }));
export const roleDeleted = defineEvent('PkiRoleDeleted', 1, z.object({}));

export const ROLE_EVENT_TYPES = { written: roleWritten, deleted: roleDeleted } as const;

export const ROLE_LOG = defineAggregateLog({
  description: 'a pki role event',
  events: ROLE_EVENT_TYPES,
  stream: (a: DocumentAppend) => documentStream(a),
});
