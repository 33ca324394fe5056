const OFFSET_BASIS = 0x811c9dc5;
const PRIME = 0x01000193;
const encoder = new TextEncoder();

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`. Returns an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = OFFSET_BASIS;
  for (const byte of encoder.encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, PRIME);
  }
  return hash >>> 0;
}
