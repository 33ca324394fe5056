import type { LexicalIndexRow } from '../lexical-index.js';

/** A row of a lexical index read or delta, every field null but the kind and those given. */
export function lexicalIndexRow(
  kind: LexicalIndexRow['kind'],
  fields: Partial<LexicalIndexRow>,
): LexicalIndexRow {
  return {
    kind,
    ord: null,
    entry_version_id: null,
    entry_id: null,
    active: null,
    value: null,
    average_length: null,
    lexeme: null,
    ords: null,
    tfs: null,
    purged: null,
    ...fields,
  };
}
