export interface TruncatedText {
  text: string;
  /** True when characters were removed to fit the budget. */
  truncated: boolean;
}

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`. It cuts between code points
 * only, so a surrogate pair or a multi-byte UTF-8 sequence is never split. A lone surrogate counts as
 * the 3 bytes of the U+FFFD it is encoded as.
 */
export function truncateUtf8(text: string, maxBytes: number): TruncatedText {
  if (!Number.isInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError(`maxBytes must be a non-negative integer, got ${maxBytes}`);
  }
  // Every UTF-16 unit is at most 3 UTF-8 bytes, so short texts need no walk.
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8Size(char.codePointAt(0)!);
    if (bytes + size > maxBytes) return { text: text.slice(0, end), truncated: true };
    bytes += size;
    end += char.length;
  }
  return { text, truncated: false };
}

function utf8Size(codePoint: number): number {
  if (codePoint <= 0x7f) return 1;
  if (codePoint <= 0x7ff) return 2;
  if (codePoint <= 0xffff) return 3;
  return 4;
}
