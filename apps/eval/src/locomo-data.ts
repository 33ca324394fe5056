import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { UnitKind } from './args.js';
import { repairEvidence } from './evidence.js';
import type { EvalUnit } from './peer-system.js';

/** LoCoMo JSON categories: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial. */
export const CATEGORIES = ['1', '2', '3', '4', '5'] as const;
export type Category = (typeof CATEGORIES)[number];
export const CATEGORY_NAMES: Record<Category, string> = {
  '1': 'multi-hop',
  '2': 'temporal',
  '3': 'open-domain',
  '4': 'single-hop',
  '5': 'adversarial',
};

const turnSchema = z.looseObject({
  speaker: z.string().min(1),
  dia_id: z.string().min(1),
  text: z.string(),
  blip_caption: z.string().optional(),
});

const qaSchema = z.looseObject({
  question: z.string().min(1),
  answer: z.unknown().optional(),
  adversarial_answer: z.unknown().optional(),
  evidence: z.array(z.unknown()).default([]),
  category: z.number().int().min(1).max(5),
});

/** observation -> session_N_observation -> speaker -> [[fact text, turn id or list of turn ids]] */
const observationSchema = z.record(
  z.string(),
  z.record(z.string(), z.array(z.tuple([z.string(), z.union([z.string(), z.array(z.string())])]))),
);

const conversationSchema = z.looseObject({
  sample_id: z.string().min(1),
  conversation: z.record(z.string(), z.unknown()),
  qa: z.array(qaSchema),
  observation: observationSchema.optional(),
});

export const locomoFileSchema = z.array(conversationSchema).min(1);
export type LocomoConversation = z.infer<typeof conversationSchema>;

export interface LocomoTurn {
  id: string;
  session: number;
  speaker: string;
  text: string;
  caption?: string;
  sessionDate?: string;
}

export interface EvalQuestion {
  conversationId: string;
  /** Position in the conversation's qa list. */
  index: number;
  question: string;
  category: Category;
  /** Resolved, deduplicated evidence turn ids (never empty for a scored question). */
  evidence: string[];
  answer: string;
}

export interface EvalConversation {
  id: string;
  turns: LocomoTurn[];
  units: EvalUnit[];
  /** Scored questions only. */
  questions: EvalQuestion[];
}

export interface ConversationStats {
  questions: number;
  excludedQuestions: number;
  unresolvedEvidenceIds: string[];
  repairedEvidenceIds: number;
  unresolvedObservationIds: string[];
  /** Units with the exact text of an earlier unit, merged into it (the runtime stores one entry per text). */
  mergedDuplicateUnits: number;
}

export async function readLocomoFile(file: string): Promise<{ data: LocomoConversation[]; sha256: string }> {
  const bytes = await readFile(file);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const parsed = locomoFileSchema.safeParse(JSON.parse(bytes.toString('utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${file} is not a LoCoMo file: ${issue.path.join('.')}: ${issue.message}`);
  }
  return { data: parsed.data, sha256 };
}

/** Dialog turns in session order; sessions listed only by date (no turns) are skipped. */
export function conversationTurns(raw: LocomoConversation): LocomoTurn[] {
  const sessions = Object.keys(raw.conversation)
    .flatMap((key) => {
      const match = /^session_(\d+)$/.exec(key);
      return match && Array.isArray(raw.conversation[key]) ? [Number(match[1])] : [];
    })
    .sort((a, b) => a - b);
  const turns: LocomoTurn[] = [];
  for (const session of sessions) {
    const date = raw.conversation[`session_${session}_date_time`];
    const list = z.array(turnSchema).safeParse(raw.conversation[`session_${session}`]);
    if (!list.success) {
      throw new Error(`${raw.sample_id} session_${session}: ${list.error.issues[0]!.message}`);
    }
    for (const turn of list.data) {
      turns.push({
        id: turn.dia_id,
        session,
        speaker: turn.speaker,
        text: turn.text,
        ...(turn.blip_caption ? { caption: turn.blip_caption } : {}),
        ...(typeof date === 'string' ? { sessionDate: date } : {}),
      });
    }
  }
  return turns;
}

/** "<speaker>: <text>" plus " [image: <caption>]" when the turn shows an image. */
export function turnText(turn: LocomoTurn): string {
  return `${turn.speaker}: ${turn.text}${turn.caption ? ` [image: ${turn.caption}]` : ''}`;
}

/** Merges units of identical text into the first one, which then covers the turns of all of them. */
function mergeDuplicates(units: EvalUnit[]): { units: EvalUnit[]; merged: number } {
  const byText = new Map<string, EvalUnit>();
  let merged = 0;
  for (const unit of units) {
    const first = byText.get(unit.text);
    if (!first) {
      byText.set(unit.text, { ...unit, turnIds: [...unit.turnIds] });
      continue;
    }
    merged++;
    for (const id of unit.turnIds) if (!first.turnIds.includes(id)) first.turnIds.push(id);
  }
  return { units: [...byText.values()], merged };
}

function observationUnits(raw: LocomoConversation, turnIds: ReadonlySet<string>, dates: Map<number, string>) {
  const units: EvalUnit[] = [];
  const unresolved: string[] = [];
  const sessions = Object.entries(raw.observation ?? {})
    .flatMap(([key, value]) => {
      const match = /^session_(\d+)_observation$/.exec(key);
      return match ? [{ session: Number(match[1]), speakers: value }] : [];
    })
    .sort((a, b) => a.session - b.session);
  for (const { session, speakers } of sessions) {
    let index = 0;
    for (const facts of Object.values(speakers)) {
      for (const [text, cited] of facts) {
        index++;
        if (text.trim() === '') continue;
        const evidence = repairEvidence(Array.isArray(cited) ? cited : [cited], turnIds);
        unresolved.push(...evidence.unresolved);
        const date = dates.get(session);
        units.push({
          unitId: `O${session}:${index}`,
          text,
          turnIds: evidence.ids,
          position: { sourceId: `session_${session}`, order: [index] },
          ...(date ? { sessionDate: date } : {}),
        });
      }
    }
  }
  return { units, unresolved };
}

/** The units, scored questions and data-quality counts of one conversation. */
export function buildConversation(
  raw: LocomoConversation,
  unit: UnitKind,
): { conversation: EvalConversation; stats: ConversationStats } {
  const turns = conversationTurns(raw);
  const turnIds = new Set(turns.map((turn) => turn.id));
  if (turnIds.size !== turns.length) throw new Error(`${raw.sample_id} has repeated turn ids`);
  const dates = new Map(
    turns.flatMap((turn) => (turn.sessionDate ? [[turn.session, turn.sessionDate]] : [])),
  );

  let built: EvalUnit[];
  let unresolvedObservationIds: string[] = [];
  if (unit === 'turn') {
    // A turn's position: its session, and its place in the session's list of turns.
    const placeInSession = new Map<number, number>();
    built = turns.map((turn) => {
      const place = placeInSession.get(turn.session) ?? 0;
      placeInSession.set(turn.session, place + 1);
      return {
        unitId: turn.id,
        text: turnText(turn),
        turnIds: [turn.id],
        position: { sourceId: `session_${turn.session}`, order: [place] },
        ...(turn.sessionDate ? { sessionDate: turn.sessionDate } : {}),
      };
    });
  } else {
    const observations = observationUnits(raw, turnIds, dates);
    built = observations.units;
    unresolvedObservationIds = observations.unresolved;
  }
  const { units, merged } = mergeDuplicates(built);

  const questions: EvalQuestion[] = [];
  const unresolvedEvidenceIds: string[] = [];
  let repairedEvidenceIds = 0;
  let excludedQuestions = 0;
  for (const [index, qa] of raw.qa.entries()) {
    const evidence = repairEvidence(qa.evidence, turnIds);
    unresolvedEvidenceIds.push(...evidence.unresolved);
    repairedEvidenceIds += evidence.repaired;
    if (evidence.ids.length === 0) {
      excludedQuestions++;
      continue;
    }
    const answer = qa.answer ?? qa.adversarial_answer;
    questions.push({
      conversationId: raw.sample_id,
      index,
      question: qa.question,
      category: String(qa.category) as Category,
      evidence: evidence.ids,
      answer: answer === undefined || answer === null ? '' : String(answer),
    });
  }
  return {
    conversation: { id: raw.sample_id, turns, units, questions },
    stats: {
      questions: raw.qa.length,
      excludedQuestions,
      unresolvedEvidenceIds,
      repairedEvidenceIds,
      unresolvedObservationIds,
      mergedDuplicateUnits: merged,
    },
  };
}
