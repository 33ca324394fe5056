/**
 * A tiny LoCoMo-shaped conversation written for the tests (not LoCoMo data): 2 sessions, 10 turns,
 * observations, 3 scorable questions and one whose only evidence id names no turn.
 */
export function locomoFixture() {
  return {
    sample_id: 'conv-fixture',
    conversation: {
      speaker_a: 'Alice',
      speaker_b: 'Bob',
      session_1_date_time: '1:00 pm on 1 May, 2023',
      session_1: [
        { speaker: 'Alice', dia_id: 'D1:1', text: 'Hi Bob! I just got back from my trip to Reykjavik.' },
        { speaker: 'Bob', dia_id: 'D1:2', text: 'Welcome back! How was Iceland?' },
        {
          speaker: 'Alice',
          dia_id: 'D1:3',
          text: 'Amazing. I saw the northern lights over the glacier lagoon.',
          blip_caption: 'a photo of green lights in the night sky',
        },
        { speaker: 'Bob', dia_id: 'D1:4', text: 'I adopted a tortoise named Sheldon last week.' },
        { speaker: 'Alice', dia_id: 'D1:5', text: 'A tortoise! What does Sheldon eat?' },
        { speaker: 'Bob', dia_id: 'D1:6', text: 'Mostly dandelions and kale.' },
      ],
      session_2_date_time: '3:00 pm on 20 May, 2023',
      session_2: [
        { speaker: 'Alice', dia_id: 'D2:1', text: 'I started pottery classes on Tuesdays.' },
        { speaker: 'Bob', dia_id: 'D2:2', text: 'Nice, what have you made so far?' },
        { speaker: 'Alice', dia_id: 'D2:3', text: 'A lopsided turquoise vase for my grandmother.' },
        {
          speaker: 'Bob',
          dia_id: 'D2:4',
          text: 'Sheldon escaped into the garden yesterday but we found him under the rhubarb.',
        },
      ],
      session_3_date_time: '9:00 am on 2 June, 2023',
    },
    observation: {
      session_1_observation: {
        Alice: [['Alice travelled to Iceland and saw the northern lights.', 'D1:3']],
        Bob: [['Bob adopted a tortoise named Sheldon.', 'D1:4']],
      },
      session_2_observation: {
        Alice: [
          ['Alice takes pottery classes and made a turquoise vase for her grandmother.', ['D2:1', 'D2:3']],
        ],
        Bob: [["Bob's tortoise Sheldon escaped into the garden.", 'D2:4, D2:9']],
      },
    },
    qa: [
      {
        question: 'Which turquoise vase did Alice make for her grandmother?',
        answer: 'A lopsided turquoise vase',
        evidence: ['D2:3'],
        category: 4,
      },
      {
        question: 'When did Alice see the northern lights?',
        answer: 'April 2023',
        evidence: ['D1:03'],
        category: 2,
      },
      {
        question: 'Which pet tortoise and pottery hobby do Alice and Bob have?',
        answer: 'a tortoise; pottery',
        evidence: ['D1:4; D2:1', 'D1:4'],
        category: 1,
      },
      {
        question: "What is Bob's favourite colour?",
        adversarial_answer: 'green',
        evidence: ['D9:9'],
        category: 5,
      },
    ],
  };
}
