import { nestLogLevels } from './log-level';

describe('nestLogLevels', () => {
  it('enables the level and every more severe one', () => {
    expect(nestLogLevels('trace')).toEqual(['verbose', 'debug', 'log', 'warn', 'error', 'fatal']);
    expect(nestLogLevels('debug')).toEqual(['debug', 'log', 'warn', 'error', 'fatal']);
    expect(nestLogLevels('info')).toEqual(['log', 'warn', 'error', 'fatal']);
    expect(nestLogLevels('warn')).toEqual(['warn', 'error', 'fatal']);
    expect(nestLogLevels('error')).toEqual(['error', 'fatal']);
  });

  it('treats an unknown level as info', () => {
    expect(nestLogLevels('chatty')).toEqual(['log', 'warn', 'error', 'fatal']);
  });
});
