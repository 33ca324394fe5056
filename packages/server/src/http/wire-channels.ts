/**
 * The search channels the v1 wire names (RFC 0013), in fusion order: the lexical and vector channels,
 * and the optional entity and graph channels. A channel an application adds in code is not part of the
 * wire. A module of its own, free of Hono, so the memory commands can print channels without loading it.
 */
export const WIRE_CHANNELS = ['fts', 'vector', 'entity', 'graph'] as const;
export type WireChannel = (typeof WIRE_CHANNELS)[number];

/** Whether the v1 wire names this channel. */
export function isWireChannel(channel: string): channel is WireChannel {
  return (WIRE_CHANNELS as readonly string[]).includes(channel);
}
