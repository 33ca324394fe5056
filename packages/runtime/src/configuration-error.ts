import { PowerContextError } from '@powercontext/memory-core';

/** Invalid or incomplete configuration found at start-up. Names the setting and the rule. */
export class ConfigurationError extends PowerContextError {
  readonly setting: string;

  constructor(setting: string, rule: string, options: { cause?: unknown } = {}) {
    super('configuration_error', `${setting}: ${rule}`, options);
    this.setting = setting;
  }
}
