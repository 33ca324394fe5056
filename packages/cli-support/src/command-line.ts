import { parseArgs } from 'node:util';

/** A command-line argument that breaks a rule; the commands print it with their usage and exit 2. */
export class ArgsError extends Error {
  override name = 'ArgsError';
}

export interface Flag {
  flag: string;
  /** The flag's value; '' for a boolean flag. */
  value: string;
}

/** The flags a command takes, named with their dashes: `--port`. */
export interface FlagSpec {
  /** Flags that take a value (`--flag value` or `--flag=value`); each may be given more than once. */
  values: readonly string[];
  /** Flags that take no value. */
  booleans?: readonly string[];
}

/**
 * Reads flags with node:util `parseArgs` (strict: an unknown flag, a missing value, a value given to a
 * boolean flag or a stray argument is an ArgsError naming it), and returns them in the order given;
 * a leading `--` (as pnpm may pass it) is skipped. Returns 'help' when `--help` or `-h` is among them.
 */
export function readFlags(argv: readonly string[], spec: FlagSpec): Flag[] | 'help' {
  const args = argv[0] === '--' ? argv.slice(1) : [...argv];
  const options: Record<string, { type: 'string' | 'boolean'; multiple: boolean; short?: string }> = {
    help: { type: 'boolean', multiple: true, short: 'h' },
  };
  for (const flag of spec.values) options[flag.replace(/^--/u, '')] = { type: 'string', multiple: true };
  for (const flag of spec.booleans ?? [])
    options[flag.replace(/^--/u, '')] = { type: 'boolean', multiple: true };
  let tokens: NonNullable<ReturnType<typeof parseArgs>['tokens']>;
  try {
    tokens = parseArgs({ args, options, strict: true, allowPositionals: false, tokens: true }).tokens;
  } catch (error) {
    throw argsErrorOfParseArgs(error);
  }
  const flags: Flag[] = [];
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (token.name === 'help') return 'help';
    flags.push({ flag: `--${token.name}`, value: token.value ?? '' });
  }
  return flags;
}

/** node:util parseArgs' errors in our words: the flag and the rule. */
export function argsErrorOfParseArgs(error: unknown): ArgsError {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const flag = /'(-{1,2}[^' ]+)/u.exec(message)?.[1] ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new ArgsError(`unknown flag ${flag}`);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new ArgsError(`unexpected argument "${/'([^']*)'/u.exec(message)?.[1] ?? ''}"`);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return new ArgsError(
        /does not take an argument/u.test(message) ? `${flag} takes no value` : `${flag} needs a value`,
      );
    default:
      return new ArgsError(message);
  }
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
