export { IntervalLoop, type IntervalLoopOptions } from './interval-loop';
export { SweepJob } from './sweep-job';
export { runJob } from './job-span';
export { DrStandby } from './dr-standby';
