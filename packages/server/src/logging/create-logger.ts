import type { Logger as RuntimeLogger } from '@powercontext/memory-core';
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Paths pino replaces with "[redacted]" wherever they appear: keys and credentials, and the text of
 * memory (entries, queries). The server never logs bodies; this is the second line of defence.
 */
export const REDACTED_PATHS = [
  'authorization',
  'apiKey',
  'api_key',
  'key',
  'headers.authorization',
  'req.headers.authorization',
  'text',
  'query',
  '*.text',
  '*.query',
  'entries[*].text',
  'hits[*].text',
];

/** JSON lines on stderr (stdout carries only the "listening on" line). */
export function createLogger(
  level: LogLevel,
  destination: DestinationStream = pino.destination(2),
): PinoLogger {
  return pino(
    {
      level,
      base: { service: 'powercontext-server' },
      messageKey: 'message',
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/** The runtime's Logger port (event + fields, never text) on top of pino. */
export function toRuntimeLogger(logger: PinoLogger): RuntimeLogger {
  const child = logger.child({ component: 'runtime' });
  return {
    debug: (event, fields) => child.debug({ event, ...fields }),
    info: (event, fields) => child.info({ event, ...fields }),
    warn: (event, fields) => child.warn({ event, ...fields }),
    error: (event, fields) => child.error({ event, ...fields }),
  };
}
