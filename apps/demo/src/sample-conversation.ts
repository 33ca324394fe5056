/**
 * A short conversation written for this project: two neighbours planning a community garden over
 * three sessions. Not taken from any dataset.
 */
export interface SampleTurn {
  session: number;
  date: string;
  turn: number;
  speaker: string;
  text: string;
}

const sessions: { date: string; turns: [string, string][] }[] = [
  {
    date: '2026-03-02',
    turns: [
      ['Priya', 'The council finally approved the empty lot on Alder Street for a community garden.'],
      ['Tomás', 'Great news! How many raised beds did they allow?'],
      ['Priya', 'Twelve beds to start, each two metres by one, and a shared compost corner.'],
      ['Tomás', 'I can build the beds from reclaimed larch; my brother has a trailer.'],
      ['Priya', 'Perfect. The budget from the neighbourhood fund is 850 euros for this spring.'],
      ['Tomás', 'Soil will be the biggest cost. Maybe 300 euros for topsoil and compost.'],
      ['Priya', 'Mrs Okafor offered her rain barrels, so watering is covered for now.'],
      ['Tomás', 'Should we ask the primary school to adopt two of the beds?'],
      ['Priya', 'Yes, the head teacher loved the idea when I mentioned it in February.'],
    ],
  },
  {
    date: '2026-04-11',
    turns: [
      ['Tomás', 'Built nine of the twelve beds this weekend; my back is sore.'],
      ['Priya', 'Amazing. The kids from the school planted sunflowers and peas in theirs.'],
      ['Tomás', 'Slugs already ate half the lettuce seedlings in bed four.'],
      ['Priya', 'Try a ring of crushed eggshells, or copper tape around the edges.'],
      ['Tomás', 'We also decided the watering rota: each household takes one week.'],
      ['Priya', 'I put the rota on the shed door and in the group chat.'],
      ['Tomás', 'The topsoil delivery came to 320 euros, a bit over the estimate.'],
      ['Priya', 'Fine, we still have about 400 euros left for tools and seeds.'],
      ['Tomás', 'My daughter Lena wants to paint a sign for the gate.'],
    ],
  },
  {
    date: '2026-06-20',
    turns: [
      ['Priya', 'First harvest day! We picked eleven kilos of courgettes and beans.'],
      ['Tomás', 'Lena finished the sign: it says Alder Street Growers in green letters.'],
      ['Priya', 'We gave the extra vegetables to the food bank on Mill Road.'],
      ['Tomás', 'The compost corner smells; I think it needs more dry leaves and cardboard.'],
      ['Priya', 'Next year I would like a small greenhouse for tomatoes and chillies.'],
      ['Tomás', 'A greenhouse costs around 600 euros; we could apply for the green grant in September.'],
      ['Priya', 'Let us hold a garden party on the first Saturday of July to thank everyone.'],
      ['Tomás', 'I will bring my guitar and the big folding tables.'],
    ],
  },
];

export const SAMPLE_CONVERSATION: SampleTurn[] = sessions.flatMap((session, index) =>
  session.turns.map(([speaker, text], turn) => ({
    session: index + 1,
    date: session.date,
    turn: turn + 1,
    speaker,
    text,
  })),
);

export const SAMPLE_QUERIES: { query: string; mode: 'fts' | 'vector' | 'hybrid' }[] = [
  { query: 'How much did the topsoil cost?', mode: 'fts' },
  { query: 'slugs eating seedlings', mode: 'vector' },
  { query: 'What did Lena paint for the garden?', mode: 'hybrid' },
  { query: 'Where did the extra vegetables go?', mode: 'hybrid' },
];
