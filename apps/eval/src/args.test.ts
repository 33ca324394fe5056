import { describe, expect, it } from 'vitest';
import { ArgsError, channelSets, DEFAULT_ARGS, parseArgs } from './args.js';

describe('parseArgs', () => {
  it('defaults to the dev file next to the repository, hybrid, turn units, no reranker', () => {
    const args = parseArgs([]);
    expect(args).toEqual(DEFAULT_ARGS);
    expect(DEFAULT_ARGS.data.endsWith('shared/locomo/locomo-dev.json')).toBe(true);
    expect(DEFAULT_ARGS.out.endsWith('eval-results/locomo')).toBe(true);
  });

  it('reads every documented flag, with llm as an alias of listwise', () => {
    const args = parseArgs([
      '--',
      '--mode',
      'all',
      '--unit=observation',
      '--top-k',
      '40',
      '--final-k',
      '5',
      '--rerank',
      'llm',
      '--generation-model',
      'openai-compatible:qwen',
      '--base-url',
      'http://127.0.0.1:11434/v1',
      '--peers',
      '--conversations',
      'conv-26, conv-30',
      '--judge-policy',
      'topical',
    ]);
    expect(args).toMatchObject({
      modes: ['fts', 'vector', 'hybrid'],
      unit: 'observation',
      topK: 40,
      finalK: 5,
      rerank: 'listwise',
      generationModel: 'openai-compatible:qwen',
      baseUrl: 'http://127.0.0.1:11434/v1',
      peers: true,
      conversations: ['conv-26', 'conv-30'],
      judgePolicy: 'topical',
    });
  });

  it('rejects bad values with a message naming the flag', () => {
    expect(() => parseArgs(['--mode', 'bm25'])).toThrow(ArgsError);
    expect(() => parseArgs(['--top-k', '51'])).toThrow(/--top-k/);
    expect(() => parseArgs(['--final-k', '0'])).toThrow(/--final-k/);
    expect(() => parseArgs(['--rerank', 'cross-encoder'])).toThrow(/--rerank/);
    expect(() => parseArgs(['--generation-model', 'qwen'])).toThrow(/--generation-model/);
    expect(() => parseArgs(['--peers=yes'])).toThrow(/--peers/);
    expect(() => parseArgs(['--out'])).toThrow(/needs a value/);
    expect(() => parseArgs(['--frobnicate', '1'])).toThrow(/unknown flag --frobnicate/);
  });

  it('reads --channels and compares the default channels, each optional one added, and all of them', () => {
    const args = parseArgs(['--channels', 'graph,fts,vector,entity']);
    expect(args).toMatchObject({ channels: ['fts', 'vector', 'entity', 'graph'] });
    expect(channelSets(['fts', 'vector', 'entity', 'graph'])).toEqual([
      ['fts', 'vector'],
      ['fts', 'vector', 'entity'],
      ['fts', 'vector', 'graph'],
      ['fts', 'vector', 'entity', 'graph'],
    ]);
    expect(channelSets(['fts', 'vector', 'graph'])).toEqual([
      ['fts', 'vector'],
      ['fts', 'vector', 'graph'],
    ]);
    expect(channelSets(['fts', 'vector'])).toEqual([['fts', 'vector']]);
    for (const bad of ['entity,graph', 'fts,vector,recency', 'fts']) {
      expect(() => parseArgs(['--channels', bad]), bad).toThrow(/--channels must list fts,vector/);
    }
  });

  it('answers help', () => {
    expect(parseArgs(['--help'])).toBe('help');
  });
});
