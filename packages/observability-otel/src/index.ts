export {
  createOpenTelemetrySearchObserver,
  INSTRUMENTATION_SCOPE_NAME,
  type OpenTelemetrySearchObserverOptions,
} from './open-telemetry-search-observer.js';
