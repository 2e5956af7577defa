// A tiny conversation in LoCoMo's shape, written for the evaluation's smoke test (not LoCoMo data): the answers
// are known, so the recall the evaluation computes on it is known too.
const filler = [
  'The weather forecast says rain until Friday.',
  'We should grab lunch somewhere near the station.',
  'Traffic on the ring road was terrible this morning.',
  'My neighbour finally fixed the noisy fence.',
  'Did you watch the football match yesterday?',
  'Yes, the second half was exciting.',
  'I need new running shoes before the spring.',
  'The bakery downtown sells great croissants.',
  'My phone battery dies far too quickly lately.',
  'Try turning off the background refresh.',
  'Good idea, I will try that tonight.',
  'Our office moved the meetings to Tuesday.',
];

const turns = (session: number, speakers: [string, string], texts: string[]) =>
  texts.map((text, index) => ({ speaker: speakers[index % 2] as string, dia_id: `D${session}:${index + 1}`, text }));

export const SYNTHETIC_SAMPLES = [
  {
    sample_id: 'synthetic-1',
    conversation: {
      speaker_a: 'Nadia',
      speaker_b: 'Tomas',
      // Sessions listed out of order on purpose: the turns must still come in session order.
      session_2_date_time: '9:00 am on 2 June, 2024',
      session_2: turns(
        2,
        ['Nadia', 'Tomas'],
        [
          'I started taking cello lessons last month.',
          'My sister moved to Lisbon for a job at the aquarium.',
          ...filler,
        ],
      ),
      session_1_date_time: '7:30 pm on 1 May, 2024',
      session_1: [
        ...turns(1, ['Nadia', 'Tomas'], ['How was your week?', 'Busy: I repainted my kayak tangerine.']),
        {
          speaker: 'Nadia',
          dia_id: 'D1:3',
          text: 'Meet the puppy we adopted!',
          blip_caption: 'a greyhound asleep on a sofa',
        },
        ...turns(1, ['Tomas', 'Nadia'], ['What a cute dog.', 'Thanks, see you soon.']).map((turn, index) => ({
          ...turn,
          dia_id: `D1:${index + 4}`,
        })),
      ],
    },
    qa: [
      { question: 'What colour was the kayak repainted?', answer: 'tangerine', evidence: ['D1:2'], category: 4 },
      {
        question: 'Which city did the sister move to for the aquarium job, and which lessons started (cello)?',
        answer: 'Lisbon; cello',
        // One entry naming two turns, as a few of LoCoMo's do.
        evidence: ['D2:1; D2:2'],
        category: 1,
      },
      // Only the photo's caption answers it.
      { question: 'Who was asleep on the sofa?', answer: 'a greyhound', evidence: ['D1:3'], category: 2 },
      // Left out: adversarial (category 5), and evidence that names no turn of the conversation.
      { question: 'What is the name of the kayak?', adversarial_answer: 'Orange', evidence: ['D1:2'], category: 5 },
      { question: 'Where is the fence?', answer: 'next door', evidence: ['D9:99'], category: 3 },
    ],
  },
];
