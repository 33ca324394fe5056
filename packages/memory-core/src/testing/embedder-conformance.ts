/**
 * Conformance suite of the `Embedder` port (RFC 0002 "Vectors and embedding profiles";
 * embedder.port.ts). Every embedder adapter runs it unchanged; see CONTRIBUTING.md.
 */
import { PowerContextError } from '../errors/powercontext-error.js';
import { ValidationError } from '../errors/validation-error.js';
import type { Embedder } from '../ports/embedder.port.js';
import {
  type ConformanceCheck,
  type ConformanceSuite,
  conform,
  registerConformanceSuite,
  runConformanceSuite,
  settleWithin,
  shown,
} from './conformance.js';

/**
 * How the model behind the embedder must behave.
 * - `healthy`: it answers every text with a vector that depends on the text alone (the same text,
 *   the same vector) and tells different texts apart.
 * - `fail`: it cannot be reached or answers with a server error (HTTP 500) every time.
 * - `hang`: it never answers.
 */
export type EmbedBackend = { kind: 'healthy' } | { kind: 'fail' } | { kind: 'hang' };

export interface EmbedderConformanceOptions {
  /** An embedder of the adapter under test over a backend that behaves as `backend` says. */
  create(backend: EmbedBackend): Embedder | Promise<Embedder>;
  cleanup?(): Promise<void> | void;
  /**
   * True when the adapter computes vectors in-process (no backend that can fail or hang): the checks
   * of backend failure and of an abort during a call are then left out. Default false.
   */
  local?: boolean;
  /**
   * False when the adapter's own output varies for the same text over a deterministic backend; the
   * determinism check is then left out. Default true (the profile names one fixed vector space).
   */
  deterministic?: boolean;
  /** How long a call may take before a check reports it as hanging. Default 5000 ms. */
  patienceMs?: number;
}

/** Texts any embedder must embed: empty, white space only, emoji, right-to-left, CJK, long. */
export const ODD_EMBEDDABLE_TEXTS: readonly string[] = [
  '',
  '   \n\t  ',
  'Emoji 🧠🚀 and a family 👩‍👩‍👧 with skin tone 👍🏽',
  'עברית מימין לשמאל and العربية',
  '中文記憶 日本語のテキスト 한국어',
  'O\'Brien said "hi"; DROP TABLE entries; -- & | ! :* ( )',
  'long '.repeat(4_000),
];

const same = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((value, index) => Math.abs(value - b[index]!) <= 1e-9);

export function embedderConformanceSuite(options: EmbedderConformanceOptions): ConformanceSuite {
  const patienceMs = options.patienceMs ?? 5_000;
  const healthy = { kind: 'healthy' } as const;

  async function embedOk(embedder: Embedder, texts: readonly string[], what: string): Promise<number[][]> {
    const settled = await settleWithin(
      Promise.resolve().then(() => embedder.embed(texts)),
      patienceMs,
    );
    conform(settled.status !== 'timedOut', `${what}: no answer within ${patienceMs} ms`);
    conform(
      settled.status === 'fulfilled',
      `${what}: embed failed: ${settled.status === 'rejected' ? String(settled.reason) : ''}`,
    );
    const vectors = settled.value;
    conform(
      Array.isArray(vectors) && vectors.length === texts.length,
      `${what}: ${texts.length} texts must give ${texts.length} vectors, got ${Array.isArray(vectors) ? vectors.length : shown(vectors)}`,
    );
    const { dimension, normalization } = embedder.profile;
    for (const [index, vector] of vectors.entries()) {
      conform(
        Array.isArray(vector) && vector.length === dimension && vector.every(Number.isFinite),
        `${what}: vector ${index} must hold ${dimension} finite numbers (the profile's dimension), got ${Array.isArray(vector) ? `${vector.length} values` : shown(vector)}`,
      );
      const norm = Math.hypot(...vector);
      conform(
        normalization !== 'l2' || norm === 0 || Math.abs(norm - 1) < 1e-6,
        `${what}: the profile says l2, but vector ${index} has length ${norm}`,
      );
    }
    return vectors;
  }

  async function rejection(call: () => Promise<unknown>, what: string): Promise<unknown> {
    const settled = await settleWithin(Promise.resolve().then(call), patienceMs);
    conform(settled.status !== 'timedOut', `${what}: no answer within ${patienceMs} ms`);
    conform(settled.status === 'rejected', `${what}: expected a failure, but embed returned vectors`);
    return settled.reason;
  }

  const checks: ConformanceCheck[] = [
    {
      title:
        'has a profile: a versioned id, a positive dimension, a normalization and an admission threshold',
      rule: 'RFC 0002 "Vectors and embedding profiles"; embedder.port.ts EmbeddingProfile',
      async run() {
        const embedder = await options.create(healthy);
        const { id, dimension, normalization, minCosine } = embedder.profile;
        conform(
          typeof id === 'string' && /^\S+$/.test(id),
          `profile.id must be a non-empty id without spaces, got ${shown(id)}`,
        );
        conform(
          Number.isInteger(dimension) && dimension > 0,
          `profile.dimension must be a positive integer, got ${shown(dimension)}`,
        );
        conform(
          normalization === 'l2' || normalization === 'none',
          `profile.normalization must be l2 or none, got ${shown(normalization)}`,
        );
        conform(
          Number.isFinite(minCosine) && minCosine >= -1 && minCosine <= 1,
          `profile.minCosine must be a number from -1 to 1, got ${shown(minCosine)}`,
        );
        const again = await options.create(healthy);
        conform(
          shown(again.profile) === shown(embedder.profile),
          `two embedders built the same way must name the same vector space: ${shown(embedder.profile)} vs ${shown(again.profile)}`,
        );
        const before = shown(embedder.profile);
        await embedOk(embedder, ['profile stays'], 'one text');
        conform(shown(embedder.profile) === before, 'the profile changed during an embed call');
      },
    },
    {
      title: 'keeps the batch order: vector i belongs to text i, across batch boundaries',
      rule: 'RFC 0002 "Testing": the batch order kept across batch boundaries; embedder.port.ts',
      async run() {
        const embedder = await options.create(healthy);
        const texts = Array.from(
          { length: 130 },
          (_, index) => `memory ${index}: note number ${index * 7} about topic ${index % 11}`,
        );
        const batch = await embedOk(embedder, texts, 'a batch of 130');
        conform(
          new Set(batch.map((vector) => shown(vector))).size > 1,
          'the healthy backend must tell different texts apart; every vector of the batch is the same, so order cannot be checked',
        );
        for (const index of [0, 1, 64, 97, 129]) {
          const [alone] = await embedOk(embedder, [texts[index]!], `text ${index} alone`);
          conform(
            same(batch[index]!, alone!),
            `text ${index} embedded alone differs from vector ${index} of the batch: the batch order was not kept`,
          );
        }
        const reversed = await embedOk(embedder, [...texts].reverse(), 'the batch reversed');
        for (const index of texts.keys()) {
          conform(
            same(batch[index]!, reversed[texts.length - 1 - index]!),
            `text ${index} got a different vector when the batch was reversed: the batch order was not kept`,
          );
        }
      },
    },
    ...(options.deterministic === false
      ? []
      : [
          {
            title: 'gives the same text the same vector, within a batch and across calls',
            rule: 'RFC 0002 "Vectors and embedding profiles" and "Testing": one profile, one vector per text',
            async run() {
              const embedder = await options.create(healthy);
              const text = 'Alice moved to Berlin';
              const [first, second] = await embedOk(embedder, [text, text], 'one text twice');
              const [third] = await embedOk(embedder, [text], 'the text again');
              conform(
                same(first!, second!) && same(first!, third!),
                'the same text got different vectors; declare `deterministic: false` only if the adapter is random by design',
              );
            },
          } satisfies ConformanceCheck,
        ]),
    {
      title: 'embeds empty and odd text (white space, emoji, right-to-left, CJK, long) and an empty batch',
      rule: 'RFC 0002 "Memory model", Limits: emoji, right-to-left and CJK text are memory text',
      async run() {
        const embedder = await options.create(healthy);
        await embedOk(embedder, ODD_EMBEDDABLE_TEXTS, 'empty and odd texts');
        const none = await embedOk(embedder, [], 'an empty batch');
        conform(none.length === 0, `an empty batch must give no vectors, got ${none.length}`);
      },
    },
    {
      title: 'refuses text with NUL before any backend call, naming the text',
      rule: 'RFC 0002 "Memory model", Limits: no NUL; RFC 0001 "Conformance suites"',
      async run() {
        // A hanging backend: an embedder that sends the text before checking it never answers.
        const embedder = await options.create({ kind: 'hang' });
        const error = await rejection(() => embedder.embed(['fine', 'nul\u0000inside']), 'a text with NUL');
        conform(
          ValidationError.isValidationError(error) &&
            (error as ValidationError).issues.some((issue) => issue.field === 'texts.1'),
          `a text with NUL must be refused with a ValidationError naming field texts.1, got ${String(error)}`,
        );
      },
    },
    {
      title: "honours the caller's abort, rethrowing the caller's reason",
      rule: 'RFC 0002 "Testing": the caller\'s abort rethrown; embedder.port.ts EmbedOptions.signal',
      async run() {
        const reason = new Error('conformance: the caller gave up');
        const embedder = await options.create(options.local ? healthy : { kind: 'hang' });
        const already = new AbortController();
        already.abort(reason);
        const early = await rejection(
          () => embedder.embed(['a'], { signal: already.signal }),
          'an already aborted call',
        );
        conform(
          early === reason,
          `a call with an already aborted signal must reject with its reason, got ${String(early)}`,
        );
        if (options.local) return;
        const controller = new AbortController();
        const pending = Promise.resolve().then(() =>
          embedder.embed(['a', 'b'], { signal: controller.signal }),
        );
        setTimeout(() => controller.abort(reason), 20);
        const late = await rejection(() => pending, 'a call aborted while waiting on the backend');
        conform(
          late === reason,
          `an aborted call must reject with the caller's own reason, unwrapped, got ${String(late)}`,
        );
      },
    },
    ...(options.local
      ? []
      : [
          {
            title: 'fails a failing backend as EmbeddingFailedError (embedding_failed)',
            rule: 'RFC 0002 "Testing": backend failures as EmbeddingFailedError',
            async run() {
              const embedder = await options.create({ kind: 'fail' });
              const error = await rejection(() => embedder.embed(['a']), 'a failing backend');
              conform(
                PowerContextError.isInstance(error) && error.code === 'embedding_failed',
                `a backend failure must raise EmbeddingFailedError (code embedding_failed), got ${String(error)}`,
              );
            },
          } satisfies ConformanceCheck,
        ]),
  ];
  return { checks, ...(options.cleanup ? { cleanup: () => options.cleanup?.() } : {}) };
}

export function describeEmbedderConformance(name: string, options: EmbedderConformanceOptions): void {
  registerConformanceSuite(`Embedder conformance: ${name}`, embedderConformanceSuite(options));
}

export function runEmbedderConformance(options: EmbedderConformanceOptions) {
  return runConformanceSuite(embedderConformanceSuite(options));
}
