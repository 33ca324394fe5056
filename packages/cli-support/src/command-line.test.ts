import { describe, expect, it } from 'vitest';
import { ArgsError, readFlags } from './command-line.js';

const spec = { values: ['--a', '--b'], booleans: ['--on'] };

describe('readFlags', () => {
  it('reads --flag value and --flag=value in order, repeats included, skipping a leading --', () => {
    expect(readFlags(['--', '--a', '1', '--b=two', '--on', '--a', '3'], spec)).toEqual([
      { flag: '--a', value: '1' },
      { flag: '--b', value: 'two' },
      { flag: '--on', value: '' },
      { flag: '--a', value: '3' },
    ]);
  });
  it('returns help when --help or -h is given', () => {
    expect(readFlags(['--a', '1', '-h'], spec)).toBe('help');
    expect(readFlags(['--help'], spec)).toBe('help');
  });
  it('refuses unknown flags, stray words, missing values and values on boolean flags', () => {
    expect(() => readFlags(['--bogus', '1'], spec)).toThrow(new ArgsError('unknown flag --bogus'));
    expect(() => readFlags(['stray'], spec)).toThrow(new ArgsError('unexpected argument "stray"'));
    expect(() => readFlags(['--a'], spec)).toThrow(new ArgsError('--a needs a value'));
    expect(() => readFlags(['--a', '--b', '1'], spec)).toThrow(new ArgsError('--a needs a value'));
    expect(() => readFlags(['--on=yes'], spec)).toThrow(new ArgsError('--on takes no value'));
  });
});
