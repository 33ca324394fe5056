const STOP_WORDS = new Set(
  'a an and are as at be but by did do does for from had has have he her his how i in is it its me my of on or our she so that the their them they this to was we were what when where which who why will with you your'.split(
    ' ',
  ),
);

/**
 * The characters the SQL stores' `unaccent` folds: Latin-1 Supplement, Latin Extended-A and -B, the
 * combining diacritical marks it removes (U+0300-U+0362), the Greek letters with tonos or dialytika,
 * Ё/ё, Latin Extended Additional and the Latin ligatures.
 */
const FOLDABLE = /[\u00c0-\u024f\u0386-\u03ce\u0401\u0451\u1e00-\u1eff\ufb00-\ufb06]|[\u0300-\u0362]/gu;

/**
 * Where `unaccent` differs from "decompose (NFKD), then drop the marks": letters whose stroke or hook
 * is part of the letter (Ø, Ł, Đ, Ƈ), the ligatures and sharp s it spells out (Æ, Œ, ß), and the few it
 * leaves alone (Ǣ, Ǿ). Each item is the character followed by what `unaccent` gives for it.
 */
const UNACCENT_EXCEPTIONS = new Map(
  [
    "ÆAE ÐD ×* ØO ÞTH ßss æae ðd ÷/ øo þth ĐD đd ĦH ħh ıi ĸq ĿL ŀl ŁL łl ŉ'n ŊN ŋn ŒOE œoe ŦT",
    'ŧt ƀb ƁB ƂB ƃb ƇC ƈc ƉD ƊD ƋD ƌd ƐE ƑF ƒf ƓG ƕhv ƖI ƗI ƘK ƙk ƚl ƝN ƞn ƢOI ƣoi ƤP ƥp ƫt',
    'ƬT ƭt ƮT ƲV ƳY ƴy ƵZ ƶz ǢǢ ǣǣ ǤG ǥg ǮǮ ǯǯ ǼǼ ǽǽ ǾǾ ǿǿ ȡd ȤZ ȥz ȴl ȵn ȶt ȷj ȸdb ȹqp ȺA ȻC',
    'ȼc ȽL ȾT ȿs ɀz ɃB ɄU ɆE ɇe ɈJ ɉj ɌR ɍr ɎY ɏy \u0387\u0387 ẚa ẛẛ ẜs ẝs ẞSS ỺLL ỻll ỼV ỽv ỾY ỿy',
  ]
    .join(' ')
    .split(' ')
    .map((item) => [item[0]!, item.slice(1)] as const),
);

/**
 * Accents folded exactly as PostgreSQL's `unaccent` folds the characters of FOLDABLE ("Café" → "Cafe",
 * "Zoë" → "Zoe", "São" → "Sao", "Straße" → "Strasse", a lone combining accent dropped); the SQL
 * stores' parity test compares the two over every one of them. Other characters are left as they are,
 * where `unaccent` maps a few more (mathematical letters, modifier letters; more on newer PostgreSQL).
 */
export function foldAccents(text: string): string {
  return text.replace(
    FOLDABLE,
    (char) => UNACCENT_EXCEPTIONS.get(char) ?? char.normalize('NFKD').replace(/\p{M}/gu, ''),
  );
}

/** Every assigned character `foldAccents` folds as `unaccent` does: what a parity test compares. */
export function foldableCharacters(): string[] {
  const characters: string[] = [];
  for (let code = 0xc0; code <= 0xfb06; code += 1) {
    const char = String.fromCodePoint(code);
    if (/^\P{Cn}$/u.test(char) && new RegExp(FOLDABLE.source, 'u').test(char)) characters.push(char);
  }
  return characters;
}

/**
 * Accent-folded, lower-cased Unicode word tokens without stop words: the in-memory store's stand-in
 * for the SQL stores' analysis (`to_tsvector(config, unaccent(text))`), without stemming.
 */
export function analyze(text: string): string[] {
  return (
    foldAccents(text)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).filter((token) => !STOP_WORDS.has(token));
}

export function termFrequencies(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of analyze(text)) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}
