/** A command-line argument that breaks a rule; the commands print it with their usage and exit 2. */
export class ArgsError extends Error {
  override name = 'ArgsError';
}

export interface Flag {
  flag: string;
  /** The flag's value; '' for a boolean flag. */
  value: string;
}

/**
 * Splits `--flag value` and `--flag=value` arguments in order; a leading `--` (as pnpm may pass it) is
 * skipped. Flags in `booleanFlags` take no value. Returns 'help' as soon as `--help` or `-h` is met.
 */
export function readFlags(
  argv: readonly string[],
  booleanFlags: ReadonlySet<string> = new Set(),
): Flag[] | 'help' {
  const flags: Flag[] = [];
  const rest = argv[0] === '--' ? argv.slice(1) : [...argv];
  for (let index = 0; index < rest.length; index++) {
    const token = rest[index]!;
    if (token === '--help' || token === '-h') return 'help';
    if (!token.startsWith('--')) throw new ArgsError(`unexpected argument "${token}"`);
    const equals = token.indexOf('=');
    const flag = equals === -1 ? token : token.slice(0, equals);
    if (booleanFlags.has(flag)) {
      if (equals !== -1) throw new ArgsError(`${flag} takes no value`);
      flags.push({ flag, value: '' });
      continue;
    }
    if (equals !== -1) {
      flags.push({ flag, value: token.slice(equals + 1) });
      continue;
    }
    const value = rest[index + 1];
    if (value === undefined || value.startsWith('--')) throw new ArgsError(`${flag} needs a value`);
    flags.push({ flag, value });
    index++;
  }
  return flags;
}

/**
 * Parses the process arguments with `parse`. Returns the parsed arguments, or the exit code after
 * printing: 0 for help (the usage), 2 for an ArgsError (the message and the usage).
 */
export function parseCommandLine<T>(
  parse: (argv: readonly string[]) => T | 'help',
  usage: string,
  argv: readonly string[] = process.argv.slice(2),
): T | number {
  let parsed: T | 'help';
  try {
    parsed = parse(argv);
  } catch (error) {
    if (!(error instanceof ArgsError)) throw error;
    console.error(`${error.message}\n\n${usage}`);
    return 2;
  }
  if (parsed === 'help') {
    console.log(usage);
    return 0;
  }
  return parsed;
}
