import {
  type AuthorityWeightsInput,
  authorityWeightsSchema,
  type Bm25Parameters,
  type ChannelName,
  type ChannelResult,
  hasAuthority,
  type LexicalProjectionPolicy,
  lexicalProjectionPolicy,
  type RetrievalPolicy,
} from '@powercontext/memory-core';
import { admitChannel, admitLexical, admitLexicalFallback } from './admission.js';
import {
  type ChannelWeights,
  EQUAL_CHANNEL_WEIGHTS,
  fuseReciprocalRank,
  RRF_K,
} from './reciprocal-rank-fusion.js';

export const RRF_RETRIEVAL_POLICY_FAMILY = 'powercontext.retrieval.rrf.v3';

/**
 * BM25 defaults measured on short conversational memory (LoCoMo dev turns): k1 0.8, no length
 * normalisation (b 0), BM25+ delta 0.5. Documents of very uneven length may prefer b 0.75.
 */
export const DEFAULT_BM25: Bm25Parameters = { k1: 0.8, b: 0, delta: 0.5 };

/**
 * Neighbour context of the lexical index: the words of the entries at distance 1 and 2 in the same
 * source, at these weights (RFC 0007 records the measurements behind them). `[]` turns it off.
 */
export const DEFAULT_CONTEXT_WEIGHTS: readonly number[] = [0.35, 0.175];

/** The channels fused by default, in fusion order: the lexical channel, then the vector channel. */
export const DEFAULT_CHANNELS: readonly ChannelName[] = ['fts', 'vector'];

const CHANNEL_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

const DEFAULT_PARAMETERS = `k1=${DEFAULT_BM25.k1},b=${DEFAULT_BM25.b},delta=${DEFAULT_BM25.delta};context=${DEFAULT_CONTEXT_WEIGHTS.join(',')};rrf_k=${RRF_K};weights=1,1;fetch=4x32;lexical_fallback=on`;

export interface RrfRetrievalPolicyOptions {
  /** Replaces the derived id; give a new one whenever any parameter changes. */
  id?: string;
  bm25?: Partial<Bm25Parameters>;
  /** Weights of neighbours at distance 1, 2, ... in the lexical projection; `[]` = no context. */
  contextWeights?: readonly number[];
  rrfK?: number;
  /**
   * The channels to fuse, in fusion order (RFC 0013); default fts, vector. A search runs each of them
   * that its mode allows; every name needs a search channel of that name (the store's built-in `fts`,
   * `vector`, `entity` and `graph`, or an application's). Names: lower case letters, digits, `_`, `-`.
   */
  channels?: readonly ChannelName[];
  /**
   * Weight of each channel's reciprocal ranks (default 1 each, as RFC 0080). A weak embedder's channel
   * can count less, so that it fills and breaks ties instead of displacing strong lexical matches.
   */
  channelWeights?: ChannelWeights;
  /** Channel over-fetch: max(multiplier x coarse limit, floor). Defaults 4 and 32. */
  fetchMultiplier?: number;
  fetchFloor?: number;
  /**
   * When the lexical admission rule admits nothing, return the lexical candidates it turned away
   * instead of an empty answer (default true; false is the v2 behaviour).
   */
  lexicalFallback?: boolean;
  /**
   * The authority step after fusion (RFC 0014): a pinned entry's fused score is multiplied by
   * 1 + pinnedBoost, a tagged one's by 1 + its largest tag weight (both: 1 + their sum, at most 11).
   * Weights within 0..10; all 0 (the default) leaves the policy and its id as they were.
   */
  authority?: AuthorityWeightsInput;
}

/**
 * The coarse-path policy of RFC 0080: admission rules, channel over-fetch and RRF with k = 60, with
 * the BM25 parameters and the lexical projection (neighbour context) of RFC 0007, over the channels of
 * RFC 0013 (fts and vector by default; entity, graph or an application's own when listed). With the
 * defaults its id is `powercontext.retrieval.rrf.v3` (v2 plus the lexical admission fallback);
 * otherwise the id spells out every parameter, so two policies that behave differently never share an
 * id. Fusing N lists left the two-channel answers as they were, to the bit, so the id did not move.
 * Authority weights join the id (`;authority=pinned:0.5,tags:{"billing":0.3}`, tags sorted) only when
 * one is non-zero.
 */
export function createRrfRetrievalPolicy(options: RrfRetrievalPolicyOptions = {}): RetrievalPolicy {
  const bm25 = { ...DEFAULT_BM25, ...options.bm25 };
  for (const [name, value] of Object.entries(bm25)) {
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`bm25.${name} must be a finite number >= 0`);
  }
  if (bm25.b > 1) throw new RangeError('bm25.b must be at most 1');
  const lexicalProjection: LexicalProjectionPolicy = lexicalProjectionPolicy(
    options.contextWeights ?? DEFAULT_CONTEXT_WEIGHTS,
  );
  const k = options.rrfK ?? RRF_K;
  const channels = [...(options.channels ?? DEFAULT_CHANNELS)];
  if (channels.length === 0) throw new RangeError('channels must name at least one channel');
  for (const [index, name] of channels.entries()) {
    if (!CHANNEL_NAME.test(name)) throw new RangeError(`channels: "${name}" is not a channel name`);
    if (channels.indexOf(name) !== index) throw new RangeError(`channels: "${name}" is named twice`);
  }
  const weights: Record<string, number> = {};
  for (const [name, weight] of Object.entries({ ...EQUAL_CHANNEL_WEIGHTS, ...options.channelWeights })) {
    if (weight !== undefined) weights[name] = weight;
  }
  for (const name of channels) weights[name] ??= 1;
  for (const [channel, weight] of Object.entries(weights)) {
    if (!Number.isFinite(weight) || weight < 0 || weight > 1) {
      throw new RangeError(`channelWeights.${channel} must be a number in [0, 1]`);
    }
  }
  const multiplier = options.fetchMultiplier ?? 4;
  const floor = options.fetchFloor ?? 32;
  const lexicalFallback = options.lexicalFallback ?? true;
  const parsedAuthority = authorityWeightsSchema.safeParse(options.authority ?? {});
  if (!parsedAuthority.success) {
    const issue = parsedAuthority.error.issues[0]!;
    throw new RangeError(`authority.${issue.path.join('.')}: ${issue.message}`);
  }
  const authority = hasAuthority(parsedAuthority.data) ? parsedAuthority.data : undefined;
  // The channel list joins the id only when it is not the default two: their ids stay as they were.
  const fused =
    channels.join(',') === DEFAULT_CHANNELS.join(',')
      ? ''
      : `;channels=${channels.map((name) => `${name}:${weights[name]}`).join(',')}`;
  const parameters = `k1=${bm25.k1},b=${bm25.b},delta=${bm25.delta};context=${lexicalProjection.contextWeights.join(',')};rrf_k=${k};weights=${weights.fts},${weights.vector};fetch=${multiplier}x${floor};lexical_fallback=${lexicalFallback ? 'on' : 'off'}${fused}${authority ? `;authority=pinned:${authority.pinnedBoost},tags:${JSON.stringify(authority.tagWeights)}` : ''}`;
  return {
    id:
      options.id ??
      (parameters === DEFAULT_PARAMETERS
        ? RRF_RETRIEVAL_POLICY_FAMILY
        : `${RRF_RETRIEVAL_POLICY_FAMILY}(${parameters})`),
    bm25,
    lexicalProjection,
    channels,
    channelFetchLimit: (coarseLimit) => Math.max(multiplier * coarseLimit, floor),
    // The lexical channel's term rule; every other channel by its result's minScore (the vector
    // channel's is the profile's minCosine), or all of it.
    admit: (channel, { candidates, queryTermCount, minScore }) =>
      channel === 'fts' ? admitLexical(candidates, queryTermCount ?? 0) : admitChannel(candidates, minScore),
    ...(lexicalFallback
      ? {
          admitFallback: (channel: ChannelName, { candidates, queryTermCount }: ChannelResult) =>
            channel === 'fts' ? admitLexicalFallback(candidates, queryTermCount ?? 0) : undefined,
        }
      : {}),
    fuse: (lists, limit) => fuseReciprocalRank(lists, limit, k, weights, channels),
    ...(authority ? { authority } : {}),
  };
}
