import { describeSearchObserverConformance } from '@powercontext/memory-core/testing';
import { createOpenTelemetrySearchObserver } from './open-telemetry-search-observer.js';
import { createTestSdk } from './test-sdk.test.helper.js';

// The SearchObserver conformance suite over the OpenTelemetry observer and a real SDK pipeline: an
// in-memory span exporter (spans in the order they ended) and a pull metric reader.
describeSearchObserverConformance('OpenTelemetry observer (SDK tracer and meter)', {
  create() {
    const sdk = createTestSdk();
    return {
      observer: createOpenTelemetrySearchObserver({ tracer: sdk.tracer, meter: sdk.meter }),
      async exported() {
        const spans = sdk.spans();
        const operations = spans.map((span) => {
          if (span.name === 'memory.search') return 'search' as const;
          if (span.name === 'memory.rerank') return 'rerank' as const;
          throw new Error(`unexpected span ${span.name}`);
        });
        const everything = {
          spans: spans.map((span) => ({
            name: span.name,
            attributes: span.attributes,
            status: span.status,
            events: span.events,
            links: span.links,
            scope: span.instrumentationScope,
          })),
          metrics: await sdk.collectMetrics(),
        };
        return { operations, everything };
      },
      close: () => sdk.shutdown(),
    };
  },
});
