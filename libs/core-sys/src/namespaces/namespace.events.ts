import { z } from 'zod';
import { stringMapSchema } from '@coffer/contracts';
import { defineAggregateLog, defineEvent, type EventOf } from '@coffer/event-store';

/**
 * The namespace tree is one aggregate, one stream (`namespaces/tree`): a namespace needs its
 * parent, and a parent with children cannot be deleted, so every change is decided against the
 * whole tree and appended at the revision read. Paths are full, with a trailing slash.
 */
export const NAMESPACES_STREAM = 'namespaces/tree';

export const namespaceCreated = defineEvent(
  'NamespaceCreated',
  1,
  z.object({ id: z.string(), path: z.string(), customMetadata: stringMapSchema }),
);
export const namespaceMetadataSet = defineEvent(
  'NamespaceMetadataSet',
  1,
  z.object({ path: z.string(), customMetadata: stringMapSchema }),
);
/** Deletion started: the namespace answers nothing from now on, its contents are being removed. */
export const namespaceDeletionStarted = defineEvent(
  'NamespaceDeletionStarted',
  1,
  z.object({ path: z.string() }),
);
export const namespaceDeleted = defineEvent('NamespaceDeleted', 1, z.object({ path: z.string() }));

/** API lock: requests into the namespace and its descendants get 503 (exempt paths aside). */
export const namespaceApiLocked = defineEvent(
  'NamespaceApiLocked',
  1,
  z.object({ path: z.string(), unlockKeyHash: z.string() }),
);
export const namespaceApiUnlocked = defineEvent('NamespaceApiUnlocked', 1, z.object({ path: z.string() }));

export const NAMESPACE_EVENT_TYPES = {
  created: namespaceCreated,
  metadataSet: namespaceMetadataSet,
  deletionStarted: namespaceDeletionStarted,
  deleted: namespaceDeleted,
  apiLocked: namespaceApiLocked,
  apiUnlocked: namespaceApiUnlocked,
} as const;
export type NamespaceEvent = EventOf<typeof NAMESPACE_EVENT_TYPES>;

export const NAMESPACE_LOG = defineAggregateLog({
  description: 'a namespace event',
  events: NAMESPACE_EVENT_TYPES,
  stream: () => NAMESPACES_STREAM,
});
