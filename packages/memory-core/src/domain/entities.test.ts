import { describe, expect, it } from 'vitest';
import { ENTITY_MAX_PER_TEXT, extractEntities, normalizeEntity } from './entities.js';

describe('extractEntities', () => {
  it('finds identifiers: tickets, services, hosts, handles, e-mail, URLs, tags, code', () => {
    expect(
      extractEntities(
        'ACME-123 broke payments-api on db-01.prod.example.com; ping @bob or bob@example.com, see https://github.com/acme/pay/issues/7.',
      ),
    ).toEqual([
      'acme-123',
      'payments-api',
      'db-01.prod.example.com',
      '@bob',
      'bob@example.com',
      'https://github.com/acme/pay/issues/7',
    ]);
    expect(
      extractEntities(
        'The PostgresMemoryStore calls search_memory() and getUserById in `lexical-channel.ts` #backend #123',
      ),
    ).toEqual([
      'postgresmemorystore',
      'search_memory',
      'getuserbyid',
      'lexical-channel.ts',
      '#backend',
      '#123',
    ]);
  });

  it('takes no piece of a match twice (the host of an address, the letters of a ticket)', () => {
    expect(extractEntities('Mail ops@acme.io about OPS-7.')).toEqual(['ops@acme.io', 'ops-7']);
  });

  it('finds names: capitalised runs, single names within a sentence, labels before a colon', () => {
    expect(extractEntities('Caroline: I went to the LGBTQ support group yesterday.')).toEqual([
      'caroline',
      'lgbtq',
    ]);
    expect(extractEntities('When did Caroline go to the LGBTQ support group?')).toEqual([
      'caroline',
      'lgbtq',
    ]);
    expect(
      extractEntities('Melanie: Hey Mel! We saw the Golden Gate Bridge with Jean-Luc Picard and Zoë.'),
    ).toEqual(['melanie', 'mel', 'golden gate bridge', 'jean-luc picard', 'zoe']);
    expect(extractEntities('Note: Bank of America and Leonardo da Vinci. Thanks, Caroline!')).toEqual([
      'bank of america',
      'leonardo da vinci',
      'caroline',
    ]);
  });

  it('leaves out what capitals do not make a name: sentence starts, function words, shouting, dates', () => {
    expect(extractEntities('Postgres is down. Great, it works.')).toEqual([]);
    expect(extractEntities('We moved to Postgres last week.')).toEqual(['postgres']);
    expect(extractEntities('OK THIS IS IT, in May, on 2023-05-08, for 10-15 minutes, e.g. at 5p.m.')).toEqual(
      [],
    );
    expect(extractEntities('a well-known follow-up, version 1.2.3')).toEqual([]);
    expect(extractEntities("Yes, I'm sure I've seen it, and I'll tell O'Brien.")).toEqual(["o'brien"]);
  });

  it('matches a query typed in lower case where the identifier itself carries the signal', () => {
    expect(extractEntities('what did caroline say about acme-123?')).toEqual(['acme-123']);
  });

  it('normalises: accents folded, lower case, white space collapsed, possessive dropped', () => {
    expect(normalizeEntity('Zoë')).toBe('zoe');
    expect(normalizeEntity('New   York’s')).toBe('new york');
    expect(normalizeEntity('X')).toBeUndefined();
    expect(normalizeEntity('x'.repeat(129))).toBeUndefined();
    expect(extractEntities('We met Zoë, then ZOE-1 and zoë again. Zoe!')).toEqual(['zoe', 'zoe-1']);
  });

  it('keeps the first `max` distinct entities in order of appearance, the same every time', () => {
    const text = Array.from({ length: 100 }, (_, i) => `TICKET-${i}`).join(' ');
    const entities = extractEntities(text);
    expect(entities).toHaveLength(ENTITY_MAX_PER_TEXT);
    expect(entities[0]).toBe('ticket-0');
    expect(extractEntities(text, 3)).toEqual(['ticket-0', 'ticket-1', 'ticket-2']);
    expect(extractEntities(text)).toEqual(entities);
    expect(extractEntities('')).toEqual([]);
  });
});
