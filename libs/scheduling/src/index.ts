export { IntervalLoop, type IntervalLoopOptions } from './interval-loop';
