/** An error with its causes (pg reports an unreachable server as an AggregateError of attempts). */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return `${error.message || error.name}: ${error.errors.map(describeError).join('; ')}`;
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const cause = error.cause === undefined ? '' : ` (cause: ${describeError(error.cause)})`;
    return `${error.name}${typeof code === 'string' ? ` (${code})` : ''}: ${error.message || '(no message)'}${cause}`;
  }
  return String(error);
}
