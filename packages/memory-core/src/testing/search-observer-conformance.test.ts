import { describe, expect, it } from 'vitest';
import type { SearchObserver } from '../ports/search-observer.port.js';
import {
  createRecordingSearchObserver,
  describeSearchObserverConformance,
  runSearchObserverConformance,
  type SearchObserverHarness,
  searchObserverConformanceSuite,
} from './search-observer-conformance.js';

/** The recording fake as an adapter: it "exports" one record per ended operation, in order. */
function recordingHarness(): SearchObserverHarness {
  const observer = createRecordingSearchObserver();
  return {
    observer,
    exported: () => ({
      operations: observer.events.flatMap(({ name }) =>
        name === 'rerankEnded' ? ['rerank' as const] : name === 'searchEnded' ? ['search' as const] : [],
      ),
      everything: observer.events,
    }),
  };
}

describeSearchObserverConformance('recording in-memory observer', { create: recordingHarness });

describe('the SearchObserver conformance suite itself', () => {
  it('names the RFC section or seed of every rule it checks', () => {
    const unnamed = searchObserverConformanceSuite({ create: recordingHarness }).checks.filter(
      (check) => !/RFC \d{4} "|seed 00[0134]/.test(check.rule),
    );
    expect(unnamed.map((check) => `${check.title} [${check.rule}]`)).toEqual([]);
  });

  const failed = async (create: () => SearchObserverHarness) =>
    (await runSearchObserverConformance({ create })).filter((outcome) => !outcome.passed);

  it('passes the recording fake on every check', async () => {
    expect(await failed(recordingHarness)).toEqual([]);
  });

  it('fails an observer that records a search when it starts, before its rerank', async () => {
    const early = (): SearchObserverHarness => {
      const operations: ('search' | 'rerank')[] = [];
      const observer: SearchObserver = {
        searchStarted: () => void operations.push('search'),
        rerankEnded: () => void operations.push('rerank'),
      };
      return { observer, exported: () => ({ operations, everything: operations }) };
    };
    const failures = await failed(early);
    expect(failures.map((outcome) => outcome.title)).toContain(
      'records a reranked search as its rerank, then the search, and exports no text',
    );
    expect(failures[0]!.message).toContain('got ["search","rerank"]');
  });

  it('asks for the error code unless the exporter declares it cannot hold one', async () => {
    // Counts outcomes only, as a metrics exporter does: no error code, no error field.
    const countsOnly = (): SearchObserverHarness => {
      const observer = createRecordingSearchObserver();
      const ended = () =>
        observer.events.flatMap(({ name }) =>
          name === 'rerankEnded' ? ['rerank' as const] : name === 'searchEnded' ? ['search' as const] : [],
        );
      return { observer, exported: () => ({ operations: ended(), everything: ended() }) };
    };
    const strict = await failed(countsOnly);
    expect(strict.map((outcome) => outcome.title)).toEqual([
      'records a failed rerank and the failed search with the error code, and no text',
    ]);
    expect(strict[0]!.message).toContain(
      'the error code (inference_unavailable) of the failure must be exported',
    );
    const relaxed = await runSearchObserverConformance({ create: countsOnly, exportsErrorCodes: false });
    expect(relaxed.filter((outcome) => !outcome.passed)).toEqual([]);
  });

  it('fails an observer that throws', async () => {
    const throwing = (): SearchObserverHarness => {
      const inner = recordingHarness();
      return {
        ...inner,
        observer: {
          ...inner.observer,
          rerankEnded: (event) => {
            if (event.outcome !== 'selected') throw new Error('exporter offline');
            inner.observer.rerankEnded?.(event);
          },
        },
      };
    };
    const failures = await failed(throwing);
    expect(failures.map((outcome) => outcome.title)).toContain(
      'never throws into the search, whatever the event values',
    );
    expect(failures.find((o) => o.title.startsWith('never throws'))!.message).toContain('exporter offline');
  });
});
