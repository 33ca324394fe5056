const OFFSET_BASIS = 0x811c9dc5;
const PRIME = 0x01000193;

/**
 * FNV-1a, 32 bits, over the UTF-8 bytes of `text` (as TextEncoder writes them: a lone surrogate as
 * U+FFFD). Returns an unsigned integer. The bytes are computed as they are hashed: the embedder hashes
 * about seventy features per text, and encoding each into a new array was most of its allocations.
 */
export function fnv1a32(text: string): number {
  let hash = OFFSET_BASIS;
  const step = (byte: number) => {
    hash = Math.imul(hash ^ byte, PRIME);
  };
  for (let at = 0; at < text.length; at++) {
    let code = text.charCodeAt(at);
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = at + 1 < text.length ? text.charCodeAt(at + 1) : 0;
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        at += 1;
      } else {
        code = 0xfffd;
      }
    }
    if (code < 0x80) {
      step(code);
    } else if (code < 0x800) {
      step(0xc0 | (code >> 6));
      step(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      step(0xe0 | (code >> 12));
      step(0x80 | ((code >> 6) & 0x3f));
      step(0x80 | (code & 0x3f));
    } else {
      step(0xf0 | (code >> 18));
      step(0x80 | ((code >> 12) & 0x3f));
      step(0x80 | ((code >> 6) & 0x3f));
      step(0x80 | (code & 0x3f));
    }
  }
  return hash >>> 0;
}
