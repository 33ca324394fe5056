import type { RememberEntryInput } from '@powercontext/memory-core';
import type { Runtime } from '@powercontext/runtime';
import type { UnitKind } from './args.js';
import type { EvalConversation } from './locomo-data.js';
import { countRelevantUnits, type RankedCoverage } from './metrics.js';
import type { EvalUnit } from './peer-system.js';

/** Entries per remember call (the runtime accepts up to 1,000). */
export const REMEMBER_BATCH_SIZE = 200;
/** The runtime's limit on sources per entry. */
const MAX_SOURCES = 32;

export interface IngestedConversation {
  conversation: EvalConversation;
  scopeId: string;
  /** The unit each stored entry represents. */
  unitByEntryId: Map<string, EvalUnit>;
  /** Per scored question (same order): how many units of the conversation cover its evidence. */
  relevantUnits: number[];
}

export function scopeIdOf(conversationId: string): string {
  return `locomo:${conversationId}`;
}

/** The runtime entry of a unit: provenance = conversation id + turn ids, metadata = the session date. */
export function unitEntry(conversationId: string, unit: EvalUnit, kind: UnitKind): RememberEntryInput {
  const sources = unit.turnIds
    .slice(0, MAX_SOURCES)
    .map((turnId) => ({ sourceId: conversationId, locator: turnId }));
  return {
    text: unit.text,
    kind,
    sources: sources.length > 0 ? sources : [{ sourceId: conversationId }],
    ...(unit.position ? { position: unit.position } : {}),
    metadata: unit.sessionDate ? { session_date: unit.sessionDate } : {},
  };
}

/**
 * Remembers every unit of the conversation in its own scope through the runtime API, in batches.
 * An entry the runtime reports as a duplicate of an earlier one (same kind and text) makes that
 * entry cover the turns of both units; `onDuplicate` is told.
 */
export async function ingestConversation(
  runtime: Runtime,
  conversation: EvalConversation,
  kind: UnitKind,
  progress: (remembered: number) => void,
  onDuplicate: (unit: EvalUnit) => void,
): Promise<IngestedConversation> {
  const scopeId = scopeIdOf(conversation.id);
  const memory = runtime.memory.forScope(scopeId);
  const unitByEntryId = new Map<string, EvalUnit>();
  const { units } = conversation;
  for (let start = 0; start < units.length; start += REMEMBER_BATCH_SIZE) {
    const batch = units.slice(start, start + REMEMBER_BATCH_SIZE);
    const result = await memory.remember({
      entries: batch.map((unit) => unitEntry(conversation.id, unit, kind)),
    });
    if (result.entries.length !== batch.length) {
      throw new Error(`remember answered ${result.entries.length} results for ${batch.length} entries`);
    }
    for (const [index, written] of result.entries.entries()) {
      const unit = batch[index]!;
      const earlier = unitByEntryId.get(written.entryId);
      if (earlier) {
        for (const id of unit.turnIds) if (!earlier.turnIds.includes(id)) earlier.turnIds.push(id);
        onDuplicate(unit);
      } else {
        unitByEntryId.set(written.entryId, unit);
      }
    }
    progress(batch.length);
  }
  const coverage: RankedCoverage = [...unitByEntryId.values()].map((unit) => unit.turnIds);
  const relevantUnits = conversation.questions.map((question) =>
    countRelevantUnits(coverage, question.evidence),
  );
  return { conversation, scopeId, unitByEntryId, relevantUnits };
}
