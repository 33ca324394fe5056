/**
 * Entities of a text for the entity and graph channels (RFC 0013): the names, tickets, services,
 * handles and other identifiers a reader would look up, found by fixed rules (no model, no download),
 * so that every store, and the query, find the same ones. Changing a rule changes what stores hold:
 * that is a new extractor id and a rebuild of the stored entities.
 */
export const ENTITY_EXTRACTOR_ID = 'powercontext.entities.v1';

/** Most distinct entities kept of one text (an entry or a query), in order of first appearance. */
export const ENTITY_MAX_PER_TEXT = 64;

const ENTITY_MAX_CHARS = 128;

// Letters and digits on both sides of a token: JavaScript's `\b` knows ASCII only.
const START = '(?<![\\p{L}\\p{N}_])';
const END = '(?![\\p{L}\\p{N}_])';

/** Words that start sentences or are capitalised for grammar, never names on their own. */
const FUNCTION_WORDS = new Set(
  (
    'a about after again all also am an and any are as at be because been before being both but by can ' +
    'could did do does doing done during each either even ever every few for from had has have having he ' +
    'her here hers herself him himself his how however i if in into is it its itself just let lets like ' +
    'may maybe me might mine more most much must my myself no nor not now of off oh ok okay on once only ' +
    'or other our ours ourselves out over own perhaps please same she should since so some still such ' +
    'than thank thanks that the their theirs them themselves then there these they this those though ' +
    'through thus to too under until up us very was we well were what whatever when where whether which ' +
    'while who whom whose why will with would yes yet you your yours yourself hey hi hello dear sure ' +
    'great wow yeah yep nope anyway besides today tomorrow yesterday note notes update summary reminder ' +
    'todo fyi question answer edit warning error info tip status result'
  ).split(' '),
);

/** Last parts that make a lower-case hyphenated word a service or system name (`payments-api`). */
const SERVICE_SUFFIXES = new Set(
  (
    'api apis service services svc server worker workers db database cache queue gateway proxy bot app ' +
    'web ui cli cluster job cron lambda bucket topic stream pipeline repo sdk lib daemon node host backend ' +
    'frontend'
  ).split(' '),
);

/** Small words allowed inside a multi-word name: "Bank of America", "Leonardo da Vinci". */
const NAME_CONNECTORS = new Set(['of', 'de', 'da', 'del', 'der', 'di', 'van', 'von', 'la', 'le', 'du']);

interface Rule {
  pattern: RegExp;
  /** The entity of a match, before normalisation; undefined keeps nothing (the span stays free). */
  accept: (match: RegExpExecArray) => string | undefined;
}

const trimTrailing = (value: string, characters: RegExp) => value.replace(characters, '');

/**
 * The rules, in order. Each match takes its span out of the text, so a later rule never finds a piece
 * of an earlier one (the host of a URL or an e-mail address, the letters of a ticket id).
 */
const RULES: readonly Rule[] = [
  // URLs, without the punctuation that ends the sentence around them.
  {
    pattern: /https?:\/\/[^\s<>"'`]+/giu,
    accept: ([url]) => trimTrailing(url, /[.,;:!?)\]}'"»]+$/u).replace(/\/$/u, ''),
  },
  // E-mail addresses.
  {
    pattern: new RegExp(`${START}[\\p{L}\\p{N}._%+-]+@[\\p{L}\\p{N}-]+(?:\\.[\\p{L}\\p{N}-]+)+`, 'gu'),
    accept: ([address]) => trimTrailing(address, /[.-]+$/u),
  },
  // Code spans: `payments_retry()` names one thing, whatever it is made of.
  { pattern: /`([^`\n]{2,80})`/gu, accept: (match) => match[1]!.trim() },
  // @handles and #tags (also issue numbers, #123).
  {
    pattern: /(?<![\p{L}\p{N}_.@])@[\p{L}\p{N}_][\p{L}\p{N}_.-]*/gu,
    accept: ([handle]) => trimTrailing(handle, /[.-]+$/u),
  },
  {
    pattern: /(?<![\p{L}\p{N}_&#])#[\p{L}\p{N}_][\p{L}\p{N}_-]*/gu,
    accept: ([tag]) => trimTrailing(tag, /-+$/u),
  },
  // Ticket ids: ABC-123, PROJ-42.
  {
    pattern: new RegExp(`${START}\\p{Lu}[\\p{Lu}\\p{N}]{1,9}-\\p{N}{1,7}${END}`, 'gu'),
    accept: ([id]) => id,
  },
  // Host and file names: db-01.prod.example.com, node.js, search-memory.ts (the last label is letters).
  {
    pattern: new RegExp(
      `${START}[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]*[\\p{L}\\p{N}])?(?:\\.[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]*[\\p{L}\\p{N}])?)+${END}`,
      'gu',
    ),
    accept: ([name]) => {
      const labels = name.split('.');
      const last = labels.at(-1)!;
      return /^\p{L}{2,}$/u.test(last) && labels.some((label) => label.length >= 2) ? name : undefined;
    },
  },
  // Lower-case hyphenated names with a digit (db-01, gpt-4, acme-123) or a service suffix (auth-service).
  {
    pattern: new RegExp(`${START}[\\p{Ll}\\p{N}]+(?:-[\\p{Ll}\\p{N}]+)+${END}`, 'gu'),
    accept: ([name]) =>
      /\p{L}/u.test(name) &&
      (/\p{N}/u.test(name) || SERVICE_SUFFIXES.has(name.slice(name.lastIndexOf('-') + 1)))
        ? name
        : undefined,
  },
  // Code identifiers: snake_case, camelCase, PascalCase with two humps or more.
  {
    pattern: new RegExp(`${START}[\\p{L}_][\\p{L}\\p{N}]*(?:_[\\p{L}\\p{N}]+)+${END}`, 'gu'),
    accept: ([name]) => name,
  },
  {
    pattern: new RegExp(
      `${START}(?:\\p{Ll}[\\p{Ll}\\p{N}]*|\\p{Lu}[\\p{Ll}\\p{N}]+)\\p{Lu}[\\p{L}\\p{N}]*${END}`,
      'gu',
    ),
    accept: ([name]) => name,
  },
  // Acronyms: AWS, LGBTQ, EC2 (two capital letters or more, not a function word in capitals).
  {
    pattern: new RegExp(`${START}(?=(?:[\\p{N}]*\\p{Lu}){2})[\\p{Lu}\\p{N}]{2,}${END}`, 'gu'),
    accept: ([name]) => (FUNCTION_WORDS.has(name.toLowerCase()) ? undefined : name),
  },
];

/** A capitalised word: Caroline, O'Brien, Jean-Luc, Zoë; not I'm or I've (the capital is the pronoun's). */
const CAPITALISED = /^(?:\p{Lu}(?:['’]\p{Lu})?\p{Ll}[\p{Ll}\p{M}'’]*(?:-\p{Lu}?\p{Ll}+)*)$/u;
const WORD = /[\p{L}\p{N}\p{M}'’-]+/gu;

/**
 * The entities of a text, normalised (see `normalizeEntity`) and distinct, in order of first
 * appearance, at most `max`. Deterministic and free of dependencies: the stores run it on entry text
 * at write time, the entity channel on the query.
 *
 * What counts: URLs, e-mail addresses, code spans, @handles, #tags, ticket ids (ABC-123), host and file
 * names, lower-case hyphenated names with a digit or a service suffix, code identifiers (snake_case,
 * camelCase, PascalCase), acronyms, runs of two or more capitalised words (minus leading function
 * words), and a single capitalised word where capitals do not come from grammar: within a sentence, or
 * as a label before a colon ("Caroline: ..."). A capitalised word that starts a sentence is left out:
 * it may be a name or any word.
 */
export function extractEntities(text: string, max: number = ENTITY_MAX_PER_TEXT): string[] {
  const found = new Map<number, string>();
  let rest = text.normalize('NFKC');
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    for (const match of rest.matchAll(rule.pattern)) {
      const entity = rule.accept(match);
      if (entity === undefined) continue;
      found.set(match.index, entity);
      rest = `${rest.slice(0, match.index)}${' '.repeat(match[0].length)}${rest.slice(match.index + match[0].length)}`;
    }
  }
  for (const [index, name] of capitalisedNames(rest)) found.set(index, name);
  const entities = new Set<string>();
  for (const [, raw] of [...found].sort(([a], [b]) => a - b)) {
    const entity = normalizeEntity(raw);
    if (entity !== undefined) entities.add(entity);
    if (entities.size >= max) break;
  }
  return [...entities];
}

/**
 * How an entity is compared: accents folded (NFKD, marks dropped), lower case, white space collapsed,
 * a possessive 's dropped. Undefined for what is left too short (one character) or too long.
 */
export function normalizeEntity(raw: string): string | undefined {
  const entity = raw
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/['’]s$/u, '');
  return entity.length >= 2 && entity.length <= ENTITY_MAX_CHARS ? entity : undefined;
}

/** Runs of capitalised words (with connectors inside), each at the index of its first kept word. */
function capitalisedNames(text: string): [number, string][] {
  const names: [number, string][] = [];
  let run: { index: number; word: string; initial: boolean }[] = [];
  let sentenceStart = true;
  let previousEnd = 0;
  const flush = (followedByColon: boolean) => {
    while (run.length > 0 && NAME_CONNECTORS.has(run.at(-1)!.word)) run.pop();
    let start = 0;
    while (start < run.length && FUNCTION_WORDS.has(run[start]!.word.toLowerCase())) start += 1;
    const kept = run.slice(start);
    if (kept.length >= 2) names.push([kept[0]!.index, kept.map((item) => item.word).join(' ')]);
    else if (kept.length === 1 && (!kept[0]!.initial || followedByColon)) {
      names.push([kept[0]!.index, kept[0]!.word]);
    }
    run = [];
  };
  for (const match of text.matchAll(WORD)) {
    const between = text.slice(previousEnd, match.index);
    const boundary = /[.!?…:;\n]/u.test(between);
    if (run.length > 0 && (boundary || /[,()[\]{}"“”]/u.test(between))) flush(/^\s*:/u.test(between));
    if (boundary) sentenceStart = true;
    const word = match[0].replace(/^['’-]+|['’-]+$/gu, '');
    const capitalised = CAPITALISED.test(word);
    if (capitalised) {
      run.push({ index: match.index, word, initial: sentenceStart });
    } else if (run.length > 0 && NAME_CONNECTORS.has(word)) {
      run.push({ index: match.index, word, initial: false });
    } else if (run.length > 0) {
      flush(false);
    }
    sentenceStart = false;
    previousEnd = match.index + match[0].length;
  }
  flush(/^\s*:/u.test(text.slice(previousEnd)));
  return names;
}
