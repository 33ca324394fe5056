import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchMemoryRequest } from '../domain/search.js';
import type { MemoryStore } from '../ports/memory-store.port.js';
import type { RetrievalPolicy } from '../ports/retrieval-policy.port.js';
import { MemoryService } from '../service/memory-service.js';
import { createFakeEmbedder } from './fake-embedder.js';
import { type TwoChannelParameters, twoChannelCoarseSearch } from './two-channel-reference.js';

export interface TwoChannelParityOptions {
  createStore: () => Promise<MemoryStore>;
  /** A policy that fuses exactly fts and vector, with the parameters of `reference`. */
  retrievalPolicy: RetrievalPolicy;
  reference: TwoChannelParameters;
}

const WORDS = (
  'caroline melanie deploy freeze friday pager rotation lunch noon budget review adoption agency beach ' +
  'camping summer painting lake sunrise charity race support group transgender stories database index ' +
  'vacuum replica lag ticket release notes kitchen garden violin concert museum'
).split(' ');
const FILLER = 'the a of and to in we it was is for on'.split(' ');

/** A deterministic corpus: three ordered sources and loose entries, common and rare words, many ties. */
function corpus(): { text: string; position?: { sourceId: string; order: number } }[] {
  let state = 20_240_601;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const entries: { text: string; position?: { sourceId: string; order: number } }[] = [];
  for (let index = 0; index < 90; index += 1) {
    const words = Array.from({ length: 4 + Math.floor(random() * 8) }, () =>
      random() < 0.3 ? pick(FILLER) : pick(WORDS.slice(0, 8 + (index % WORDS.length))),
    );
    const text = `${words.join(' ')} n${index}`;
    entries.push(
      index < 75 ? { text, position: { sourceId: `source-${index % 3}`, order: index } } : { text },
    );
  }
  // Words held by one entry each, without neighbours: a five-word query of them meets no entry with
  // two of its terms, so the lexical admission falls back.
  for (const word of ['quorra', 'zebulon', 'yarrowby', 'xanthe', 'wexford']) {
    entries.push({ text: `${word} appears once` });
  }
  return entries;
}

const QUERIES = [
  'caroline',
  'deploy freeze friday',
  'what did melanie paint at the lake at sunrise?',
  'pager rotation lunch noon budget review adoption',
  'support group transgender stories beach camping summer charity race',
  'the of and',
  'nothing matches zzyzx',
  'quorra zebulon yarrowby xanthe wexford',
  'database replica lag vacuum index release',
  'n17 n42 kitchen',
];

/**
 * RFC 0013's promise for the default channels: the N-channel search run with fts and vector only
 * answers exactly what RFC 0002's two-channel search answered (the same hits, in the same order, with
 * the same scores, ranks and contributions, to the bit), for every mode and limit, after revisions.
 */
export function describeTwoChannelParityContract(name: string, options: TwoChannelParityOptions) {
  describe(`two-channel parity (RFC 0013): ${name}`, () => {
    let store: MemoryStore;
    let service: MemoryService;
    const embedder = createFakeEmbedder();
    const scopeId = `parity-${randomUUID()}`;

    beforeAll(async () => {
      store = await options.createStore();
      await store.prepareEmbeddingProfile(embedder.profile);
      service = new MemoryService({ store, embedder, retrievalPolicy: options.retrievalPolicy });
      const written = await service.remember(scopeId, { entries: corpus() });
      // Versions superseded and forgotten: the channels must read the live ones only.
      await service.revise(scopeId, {
        entryId: written.entries[3]!.entryId,
        text: 'caroline revised the budget',
      });
      await service.forget(scopeId, { entryId: written.entries[10]!.entryId });
    });
    afterAll(async () => {
      await store?.close();
    });

    it('searches with fts and vector only, in that order', () => {
      expect(options.retrievalPolicy.channels).toEqual(['fts', 'vector']);
      expect(service.searchChannels.map((channel) => channel.name)).toEqual(['fts', 'vector']);
    });

    for (const mode of ['auto', 'fts', 'vector'] as const) {
      it(`answers every query exactly as the two-channel search, mode ${mode}`, async () => {
        let compared = 0;
        let fellBack = 0;
        for (const query of QUERIES) {
          for (const limit of [1, 3, 10, 50]) {
            const request: SearchMemoryRequest = { query, mode, limit };
            const expected = await twoChannelCoarseSearch(
              store,
              embedder,
              options.reference,
              scopeId,
              request,
            );
            const actual = await service.search(scopeId, request);
            const label = `${mode} "${query}" limit ${limit}`;
            expect(actual.mode, label).toBe(expected.mode);
            expect(
              actual.lexicalFallback && {
                queryTermCount: actual.lexicalFallback.queryTermCount,
                admitted: actual.lexicalFallback.admitted,
              },
              label,
            ).toEqual(expected.lexicalFallback);
            expect(
              actual.hits.map(
                ({ citation, score, matchedBy, channelRanks, channelScores, channelContributions }) => ({
                  entryId: citation.entryId,
                  entryVersionId: citation.entryVersionId,
                  score,
                  matchedBy,
                  channelRanks,
                  channelScores,
                  channelContributions,
                }),
              ),
              label,
            ).toEqual(expected.hits);
            compared += expected.hits.length;
            if (expected.lexicalFallback) fellBack += 1;
          }
        }
        // The corpus and queries exercise something in every mode (and the fallback in fts mode).
        expect(compared).toBeGreaterThan(100);
        if (mode === 'fts') expect(fellBack).toBeGreaterThan(0);
      });
    }
  });
}
