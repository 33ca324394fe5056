import { describe, expect, it } from 'vitest';
import { ArgsError, readFlags } from './command-line.js';

describe('readFlags', () => {
  it('reads --flag value and --flag=value in order, skipping a leading --', () => {
    expect(readFlags(['--', '--a', '1', '--b=two', '--on'], new Set(['--on']))).toEqual([
      { flag: '--a', value: '1' },
      { flag: '--b', value: 'two' },
      { flag: '--on', value: '' },
    ]);
  });
  it('returns help as soon as --help or -h appears', () => {
    expect(readFlags(['--a', '1', '-h'])).toBe('help');
    expect(readFlags(['--help', 'junk'])).toBe('help');
  });
  it('refuses stray words, missing values and values on boolean flags', () => {
    expect(() => readFlags(['stray'])).toThrow(new ArgsError('unexpected argument "stray"'));
    expect(() => readFlags(['--a'])).toThrow(new ArgsError('--a needs a value'));
    expect(() => readFlags(['--a', '--b', '1'])).toThrow(new ArgsError('--a needs a value'));
    expect(() => readFlags(['--on=yes'], new Set(['--on']))).toThrow(new ArgsError('--on takes no value'));
  });
});
