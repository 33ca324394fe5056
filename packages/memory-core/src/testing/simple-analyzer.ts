const STOP_WORDS = new Set(
  'a an and are as at be but by did do does for from had has have he her his how i in is it its me my of on or our she so that the their them they this to was we were what when where which who why will with you your'.split(
    ' ',
  ),
);

/** Lower-cased Unicode word tokens without stop words: the in-memory store's stand-in for a text search config. */
export function analyze(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((token) => !STOP_WORDS.has(token));
}

export function termFrequencies(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of analyze(text)) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}
