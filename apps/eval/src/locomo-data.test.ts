import { describe, expect, it } from 'vitest';
import { buildConversation, locomoFileSchema, turnText } from './locomo-data.js';
import { locomoFixture } from './locomo-fixture.test.helper.js';

const raw = () => locomoFileSchema.parse([locomoFixture()])[0]!;

describe('buildConversation', () => {
  it('makes one unit per dialog turn with the speaker, the text and the image caption', () => {
    const { conversation } = buildConversation(raw(), 'turn');
    expect(conversation.units).toHaveLength(10);
    expect(conversation.units[2]).toEqual({
      unitId: 'D1:3',
      text: 'Alice: Amazing. I saw the northern lights over the glacier lagoon. [image: a photo of green lights in the night sky]',
      turnIds: ['D1:3'],
      position: { sourceId: 'session_1', order: [2] },
      sessionDate: '1:00 pm on 1 May, 2023',
    });
    // Each session is a source of its own, its turns in their listed order.
    expect(conversation.units[6]!.position).toEqual({ sourceId: 'session_2', order: [0] });
    expect(conversation.units[6]!.sessionDate).toBe('3:00 pm on 20 May, 2023');
  });

  it('repairs evidence, counts unresolvable ids and excludes questions without resolvable evidence', () => {
    const { conversation, stats } = buildConversation(raw(), 'turn');
    expect(conversation.questions.map((q) => q.evidence)).toEqual([['D2:3'], ['D1:3'], ['D1:4', 'D2:1']]);
    expect(conversation.questions.map((q) => q.category)).toEqual(['4', '2', '1']);
    expect(stats).toMatchObject({
      questions: 4,
      excludedQuestions: 1,
      unresolvedEvidenceIds: ['D9:9'],
      mergedDuplicateUnits: 0,
    });
    expect(stats.repairedEvidenceIds).toBe(3);
  });

  it('makes observation units that cite their turn ids', () => {
    const { conversation, stats } = buildConversation(raw(), 'observation');
    expect(conversation.units.map((unit) => unit.turnIds)).toEqual([
      ['D1:3'],
      ['D1:4'],
      ['D2:1', 'D2:3'],
      ['D2:4'],
    ]);
    expect(conversation.units[2]!.sessionDate).toBe('3:00 pm on 20 May, 2023');
    expect(stats.unresolvedObservationIds).toEqual(['D2:9']);
  });

  it('merges turns of identical text into one unit that covers both', () => {
    const data = locomoFixture();
    data.conversation.session_2.push({
      speaker: 'Bob',
      dia_id: 'D2:5',
      text: 'Welcome back! How was Iceland?',
    });
    const { conversation, stats } = buildConversation(locomoFileSchema.parse([data])[0]!, 'turn');
    expect(conversation.units).toHaveLength(10);
    expect(conversation.units[1]!.turnIds).toEqual(['D1:2', 'D2:5']);
    expect(stats.mergedDuplicateUnits).toBe(1);
  });
});

describe('turnText', () => {
  it('omits the image part when there is no caption', () => {
    expect(turnText({ id: 'D1:1', session: 1, speaker: 'Bob', text: 'Hi' })).toBe('Bob: Hi');
  });
});
