/**
 * `@powercontext/runtime/config`: the runtime's configuration from the environment and its error, without
 * loading the runtime itself (its store, kysely, the adapters), for a command that checks its settings
 * before it loads the rest.
 */
export { ConfigurationError } from './configuration-error.js';
export { loadRuntimeConfig, type RuntimeConfig } from './runtime-config.js';
