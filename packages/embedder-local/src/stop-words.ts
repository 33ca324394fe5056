/**
 * A small English stop list: function words that carry little topic, plus the fragments left by
 * splitting contractions at the apostrophe ("it's" -> "it", "s"; "don't" -> "don", "t").
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  [
    'a an and are as at be been but by can could did do does doing for from had has have having he her hers',
    'him his how i if in into is it its itself me my no nor not of on or our ours she should so than that the',
    'their theirs them then there these they this those to too very was we were what when where which while',
    'who whom why will with would you your yours',
    's t d ll m re ve don doesn didn isn wasn aren weren',
  ]
    .join(' ')
    .split(' '),
);
