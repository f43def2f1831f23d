import fc from 'fast-check';
import { DomainError } from '../domain-errors';
import {
  formatDuration,
  formatNanos,
  parseDuration,
  parseDurationMs,
  parseDurationNanos,
  parseGoDuration,
} from './duration';

describe('parseDuration (Vault ParseDurationSecond)', () => {
  it.each<[string | number, number]>([
    ['30m', 1800],
    ['1h30m', 5400],
    ['90s', 90],
    ['0s', 0],
    ['0', 0],
    ['10', 10],
    [10, 10],
    ['72h', 259200],
    ['768h', 2764800],
    ['1d', 86400],
    ['30d', 2592000],
    ['-5', -5],
    ['+5', 5],
    ['1.5h', 5400],
    ['1500ms', 1],
    ['999ms', 0],
    ['2h45m30s', 9930],
    ['1000000us', 1],
    ['1000000µs', 1],
    ['1000000000ns', 1],
    ['-1m', -60],
    ['', 0],
    ['.5m', 30],
  ])('%j -> %d', (input, seconds) => {
    expect(parseDuration(input)).toBe(seconds);
  });

  it('keeps sub-second precision in the other units', () => {
    expect(parseDurationMs('1.5s')).toBe(1500);
    expect(parseDurationMs('250ms')).toBe(250);
    expect(parseDurationNanos('1.000000001s')).toBe(1_000_000_001n);
  });

  it.each<[string | number, string]>([
    ['abc', 'time: invalid duration "abc"'],
    ['10x', 'time: unknown unit "x" in duration "10x"'],
    ['1.5', 'time: missing unit in duration "1.5"'],
    [1.5, 'time: missing unit in duration "1.5"'],
    ['1.5d', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    ['d', 'strconv.ParseInt: parsing "": invalid syntax'],
    ['1h2d', 'strconv.ParseInt: parsing "1h2": invalid syntax'],
    ['-', 'time: invalid duration "-"'],
    ['.s', 'time: invalid duration ".s"'],
    ['1 h', 'time: unknown unit " h" in duration "1 h"'],
    ['9999999999h', 'time: invalid duration "9999999999h"'],
    [Number.POSITIVE_INFINITY, 'time: invalid duration "Infinity"'],
  ])('%j is rejected with %s', (input, message) => {
    let error: unknown;
    try {
      parseDuration(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('invalid_request');
    expect((error as DomainError).message).toBe(message);
  });

  it('parses Go durations piece by piece', () => {
    expect(parseGoDuration('1h1m1s1ms1us1ns')).toBe(3_661_001_001_001n);
  });
});

describe('formatDuration (Go Duration.String)', () => {
  it.each([
    [0, '0s'],
    [1, '1s'],
    [59, '59s'],
    [60, '1m0s'],
    [1800, '30m0s'],
    [3600, '1h0m0s'],
    [5430, '1h30m30s'],
    [2764800, '768h0m0s'],
    [-90, '-1m30s'],
    [1.5, '1.5s'],
    [0.0015, '1.5ms'],
    [0.000002, '2µs'],
    [1e-9, '1ns'],
    [61.25, '1m1.25s'],
  ])('%d -> %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  it('round-trips whole seconds through parseDuration', () => {
    fc.assert(
      fc.property(fc.integer({ min: -9_000_000_000, max: 9_000_000_000 }), (s) => {
        expect(parseDuration(formatDuration(s))).toBe(s);
      }),
    );
  });

  it('round-trips nanoseconds through parseGoDuration', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }), (ns) => {
        expect(parseGoDuration(formatNanos(ns))).toBe(ns);
      }),
    );
  });
});
