import type { ServiceAggregate } from '@coffer/event-store';
import { OTP_LOG } from './otp/otp.events';
import { RECORD_LOG } from './records/record.events';

/** Every aggregate of the ssh event log: the service's registry is composed of these. */
export const SSH_LOGS: readonly ServiceAggregate[] = [RECORD_LOG, OTP_LOG];
