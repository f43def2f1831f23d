import type { ServiceAggregate } from '@coffer/event-store';
import { RECORD_LOG } from './records/record.events';

/** Every aggregate of the directory event log: the service's registry is composed of these. */
export const DIRECTORY_LOGS: readonly ServiceAggregate[] = [RECORD_LOG];
