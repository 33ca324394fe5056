/** Structured log events. Fields never carry query text, entry text or secrets. */
export type LogFields = Record<string, string | number | boolean | undefined>;

export interface Logger {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

const ignore = (): void => {};

/** The default logger: drops everything. */
export const noopLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
