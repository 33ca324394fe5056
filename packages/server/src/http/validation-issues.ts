import type { ZodError } from 'zod';
import type { FieldIssueBody } from './api-error.js';

/** Zod issues of a request body as `{ field, rule }`, the field a dotted snake_case path. */
export function validationIssues(error: ZodError): FieldIssueBody[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: [...path, key].join('.'), rule: 'is not a known field' }));
    }
    return [{ field: path.length > 0 ? path.join('.') : '(body)', rule: issue.message }];
  });
}
